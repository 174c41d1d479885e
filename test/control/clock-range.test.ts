// The sandbox clock only ever shows a time within 1970..9899 (issue 46, finding 1): a change past it is a 400 naming
// the field, checked before anything is stored, so the clock, the sandbox and everything that reads the clock stay as
// they were; a clock an older version kept out of range in a sandbox's files is repaired at start with one warning.
import t from 'tap';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { accounts, build, httpCaller } from '../helper.js';
import { httpSignIn, start } from '../support/process.js';

/** One call over a real socket (test/helper.ts's httpCaller, with the base first) */
const call = (base: string, method: string, path: string, body?: unknown) => httpCaller(base)(method, path, body);

t.test(
  'a clock change past the range is a 400 naming the field; the clock and every reader stay as they were',
  async (t) => {
    const app = await build(t, { users: 10 });
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    const set = await call(base, 'PUT', '/__admin/clock?sandbox=clocked', { freeze: '2026-05-01T12:00:00.000Z' });
    t.equal(set.status, 200);
    const before = await call(base, 'GET', '/__admin/clock?sandbox=clocked');

    const refused: Array<[unknown, string]> = [
      [{ offsetMs: 1e20 }, 'body.offsetMs'],
      [{ advanceMs: 1e300 }, 'body.advanceMs'],
      [{ offsetMs: 8640000000000001 }, 'body.offsetMs'],
      [{ offsetMs: -1e15 }, 'body.offsetMs'],
      [{ advanceMs: 300_000_000_000_000 }, 'body.advanceMs'],
      [{ advanceMs: 249_500_000_000_000 }, 'body.advanceMs'], // within the schema bound, past 9899 from 2026
      [{ advanceMs: -1_800_000_000_000 }, 'body.advanceMs'], // before 1970
      [{ freeze: '1969-12-31T23:59:59.999Z' }, 'body.freeze'],
    ];
    for (const [body, field] of refused) {
      const res = await call(base, 'PUT', '/__admin/clock?sandbox=clocked', body);
      t.equal(res.status, 400, `${JSON.stringify(body)}: 400`);
      t.match(JSON.stringify(res.body), field.replace('body.', ''), `${JSON.stringify(body)}: names ${field}`);
      t.same(res.body.statusCode, 400, 'the error body');
      t.same((await call(base, 'GET', '/__admin/clock?sandbox=clocked')).body.state, before.body.state, 'clock kept');
    }
    // what read the clock and answered 500 on fe4ba7c
    t.equal((await call(base, 'GET', '/__admin/sandboxes')).status, 200, 'the sandbox listing');
    t.equal((await call(base, 'GET', '/__admin/requests?sandbox=clocked')).status, 200, 'the journal');
    t.equal((await call(base, 'GET', '/__admin/state?sandbox=clocked')).status, 200, 'the records');
    // the sign-in's /mobile/auth, then a session call
    const headers = await httpSignIn(base, accounts.admin.email, 'clock-range', 'clocked');
    t.equal((await fetch(`${base}/notifications/pushes`, { headers })).status, 200, 'a portal call');

    // the range's edges are accepted, one millisecond past them is not
    const last = await call(base, 'PUT', '/__admin/clock?sandbox=clocked', { freeze: '9899-12-31T23:59:59.999Z' });
    t.equal(last.status, 200, 'the last instant of 9899');
    t.equal(last.body.now, '9899-12-31T23:59:59.999Z');
    // what the mock dates ahead of the clock (a session's expiry) still has a four-digit year: the export imports back
    await httpSignIn(base, accounts.admin.email, 'at-the-end', 'clocked');
    const exported = await call(base, 'GET', '/__admin/state?sandbox=clocked');
    t.equal((await call(base, 'PUT', '/__admin/state?sandbox=reimported', exported.body)).status, 200, 'imports back');
    const past = await call(base, 'PUT', '/__admin/clock?sandbox=clocked', { advanceMs: 1 });
    t.equal(past.status, 400, 'one ms past it');
    t.match(past.body.details, [{ field: 'body.advanceMs' }]);
    t.equal(
      (await call(base, 'PUT', '/__admin/clock?sandbox=clocked', { freeze: '1970-01-01T00:00:00Z' })).status,
      200,
    );
    t.equal((await call(base, 'PUT', '/__admin/clock?sandbox=clocked', { advanceMs: -1 })).status, 400);
    t.equal((await call(base, 'GET', '/__admin/sandboxes')).status, 200);
  },
);

t.test('a refused clock change says the date it would show, never a bound in milliseconds', async (t) => {
  const app = await build(t, { users: 10 });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  await call(base, 'PUT', '/__admin/clock?sandbox=dated', { freeze: '9899-12-31T00:00:00.000Z' });
  const cases: Array<[unknown, RegExp]> = [
    [{ advanceMs: 86_400_001 }, /^advanceMs: the frozen clock would show 9900-01-01T00:00:00\.001Z, outside 1970-/],
    [
      { offsetMs: -1e15 },
      /^offsetMs: it would show -0296\d\d-\d\d-\d\dT.*, outside 1970-01-01T00:00:00\.000Z to 9899-/,
    ],
    [{ offsetMs: 1e20 }, /^offsetMs: it would show a time after \+275760-09-13T00:00:00\.000Z, outside 1970-/],
    [{ advanceMs: 1e300 }, /^advanceMs: the frozen clock would show a time after \+275760-09-13/],
  ];
  for (const [body, message] of cases) {
    const res = await call(base, 'PUT', '/__admin/clock?sandbox=dated', body);
    t.equal(res.status, 400, JSON.stringify(body));
    t.match(res.body.message, message, `${JSON.stringify(body)}: the date`);
    t.notMatch(res.body.message, /\d{9,}/, 'no millisecond count');
  }
  t.equal((await call(base, 'GET', '/__admin/clock?sandbox=dated')).body.now, '9899-12-31T00:00:00.000Z', 'kept');
});

