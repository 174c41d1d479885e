// The CLI as a user runs it: the built server in its own process.
import t from 'tap';
import { createServer, type AddressInfo } from 'node:net';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseOptions, UsageError } from '../../src/config.js';
import { withoutTapHooks } from '../support/process.js';

const server = new URL('../../dist/portal-mock.mjs', import.meta.url).pathname;
/** the command line of the built CLI with these arguments */
const cli = (...args: string[]) => withoutTapHooks(process.execPath, [server, ...args]);
t.setTimeout(20 * 60_000); // dozens of processes started one after another: minutes on a busy machine

t.test('flags and environment twins', async (t) => {
  const o = parseOptions(['--port', '4010', '--seed', '7', '--scenario', 'default'], {});
  t.match(o, { port: 4010, seed: 7, scenario: 'default', host: '0.0.0.0', data: null });
  t.match(parseOptions([], { PORTAL_MOCK_PORT: '5000', PORTAL_MOCK_SEED: '3' }), { port: 5000, seed: 3 });
  t.match(
    parseOptions(['--port', '6000'], { PORTAL_MOCK_PORT: '5000' }),
    { port: 6000 },
    'a flag wins over the environment',
  );
  t.equal(parseOptions(['--help'], {}), 'help');
  const bads = [
    ['--bogus'],
    ['--port', 'abc'],
    ['--port', '70000'],
    ['--port', '-1'],
    ['--now', 'yesterday'],
    ['--log-level', 'loud'],
    ['stray'],
    ['--sandbox-idle-ttl', '5x'],
    ['--data'],
    ['--data', '--port', '1'],
  ];
  for (const bad of bads) {
    let error: unknown;
    try {
      parseOptions(bad, {});
    } catch (err) {
      error = err;
    }
    t.ok(error instanceof UsageError, `${bad.join(' ')}: ${String(error)}`);
  }
  const fromEnv = 'PORTAL_MOCK_PORT expects a whole number from 0 to 65535, got "-1"';
  t.throws(
    () => parseOptions([], { PORTAL_MOCK_PORT: '-1' }),
    { message: fromEnv },
    'an environment value names its variable',
  );
});

t.test('start-up errors: one clear line and the exit code, no usage dump and no stack trace', async (t) => {
  const oneLine = (stderr: string) => stderr.trim().split('\n').length === 1 && !/\n\s+at /.test(stderr);
  const r = spawnSync(...cli('--bogus'), { encoding: 'utf8' });
  t.equal(r.status, 2);
  t.match(r.stderr, /^portal-mock: .*bogus.*--help/);
  t.ok(oneLine(r.stderr), r.stderr);
  const s = spawnSync(...cli('--scenario', 'no-such-scenario', '--port', '0'), {
    encoding: 'utf8',
  });
  t.equal(s.status, 2);
  t.match(s.stderr, /unknown scenario "no-such-scenario"; known: .*default/);
  const now = spawnSync(...cli('--now', 'yesterday'), { encoding: 'utf8' });
  t.equal(now.status, 2);
  t.match(now.stderr, /--now expects an ISO 8601 date-time such as 2026-03-02T09:00:00Z, got "yesterday"/);
  t.ok(oneLine(now.stderr), now.stderr);
  // a port in use: named, with the way out
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  t.teardown(() => blocker.close());
  const port = (blocker.address() as AddressInfo).port;
  const busy = spawnSync(...cli('--port', String(port), '--host', '127.0.0.1', '--no-banner'), {
    encoding: 'utf8',
    timeout: 180_000, // a guard against a hang: on a busy machine a start takes many seconds
  });
  t.equal(busy.status, 1);
  t.match(busy.stderr, new RegExp(`^portal-mock: 127\\.0\\.0\\.1:${port} is in use; .*--port 0`));
  t.ok(oneLine(busy.stderr), busy.stderr);
});

t.test('starts, prints where to reach it, answers, stops on SIGTERM with exit 0', async (t) => {
  const dir = join(mkdtempSync(join(tmpdir(), 'pm-cli-')), 'data', 'nested'); // made at start, level by level
  const child = spawn(
    ...cli('--port', '0', '--host', '127.0.0.1', '--seed', '7', '--log-level', 'warn', '--data', dir),
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  t.teardown(() => child.kill('SIGKILL')); // a failed check must not leave it running (tap would wait for it)
  let out = '';
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString();
  });
  const port = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no address printed: ${out}`)), 180_000);
    child.stdout.on('data', () => {
      const m = /http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
  });
  t.match(out, /scenario: default\s+seed: 7/);
  t.match(out, /\/__admin\/fixtures/);
  const health = (await (await fetch(`http://127.0.0.1:${port}/__admin/health`)).json()) as {
    status: string;
    seed: number;
  };
  t.match(health, { status: 'ok', seed: 7 });
  const bind = await fetch(`http://127.0.0.1:${port}/mobile/manual-bind`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      email: 'ivan.petrov@romashka.test',
      password: 'demo1234',
      device: { id: 'persisted-phone' },
    }),
  });
  t.equal(bind.status, 200);
  const exit = new Promise<number | null>((resolve) => child.on('exit', resolve));
  child.kill('SIGTERM');
  t.equal(await exit, 0);
  const saved = readFileSync(join(dir, 'default.log'), 'utf8');
  t.match(saved, /persisted-phone/, 'the acknowledged bind is in the sandbox log');
});

t.test(
  'a bad scenario file stops start-up with exit 2, naming the file, the JSON path and what was expected',
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'pm-bad-scen-'));
    writeFileSync(
      join(dir, 'broken.json'),
      JSON.stringify({ name: 'broken', description: 'x', latency: [{ fixedMs: 'slow' }] }),
    );
    const r = spawnSync(...cli('--scenarios', dir, '--port', '0'), { encoding: 'utf8' });
    t.equal(r.status, 2);
    t.match(r.stderr, /broken\.json: at \/latency\/0\/fixedMs: Expected integer/);
  },
);
