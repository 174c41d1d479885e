// The runner's set-ups against a failing test file: the run reports the failure and ends. Both are tried: .taprc (a
// developer's `npx tap test/x.test.ts`, the sources through tsx) and .taprc.bundled (`npm test`, the bundles of
// scripts/test-bundle.mjs).
// A failure carrying one long line (a property test's counterexample) used to keep tap's terminal reporter busy for
// many minutes after the file had ended (test/support/bounded-failures.ts says why), so one broken test stalled the
// whole suite instead of failing it. The runner runs in a scratch project holding this project's .taprc and
// support file (and the bundles made of them there), not in this one, so that it cannot touch the .tap folder or the
// bundles of the run it is part of.
import t from 'tap';
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { withoutTapHooks } from '../support/process.js';

const root = resolve(import.meta.dirname, '..', '..');
/** A guard against the stall, not a speed check: the run takes seconds; the stall took over 10 minutes. */
const guardMs = 240_000;

function scratchProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pm-runner-'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'runner-fixture', private: true, type: 'module' }));
  copyFileSync(join(root, '.taprc'), join(dir, '.taprc'));
  copyFileSync(join(root, '.taprc.bundled'), join(dir, '.taprc.bundled'));
  mkdirSync(join(dir, 'test/support'), { recursive: true });
  copyFileSync(join(root, 'test/support/bounded-failures.ts'), join(dir, 'test/support/bounded-failures.ts'));
  copyFileSync(join(root, 'test/support/runner/fails-loudly.ts'), join(dir, 'test/fails-loudly.test.ts'));
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

/** Runs tap in `cwd` as a developer or `npm test` does, with none of the outer run's TAP variables or hooks. */
function runTap(
  cwd: string,
  args: string[],
  rcfile?: string,
): Promise<{ code: number | null; out: string; ended: boolean }> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(TAP|_TAPJS|NODE_OPTIONS$)/.test(k)),
  ) as NodeJS.ProcessEnv;
  if (rcfile) env.TAP_RCFILE = rcfile;
  const tap = join(root, 'node_modules/tap/dist/esm/run.mjs');
  // killed with this test process if it dies first (setpriv, as test/support/process.ts does for servers), and in
  // its own process group, so that the guard can end tap and the test process it started
  const guard = existsSync('/usr/bin/setpriv') ? ['/usr/bin/setpriv', '--pdeathsig', 'KILL', '--'] : [];
  const [command, ...commandArgs] = [...guard, process.execPath, tap, ...args];
  const proc = spawn(command!, commandArgs, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (out += d.toString()));
  let ended = true;
  const timer = setTimeout(() => {
    ended = false;
    process.kill(-proc.pid!, 'SIGKILL');
  }, guardMs);
  return new Promise((done) =>
    proc.on('close', (code) => {
      clearTimeout(timer);
      done({ code, out, ended });
    }),
  );
}

/** The bundles `npm test` runs, made by the project's script in the scratch project. */
function bundle(dir: string): Promise<number | null> {
  const script = join(root, 'scripts/test-bundle.mjs');
  const proc = spawn(...withoutTapHooks(process.execPath, [script, dir]), { stdio: 'inherit' });
  return new Promise((done) => proc.on('close', done));
}

const setUps = [
  { name: '.taprc (npx tap, through tsx)', file: 'test/fails-loudly.test.ts', rcfile: undefined },
  { name: '.taprc.bundled (npm test)', file: '.test-build/fails-loudly.test.mjs', rcfile: '.taprc.bundled' },
];

for (const setUp of setUps) {
  t.test(`${setUp.name}: a file failing with long texts is reported as failed, and the run ends`, async (t) => {
    const dir = scratchProject();
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    if (setUp.rcfile) t.equal(await bundle(dir), 0, 'the bundles are made');
    // base: the reporter tap uses on a terminal (into a pipe it would print plain TAP, which never stalled)
    const run = await runTap(dir, ['--reporter=base', setUp.file], setUp.rcfile);
    t.ok(run.ended, `tap ended by itself (output so far: ${run.out.length} characters)`);
    t.equal(run.code, 1, 'tap exits with 1: a test failed');
    t.match(run.out, /# \{ total: 4, pass: 1, fail: 3 \}/, 'the three failures are counted, the pass too');
    t.match(run.out, /a thrown error whose message is one line of 1 MB/, 'the failing test is named');
    t.match(run.out, /seed: \d+/, "the property's seed (to replay it) is kept");
    t.match(run.out, /more characters cut by test\/support\/bounded-failures\.ts/, 'the cut is said');
    t.ok(run.out.length < 400_000, `the report is bounded (${run.out.length} characters)`);
  });
}
