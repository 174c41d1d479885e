// The CLI as a user runs it: the built server in its own process.
import t from 'tap';
import { createServer, type AddressInfo } from 'node:net';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseOptions, UsageError } from '../src/config.js';
import { ensureCa, issueServerCert } from '../src/tls/ca.js';

const server = new URL('../dist/portal-mock.mjs', import.meta.url).pathname;
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
  const r = spawnSync(process.execPath, [server, '--bogus'], { encoding: 'utf8' });
  t.equal(r.status, 2);
  t.match(r.stderr, /^portal-mock: .*bogus.*--help/);
  t.ok(oneLine(r.stderr), r.stderr);
  const s = spawnSync(process.execPath, [server, '--scenario', 'no-such-scenario', '--port', '0'], {
    encoding: 'utf8',
  });
  t.equal(s.status, 2);
  t.match(s.stderr, /unknown scenario "no-such-scenario"; known: .*default/);
  const now = spawnSync(process.execPath, [server, '--now', 'yesterday'], { encoding: 'utf8' });
  t.equal(now.status, 2);
  t.match(now.stderr, /--now expects an ISO 8601 date-time such as 2026-03-02T09:00:00Z, got "yesterday"/);
  t.ok(oneLine(now.stderr), now.stderr);
  // a port in use: named, with the way out
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  t.teardown(() => blocker.close());
  const port = (blocker.address() as AddressInfo).port;
  const busy = spawnSync(process.execPath, [server, '--port', String(port), '--host', '127.0.0.1', '--no-banner'], {
    encoding: 'utf8',
    timeout: 20_000,
  });
  t.equal(busy.status, 1);
  t.match(busy.stderr, new RegExp(`^portal-mock: 127\\.0\\.0\\.1:${port} is in use; .*--port 0`));
  t.ok(oneLine(busy.stderr), busy.stderr);
});