t.test('a refused clock makes no sandbox; a refused snapshot clock changes nothing', async (t) => {
  const app = await build(t, { users: 10 });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const res = await call(base, 'PUT', '/__admin/clock?sandbox=never-made', { offsetMs: 8640000000000001 });
  t.equal(res.status, 400);
  t.equal((await call(base, 'GET', '/__admin/sandboxes/never-made')).status, 404, 'not made by a refused clock');
  const within = await call(base, 'PUT', '/__admin/clock?sandbox=never-made', { advanceMs: -1e14 });
  t.equal(within.status, 400, 'within the schema bound, before 1970');
  t.equal((await call(base, 'GET', '/__admin/sandboxes/never-made')).status, 404);

  const exported = await call(base, 'GET', '/__admin/state');
  for (const clock of [
    { mode: 'offset', offsetMs: 1e20 },
    { mode: 'offset', offsetMs: -1e14 },
  ]) {
    const put = await call(base, 'PUT', '/__admin/state', { ...exported.body, clock });
    t.ok(put.status === 400 || put.status === 422, `snapshot clock ${clock.offsetMs}: ${put.status}`);
    t.match(JSON.stringify(put.body), 'clock');
    t.same((await call(base, 'GET', '/__admin/state')).body, exported.body, 'the sandbox is as it was');
  }
});

t.test('--data: a clock out of range in a sandbox log is set back to the start clock with one warning', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pm-clock-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const args = ['--data', dir, '--users', '20', '--now', '2026-03-02T09:00:00Z'];
  const first = await start(args);
  t.equal((await call(first.base, 'PUT', '/__admin/sandboxes/poisoned', {})).status, 201);
  t.equal((await call(first.base, 'PUT', '/__admin/clock?sandbox=poisoned', { advanceMs: 60_000 })).status, 200);
  first.proc.kill('SIGTERM');
  await first.exited;
  // what fe4ba7c wrote after answering 500 to {"offsetMs": 1e20}
  const log = join(dir, 'poisoned.log');
  const last = JSON.parse(readFileSync(log, 'utf8').trim().split('\n').pop()!) as { n: number; seq: number };
  appendFileSync(
    log,
    `${JSON.stringify({ n: last.n + 1, seq: last.seq, ops: [], settings: { clock: { mode: 'offset', offsetMs: 1e20 } } })}\n`,
  );

  const again = await start([...args, '--log-level', 'warn']);
  t.teardown(() => {
    again.proc.kill('SIGKILL');
  });
  const warnings = again.out().match(/poisoned\.log: sandbox poisoned had a clock the mock cannot show/g) ?? [];
  t.equal(warnings.length, 1, 'one warning line naming the file and the sandbox');
  t.equal((await call(again.base, 'GET', '/__admin/sandboxes')).status, 200, 'the listing answers');
  const clock = await call(again.base, 'GET', '/__admin/clock?sandbox=poisoned');
  t.same(clock.body, { now: '2026-03-02T09:00:00.000Z', state: { mode: 'frozen', at: '2026-03-02T09:00:00.000Z' } });
  again.proc.kill('SIGTERM');
  await again.exited;

  const third = await start([...args, '--log-level', 'warn']);
  t.teardown(() => {
    third.proc.kill('SIGKILL');
  });
  t.notMatch(third.out(), /clock the mock cannot show/, 'the repair was written: the next start says nothing');
  t.same((await call(third.base, 'GET', '/__admin/clock?sandbox=poisoned')).body, clock.body);
  const h = await httpSignIn(third.base, accounts.admin.email, 'after-repair', 'poisoned');
  t.equal((await fetch(`${third.base}/notifications/pushes`, { headers: h })).status, 200);
});

t.test('--now and a --state clock outside the range stop the start, naming them', async (t) => {
  for (const now of ['1969-12-31T23:59:59Z', '9900-01-01T00:00:00Z', '2026-12-31T23:59:60Z']) {
    await t.rejects(build(t, { users: 10, now }), /--now expects (an instant within 1970|an ISO 8601)/, `--now ${now}`);
  }
  const app = await build(t, { users: 10 });
  const exported = (await app.inject({ url: '/__admin/state' })).json();
  const dir = mkdtempSync(join(tmpdir(), 'pm-state-clock-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'state.json');
  writeFileSync(file, JSON.stringify({ ...exported, clock: { mode: 'frozen', at: '1969-12-31T23:59:59.000Z' } }));
  await t.rejects(build(t, { users: 10, state: file }), /--state .*state\.json: its clock cannot be kept/);
});
