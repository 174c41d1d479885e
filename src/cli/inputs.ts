// The files and directories the flags name, checked before the app is built: a bad one stops start-up with one
// line naming the flag, the value and what is wrong (UsageError, exit 2), instead of a stack from deep inside.
import { closeSync, existsSync, mkdirSync, openSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { UsageError, type Options } from '../config.js';
import { loadFixtures } from '../store/fixtures.js';
import { defaultCaDir } from '../tls/ca.js';

/** What an fs error means, in words ("does not exist"), without the syscall and path Node adds. */
export function fsReason(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  const known: Record<string, string> = {
    ENOENT: 'does not exist',
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    EROFS: 'read-only file system',
    EISDIR: 'is a directory, not a file',
    ENOTDIR: 'a part of the path is a file, not a directory',
    ENOSPC: 'no space left on the device',
  };
  return (e.code && known[e.code]) ?? String(e.message).split('\n')[0]!;
}

/** Why creating something failed; ENOENT below a directory that exists is a file system that allows none (/proc). */
const refusal = (err: unknown) =>
  (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'the file system there allows no new files' : fsReason(err);

/** Whether this process can create and remove a file in `dir` (as root, permission bits say nothing). */
function writeProblem(dir: string): string | null {
  const probe = join(dir, `.portal-mock-write-check-${process.pid}`);
  try {
    writeFileSync(probe, '');
    rmSync(probe, { force: true });
    return null;
  } catch (err) {
    return `cannot write in it: ${refusal(err)}`;
  }
}

/**
 * Makes `dir` if missing and checks it is a directory this process can write in; what is wrong otherwise. One level
 * at a time: Node's recursive mkdir loops forever, at 100% CPU, where mkdir answers ENOENT below a parent that exists
 * (anything under /proc).
 */
export function directoryProblem(dir: string): string | null {
  const path = resolve(dir);
  const missing: string[] = [];
  let existing = path;
  while (!existsSync(existing)) {
    missing.unshift(existing);
    existing = dirname(existing);
  }
  if (!statSync(existing).isDirectory()) {
    return existing === path ? 'is a file, not a directory' : `${existing} is a file, not a directory`;
  }
  for (const level of missing) {
    try {
      mkdirSync(level);
    } catch (err) {
      return `cannot create ${level === path ? 'it' : level}: ${refusal(err)}`;
    }
  }
  return writeProblem(path);
}

/** What is wrong with a file start-up reads (missing, a directory, unreadable), or null. */
export function readableFileProblem(file: string): string | null {
  try {
    if (statSync(file).isDirectory()) return 'is a directory, not a file';
    closeSync(openSync(file, 'r'));
    return null;
  } catch (err) {
    return fsReason(err);
  }
}

/** The port file is written once listening: its directory must exist and take a file now. */
export function portFileProblem(file: string): string | null {
  const dir = dirname(resolve(file));
  try {
    if (existsSync(file) && statSync(file).isDirectory()) return 'is a directory, not a file';
    if (!statSync(dir).isDirectory()) return `${dir} is a file, not a directory`;
  } catch (err) {
    return `directory ${dir}: ${fsReason(err)}`;
  }
  return writeProblem(dir);
}

/**
 * Every file and directory the options name, checked before the app is built; throws the first problem as a
 * UsageError "--flag VALUE: what is wrong". Makes the directories that are missing (--data, --record, --ca-dir).
 */
export async function checkStartInputs(options: Options): Promise<void> {
  const fail = (flag: string, value: string, problem: string | null) => {
    if (problem) throw new UsageError(`${flag} ${value}: ${problem}`);
  };
  for (const dir of options.scenarios) {
    const isDir = existsSync(dir) && statSync(dir).isDirectory();
    fail('--scenarios', dir, isDir ? null : existsSync(dir) ? 'is a file, not a directory' : 'does not exist');
  }
  if (options.fixtures) {
    fail('--fixtures', options.fixtures, readableFileProblem(options.fixtures));
    try {
      loadFixtures(options.fixtures, `--fixtures ${options.fixtures}`);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  }
  if (options.state) fail('--state', options.state, readableFileProblem(options.state));
  if (options.tlsCert) fail('--tls-cert', options.tlsCert, readableFileProblem(options.tlsCert));
  if (options.tlsKey) fail('--tls-key', options.tlsKey, readableFileProblem(options.tlsKey));
  if (options.portFile) fail('--port-file', options.portFile, portFileProblem(options.portFile));
  if (!isIP(options.host)) {
    try {
      await lookup(options.host);
    } catch (err) {
      fail('--host', options.host, `cannot resolve it (${(err as NodeJS.ErrnoException).code ?? fsReason(err)})`);
    }
  }
  // last, as they make what is missing: nothing is created when another input is wrong
  if (options.data) fail('--data', options.data, directoryProblem(options.data));
  if (options.record) fail('--record', options.record, directoryProblem(options.record));
  if (options.https && !options.tlsCert) {
    const caDir = options.caDir ?? defaultCaDir();
    fail('--ca-dir', caDir, directoryProblem(caDir));
  }
}
