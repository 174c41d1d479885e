// Bad start-up input, as a user meets it: the built CLI in its own process, one process per case.
import t from 'tap';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureCa, issueServerCert } from '../../src/tls/ca.js';
import { withoutTapHooks } from '../support/process.js';

const server = new URL('../../dist/portal-mock.mjs', import.meta.url).pathname;
// one process per case, a few at a time: on a busy 2-core machine each start takes seconds
t.setTimeout(20 * 60_000);

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
  const refusals = startAll(cases, 4, (c) => (c.skip ? null : runToFailure([...c.args])));
  for (const [i, c] of cases.entries()) {
    const skip = c.skip ? 'no /proc here' : false;
    t.test(c.args.join(' '), { skip }, async (t) => {
      const r = (await refusals[i]) as Refusal;
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
 * stopped and says so; one that does neither (as --data /proc/x spun) is killed after 300 s (with two suites at once
 * on 2 cores, a refusal took over 120 s).
 */
type Refusal = { code: number | null; signal: string | null; stderr: string; listened: boolean };
function runToFailure(args: string[]): Promise<Refusal> {
  const base = [server, '--port', '0', '--host', '127.0.0.1', '--no-banner', '--log-level', 'info'];
  const child = spawn(...withoutTapHooks(process.execPath, [...base, ...args]), { stdio: ['ignore', 'pipe', 'pipe'] });
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
  const limit = setTimeout(() => child.kill('SIGKILL'), 300_000);
  return new Promise((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(limit);
      resolve({ code, signal, stderr, listened });
    }),
  );
}

/** Runs `run` over the items, at most `size` at a time; the answers in the items' order. */
function startAll<T, R>(items: T[], size: number, run: (item: T) => Promise<R> | null): Array<Promise<R | null>> {
  const waiting: Array<() => void> = [];
  let free = size;
  const slot = async () => {
    if (free > 0) free--;
    else await new Promise<void>((resolve) => waiting.push(resolve));
  };
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else free++;
  };
  return items.map(async (item) => {
    await slot();
    try {
      return await run(item);
    } finally {
      release();
    }
  });
}
