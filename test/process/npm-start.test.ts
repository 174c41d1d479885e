// `npm start` runs the build under plain node (no rebuild, so a start takes well under a second on an idle machine),
// warns when a source is newer than the build, and stopping npm with SIGTERM stops the server too: no orphaned node
// process keeps the port. The figures of the start time are in the README; no duration is asserted here.
import t from 'tap';
import { spawn, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withoutTapHooks } from '../support/process.js';
import { waitFor } from '../support/wait.js';

const root = new URL('../..', import.meta.url).pathname;
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Every process below `pid` (Linux /proc), so the test sees the shell and node that npm started. */
function descendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      parents.set(Number(entry), Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]));
    } catch {
      /* gone */
    }
  }
  const found: number[] = [];
  for (let frontier = [pid]; frontier.length > 0; ) {
    frontier = [...parents].filter(([, parent]) => frontier.includes(parent)).map(([child]) => child);
    found.push(...frontier);
  }
  return found;
}

t.test('npm start is plain node: no build step before it', async (t) => {
  const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  t.equal(scripts.start, 'node bin/portal-mock.js');
  t.notOk(scripts.prestart ?? scripts.poststart, 'no prestart/poststart hook rebuilds');
});

t.test(
  'stopping npm start with SIGTERM stops the server; the build is not touched',
  { skip: process.platform === 'linux' ? false : 'reads /proc' },
  async (t) => {
    const built = ['dist/portal-mock.mjs', 'dist/server.js'].map((f) => statSync(join(root, f)).mtimeMs);
    const portFile = join(mkdtempSync(join(tmpdir(), 'pm-npm-start-')), 'port');
    const npm = spawn(
      ...withoutTapHooks('npm', [
        'start',
        '--',
        '--port',
        '0',
        '--host',
        '127.0.0.1',
        '--port-file',
        portFile,
        '--no-banner',
        '--log-level',
        'warn',
      ]),
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    npm.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    npm.stderr.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const exited = new Promise<number | null>((resolve) => npm.on('exit', (code) => resolve(code)));
    let below: number[] = [];
    t.teardown(() => {
      for (const pid of below) if (alive(pid)) process.kill(pid, 'SIGKILL');
    });
    // the port file is written once the server listens
    await waitFor(() => existsSync(portFile) || npm.exitCode !== null, { everyMs: 100 });
    t.ok(existsSync(portFile), `the server started: ${out}`);
    if (!existsSync(portFile)) return;
    const base = `http://127.0.0.1:${readFileSync(portFile, 'utf8').trim()}`;
    t.equal((await fetch(`${base}/__admin/health`)).status, 200, 'health answers');
    below = descendants(npm.pid!);
    t.ok(below.length >= 1, `npm runs the server below it: ${below.join(', ')}`);

    npm.kill('SIGTERM');
    await exited;
    await waitFor(() => !below.some(alive), { everyMs: 100 });
    t.same(below.filter(alive), [], 'no process npm started is left (no orphaned node)');
    // refused at once when nothing listens: no time limit decides this
    const answering = await fetch(`${base}/__admin/health`).then(
      () => true,
      () => false,
    );
    t.notOk(answering, 'the port no longer answers');
    t.same(
      ['dist/portal-mock.mjs', 'dist/server.js'].map((f) => statSync(join(root, f)).mtimeMs),
      built,
      'npm start rebuilt nothing',
    );
  },
);

t.test('the bin warns when a source is newer than the build it runs', async (t) => {
  // a checkout in miniature: the real bin, the real bundle (linked), and one source file
  const dir = mkdtempSync(join(tmpdir(), 'pm-stale-'));
  for (const d of ['bin', 'dist', 'src']) mkdirSync(join(dir, d));
  copyFileSync(join(root, 'bin/portal-mock.js'), join(dir, 'bin/portal-mock.js'));
  symlinkSync(join(root, 'dist/portal-mock.mjs'), join(dir, 'dist/portal-mock.mjs'));
  writeFileSync(join(dir, 'src/app.ts'), '');
  const run = () =>
    spawnSync(...withoutTapHooks(process.execPath, [join(dir, 'bin/portal-mock.js'), '--help']), {
      encoding: 'utf8',
    });
  const old = new Date(statSync(join(root, 'dist/portal-mock.mjs')).mtimeMs - 60_000);
  utimesSync(join(dir, 'src/app.ts'), old, old);
  const fresh = run();
  t.equal(fresh.stderr, '', 'sources older than the build: no warning');
  t.match(fresh.stdout, 'Usage: portal-mock');
  const later = new Date(Date.now() + 60_000);
  utimesSync(join(dir, 'src/app.ts'), later, later);
  const stale = run();
  t.match(stale.stderr, /src\/app\.ts changed after the last build.*npm run build.*npm run dev/);
  t.match(stale.stdout, 'Usage: portal-mock', 'and it still starts');
});
