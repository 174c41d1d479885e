// --data keeps everything acknowledged, through real processes and real files (docs/store.md): a log that lost a
// line or went missing stops start-up (exit 2) naming the file and what is missing; what admin calls set on a
// sandbox (its existence, scenario, clock, upstream) and the recording survive SIGKILL and a clean stop.
// Needs `npm run build` (dist/portal-mock.mjs).
import t, { type Test } from 'tap';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { accounts } from '../helper.js';
import { httpSignIn, startedFor, startFails, type Child } from '../support/process.js';
import { tempDir } from '../support/temp-dir.js';

// a dozen starts of the CLI, each seeding its world: minutes on a busy machine, past the runner's default limit
t.setTimeout(900_000);

const now = '2026-03-02T09:00:00.000Z';
const startLimitMs = 120_000;

/** The CLI, killed when the test ends. */
const started = (t: Test, args: string[]) => startedFor(t, args, startLimitMs);

async function stop(c: Child, signal: NodeJS.Signals): Promise<number | null> {
  c.proc.kill(signal);
  return (await c.exited).code;
}

async function call(c: Child, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const json: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
  const payload = body === undefined ? null : JSON.stringify(body);
  const res = await fetch(c.base + path, { method, headers: { ...headers, ...json }, body: payload });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as any) : null };
}
const get = async (c: Child, path: string) => (await call(c, 'GET', path)).body;
const sandboxHeader = (name: string) => ({ 'x-mock-sandbox': name });

async function postIdea(c: Child, session: Record<string, string>, title: string): Promise<number> {
  return (await call(c, 'POST', '/idea/edit', { title, description: 'd', idea_purpose_id: 1 }, session)).status;
}

/** Three acknowledged writes in the default sandbox, then SIGKILL: the log has a first, a middle and a last line. */
async function threeWrites(t: Test, args: string[]): Promise<void> {
  const c = await started(t, args);
  const session = await httpSignIn(c.base, accounts.admin.email, 'durability');
  for (const title of ['one', 'two', 'three']) t.equal(await postIdea(c, session, title), 200, `${title} acknowledged`);
  await stop(c, 'SIGKILL');
}

t.test('a log that lost a middle line stops start-up with exit 2 naming the file and the missing line', async (t) => {
  const dir = tempDir(t, 'pm-gap-');
  const args = ['--data', dir, '--users', '20', '--now', now];
  await threeWrites(t, args);
  const log = join(dir, 'default.log');
  const lines = readFileSync(log, 'utf8').split('\n');
  t.ok(lines.length > 4, `${lines.length - 1} lines in the log`);
  const gone = (JSON.parse(lines[1]!) as { n: number }).n;
  lines.splice(1, 1);
  const damaged = lines.join('\n');
  writeFileSync(log, damaged);
  const refused = await startFails(args, startLimitMs);
  t.equal(refused.code, 2);
  t.match(refused.out, new RegExp(`default\\.log: line ${gone} is missing`));
  t.match(refused.out, /acknowledged writes are lost/);
  t.equal(readFileSync(log, 'utf8'), damaged, 'the file is left as it was');
});

t.test('a snapshot whose log is gone stops start-up with exit 2, also for files written before settings', async (t) => {
  const dir = tempDir(t, 'pm-nolog-');
  const args = ['--data', dir, '--users', '20', '--now', now];
  await threeWrites(t, args);
  // as versions before this one wrote it: no settings in the snapshot; such a directory still loads
  const snapshot = join(dir, 'default.json');
  const doc = JSON.parse(readFileSync(snapshot, 'utf8')) as { upTo: number; settings?: unknown };
  delete doc.settings;
  writeFileSync(snapshot, JSON.stringify(doc));
  const c = await started(t, args);
  t.equal((await get(c, '/__admin/scenario')).name, 'default', 'an earlier snapshot loads with the start settings');
  await stop(c, 'SIGKILL');

  rmSync(join(dir, 'default.log'));
  const refused = await startFails(args, startLimitMs);
  t.equal(refused.code, 2);
  const upTo = doc.upTo;
  t.match(
    refused.out,
    new RegExp(
      `default\\.log is missing: .*default\\.json holds the changes up to line ${upTo}, ` +
        `so the writes from line ${upTo + 1} on are lost`,
    ),
  );
  t.notOk(existsSync(join(dir, 'default.log')), 'nothing was made up in its place');
});