t.test('starts, prints where to reach it, answers, stops on SIGTERM with exit 0', async (t) => {
  const dir = join(mkdtempSync(join(tmpdir(), 'pm-cli-')), 'data', 'nested'); // made at start, level by level
  const child = spawn(
    process.execPath,
    [server, '--port', '0', '--host', '127.0.0.1', '--seed', '7', '--log-level', 'warn', '--data', dir],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString();
  });
  const port = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no address printed: ${out}`)), 20_000);
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
    const r = spawnSync(process.execPath, [server, '--scenarios', dir, '--port', '0'], { encoding: 'utf8' });
    t.equal(r.status, 2);
    t.match(r.stderr, /broken\.json: at \/latency\/0\/fixedMs: Expected integer/);
  },
);

t.test('bad start-up input: one line naming the flag, the value and what is wrong; exit 2, no stack', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pm-bad-input-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'a-file');
  writeFileSync(file, 'text\n');
  const notJson = join(dir, 'not.json');
  writeFileSync(notJson, 'not json\n{');
  const wrongShape = join(dir, 'wrong-shape.json');
  writeFileSync(wrongShape, JSON.stringify({ tenants: [] }));
  // two certificates with their keys (the local CA and one it signs): crossed, a key is not its certificate's
  const ca = ensureCa(join(dir, 'ca'));
  const own = issueServerCert(ca, ['localhost']);
  const [cert, key, otherKey] = ['cert', 'key', 'other-key'].map((n) => join(dir, `${n}.pem`)) as [
    string,
    string,
    string,
  ];
  writeFileSync(cert, own.cert);
  writeFileSync(key, own.key);
  writeFileSync(otherKey, ca.key);
  const badScenarios = join(dir, 'scenarios');
  mkdirSync(badScenarios);
  const broken = { name: 'broken', description: 'x', latency: [{ fixedMs: 'slow' }] };
  writeFileSync(join(badScenarios, 'broken.json'), JSON.stringify(broken));
  const damagedData = join(dir, 'data');
  mkdirSync(damagedData);
  writeFileSync(join(damagedData, 'default.json'), '{"meta": {"schemaVersion": 1, "seed": 4');
  const proc = existsSync('/proc/self'); // Linux: mkdir under /proc answers ENOENT, where a recursive mkdir spins

  const cases: Array<{ args: string[]; flag: string; value?: string; why: RegExp; skip?: boolean }> = [
    { args: ['--data', file], flag: '--data', why: /is a file, not a directory/ },
    { args: ['--data', join(file, 'sub')], flag: '--data', why: /a-file is a file, not a directory/ },
    { args: ['--data', '/proc/portal-mock-nope'], flag: '--data', why: /cannot create it/, skip: !proc },
    { args: ['--data', '/proc'], flag: '--data', why: /cannot write in it/, skip: !proc },
    { args: ['--data', damagedData], flag: '--data', why: /default\.json: .*move it away or delete it/ },
    {
      args: ['--scenarios', badScenarios],
      flag: '--scenarios',
      why: /broken\.json: at \/latency\/0\/fixedMs: Expected/,
    },
    { args: ['--fixtures', join(dir, 'missing.json')], flag: '--fixtures', why: /does not exist/ },
    { args: ['--fixtures', notJson], flag: '--fixtures', why: /not JSON/ },
    { args: ['--fixtures', wrongShape], flag: '--fixtures', why: /at \/tenants: Expected array length/ },
    { args: ['--tls-cert', join(dir, 'missing.pem'), '--tls-key', key], flag: '--tls-cert', why: /does not exist/ },
    { args: ['--tls-cert', file, '--tls-key', key], flag: '--tls-cert', why: /not a PEM certificate/ },
    { args: ['--tls-cert', cert, '--tls-key', file], flag: '--tls-key', why: /not a PEM private key/ },
    { args: ['--tls-cert', cert, '--tls-key', otherKey], flag: '--tls-key', why: /not the private key of the cert/ },
    { args: ['--port-file', join(file, 'port')], flag: '--port-file', why: /a-file is a file, not a directory/ },
    { args: ['--port-file', join(dir, 'missing', 'port')], flag: '--port-file', why: /missing: does not exist/ },
    { args: ['--sandbox-idle-ttl', '5x'], flag: '--sandbox-idle-ttl', why: /a whole number and a unit.*e\.g\. 500ms/ },
    { args: ['--port', '-1'], flag: '--port', why: /a whole number from 0 to 65535/ },
    { args: ['--port', '70000'], flag: '--port', why: /a whole number from 0 to 65535/ },
    { args: ['--port', 'abc'], flag: '--port', why: /a whole number from 0 to 65535/ },
    { args: ['--log-level', 'loud'], flag: '--log-level', why: /one of fatal, error, warn, info, debug/ },
    { args: ['--record', file], flag: '--record', why: /is a file, not a directory/ },
    { args: ['--scenarios', join(dir, 'missing')], flag: '--scenarios', why: /does not exist/ },
    { args: ['--https', '--ca-dir', file], flag: '--ca-dir', why: /is a file, not a directory/ },
    { args: ['--host', 'no-such-host.invalid'], flag: '--host', why: /cannot resolve it/ },
    { args: ['--data'], flag: '--data', value: '', why: /needs a value/ },
  ];
  for (const c of cases) {
    const skip = c.skip ? 'no /proc here' : false;
    t.test(c.args.join(' '), { skip }, async (t) => {
      const r = await runToFailure([...c.args]);
      const value = c.value ?? c.args[c.args.indexOf(c.flag) + 1]!;
      t.notOk(r.listened, 'refused before listening');
      t.equal(r.code, 2, `exit 2 (signal ${r.signal}; stderr ${r.stderr.slice(0, 400)})`);
      t.equal(r.stderr.trim().split('\n').length, 1, 'one line');
      t.ok(r.stderr.startsWith(`portal-mock: ${c.flag}`), `the flag first: ${r.stderr}`);
      t.ok(r.stderr.includes(value), 'the value named');
      t.match(r.stderr, c.why, 'what is wrong');
      t.notMatch(r.stderr, /^\s+at /m, 'no stack frames');
    });
  }
});

/**
 * Starts the CLI expecting it to refuse: its exit code and stderr once it exits. One that listens (the log line) is
 * stopped and says so; one that does neither (as --data /proc/x spun) is killed after a limit no start comes near.
 */
type Refusal = { code: number | null; signal: string | null; stderr: string; listened: boolean };
function runToFailure(args: string[]): Promise<Refusal> {
  const base = [server, '--port', '0', '--host', '127.0.0.1', '--no-banner', '--log-level', 'info'];
  const child = spawn(process.execPath, [...base, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let listened = false;
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  child.stdout.on('data', (c: Buffer) => {
    if (!listened && c.toString().includes('Server listening')) {
      listened = true;
      child.kill('SIGKILL');
    }
  });
  const limit = setTimeout(() => child.kill('SIGKILL'), 120_000);
  return new Promise((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(limit);
      resolve({ code, signal, stderr, listened });
    }),
  );
}