t.test(
  'scenario, clocks, upstream and recording survive SIGKILL; after reset and SIGKILL, the start ones',
  async (t) => {
    const dir = tempDir(t, 'pm-settings-');
    const recordDir = tempDir(t, 'pm-recorded-');
    const upstream = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ upstream: req.url }));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    t.teardown(() => {
      upstream.close();
    });
    const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    const args = ['--data', dir, '--users', '20', '--now', now];
    const frozen = { mode: 'frozen', at: '2026-05-01T12:00:00.000Z' };
    const shifted = { mode: 'offset', offsetMs: 86_400_000 };
    const recording = { action: 'start', dir: recordDir, name: 'recorded-durability' };

    let c = await started(t, args);
    t.equal((await call(c, 'PUT', '/__admin/scenario?sandbox=suite-a', { name: 'no-rights' })).status, 200);
    t.equal((await call(c, 'PUT', '/__admin/clock?sandbox=suite-a', { freeze: frozen.at })).status, 200);
    t.equal((await call(c, 'PUT', '/__admin/clock?sandbox=suite-o', { offsetMs: shifted.offsetMs })).status, 200);
    t.equal((await call(c, 'PUT', '/__admin/proxy?sandbox=suite-a', { url: upstreamUrl })).status, 200);
    t.equal((await call(c, 'POST', '/__admin/recording', recording)).status, 200);
    t.same(
      await call(c, 'GET', '/durability/first', undefined, sandboxHeader('suite-a')),
      { status: 200, body: { upstream: '/durability/first' } },
      'forwarded to the upstream and recorded',
    );
    await stop(c, 'SIGKILL');

    c = await started(t, args);
    t.match(await get(c, '/__admin/scenario?sandbox=suite-a'), { sandbox: 'suite-a', name: 'no-rights' });
    t.same((await get(c, '/__admin/clock?sandbox=suite-a')).state, frozen);
    t.same((await get(c, '/__admin/clock?sandbox=suite-o')).state, shifted);
    t.match(await get(c, '/__admin/proxy?sandbox=suite-a'), { url: upstreamUrl, source: 'sandbox' });
    t.match(await get(c, '/__admin/recording'), {
      recording: true,
      dir: recordDir,
      scenario: recording.name,
      stubs: 1,
    });
    t.same(
      await call(c, 'GET', '/durability/second', undefined, sandboxHeader('suite-a')),
      { status: 200, body: { upstream: '/durability/second' } },
      'the upstream acts again',
    );
    const file = readFileSync(join(recordDir, `${recording.name}.json`), 'utf8');
    const paths = (JSON.parse(file) as { stubs: Array<{ path: string }> }).stubs.map((s) => s.path);
    t.same(paths, ['/durability/first', '/durability/second'], 'the recording goes on in its file');

    t.equal((await call(c, 'POST', '/__admin/reset?sandbox=suite-a')).status, 200);
    t.equal((await call(c, 'POST', '/__admin/recording', { action: 'stop' })).status, 200);
    await stop(c, 'SIGKILL');

    // what was not set on a sandbox (or was reset) follows the flags of the start that brings it back
    c = await started(t, [...args, '--scenario', 'wallet-disabled']);
    t.match(
      await get(c, '/__admin/scenario?sandbox=suite-a'),
      { name: 'wallet-disabled' },
      'reset: the start scenario',
    );
    t.same(
      (await get(c, '/__admin/clock?sandbox=suite-a')).state,
      { mode: 'frozen', at: now },
      'the start clock (--now)',
    );
    t.match(
      await get(c, '/__admin/proxy?sandbox=suite-a'),
      { url: upstreamUrl, source: 'sandbox' },
      'a reset keeps the upstream (docs/proxy.md)',
    );
    t.match(await get(c, '/__admin/recording'), { recording: false }, 'the stopped recording stays stopped');
    t.same((await get(c, '/__admin/clock?sandbox=suite-o')).state, shifted, 'other sandboxes keep theirs');
    t.match(await get(c, '/__admin/scenario?sandbox=suite-o'), { name: 'wallet-disabled' }, 'the rest from the flags');
    await stop(c, 'SIGTERM');
  },
);

t.test('after a clean stop: a sandbox given only a scenario is back with its stubs; no activation twice', async (t) => {
  const dir = tempDir(t, 'pm-scenario-');
  const args = ['--data', dir, '--users', '20', '--now', now];
  let c = await started(t, args);
  // suite-b: made by a request, then only given a scenario that stubs every operation with a 500
  t.equal((await call(c, 'GET', '/user/profile', undefined, sandboxHeader('suite-b'))).status, 401);
  t.equal((await call(c, 'PUT', '/__admin/scenario?sandbox=suite-b', { name: 'server-errors' })).status, 200);
  // suite-e: new-employee empties the demo accounts' own records once; what they write afterwards stays
  t.equal((await call(c, 'PUT', '/__admin/scenario?sandbox=suite-e', { name: 'new-employee' })).status, 200);
  const session = await httpSignIn(c.base, accounts.admin.email, 'durability', 'suite-e');
  t.equal(await postIdea(c, session, 'after-activation'), 200);
  const before = (await get(c, '/__admin/state?sandbox=suite-e')).data;
  t.match(JSON.stringify(before), 'after-activation');
  t.equal(await stop(c, 'SIGTERM'), 0, 'a clean stop');

  c = await started(t, args);
  t.match(await get(c, '/__admin/sandboxes/suite-b?scope=local'), { name: 'suite-b', scenario: 'server-errors' });
  t.match(
    await call(c, 'GET', '/user/profile', undefined, sandboxHeader('suite-b')),
    { status: 500, body: { message: 'internal error (scenario server-errors)' } },
    'its stubs answer again',
  );
  t.match(await get(c, '/__admin/scenario?sandbox=suite-e'), { name: 'new-employee' });
  t.same((await get(c, '/__admin/state?sandbox=suite-e')).data, before, 'the same data: not activated again');
  await stop(c, 'SIGTERM');
});
