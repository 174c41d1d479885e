// A log cut short at a line boundary (issue 46, finding 5): NAME.mark holds the last acknowledged line, so a log that
// ends before it stops start-up with exit 2 naming the file and the missing lines; a torn last line still warns and
// goes on; a sandbox keeps its createdAt over a restart (finding 13). Real processes, real files (docs/store.md).
// Needs `npm run build` (dist/portal-mock.mjs).
import t, { type Test } from 'tap';
import { appendFileSync, readFileSync, rmSync, statSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { accounts, build } from '../helper.js';
import { httpSignIn, startedFor, startFails, type Child } from '../support/process.js';
import { tempDir } from '../support/temp-dir.js';

t.setTimeout(600_000);

const now = '2026-03-02T09:00:00.000Z';
const startLimitMs = 120_000;

/** The CLI, killed when the test ends. */
const started = (t: Test, args: string[]) => startedFor(t, args, startLimitMs);

/** Sandbox `bug-7` given a scenario and 10 notifications, all acknowledged, then SIGKILL. */
async function tenWrites(t: Test, args: string[]): Promise<void> {
  const c = await started(t, args);
  const put = await fetch(`${c.base}/__admin/scenario?sandbox=bug-7`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'flaky' }),
  });
  t.equal(put.status, 200, 'scenario set');
  for (let i = 0; i < 10; i++) {
    const res = await fetch(`${c.base}/__admin/notifications?sandbox=bug-7`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: accounts.admin.email, title: `n${i}` }),
    });
    t.equal(res.status, 200, `notification ${i} acknowledged`);
  }
  c.proc.kill('SIGKILL');
  await c.exited;
}

const linesOf = (log: string) => readFileSync(log, 'utf8').split('\n').slice(0, -1);

t.test('a log truncated to 0 bytes stops start-up with exit 2 naming the file and the lost lines', async (t) => {
  const dir = tempDir(t, 'pm-trunc0-');
  const args = ['--data', dir, '--users', '20', '--now', now];
  await tenWrites(t, args);
  const log = join(dir, 'bug-7.log');
  const last = (JSON.parse(linesOf(log).at(-1)!) as { n: number }).n;
  t.ok(last >= 11, `${last} lines acknowledged`);
  truncateSync(log, 0);
  const refused = await startFails(args, startLimitMs);
  t.equal(refused.code, 2);
  t.match(refused.out, new RegExp(`bug-7\\.log: lines 1 to ${last} are missing`));
  t.match(refused.out, /bug-7\.mark says line \d+ was acknowledged/);
  t.equal(statSync(log).size, 0, 'the file is left as it was');
});

t.test('a log cut in half at a line boundary stops start-up; a torn last line still warns and goes on', async (t) => {
  const dir = tempDir(t, 'pm-trunc-half-');
  const args = ['--data', dir, '--users', '20', '--now', now];
  await tenWrites(t, args);
  const log = join(dir, 'bug-7.log');
  const lines = linesOf(log);
  const last = (JSON.parse(lines.at(-1)!) as { n: number }).n;
  const half = Math.floor(lines.length / 2);
  const kept = lines.slice(0, half);
  const keptBytes = Buffer.byteLength(kept.map((l) => `${l}\n`).join(''));
  const lastKept = (JSON.parse(kept.at(-1)!) as { n: number }).n;
  const whole = readFileSync(log);

  truncateSync(log, keptBytes);
  const refused = await startFails(args, startLimitMs);
  t.equal(refused.code, 2);
  t.match(refused.out, new RegExp(`bug-7\\.log: lines ${lastKept + 1} to ${last} are missing`));

  // cut inside a line: the part left looks like a torn last line, but the mark says later lines were acknowledged
  truncateSync(log, keptBytes + 10);
  const torn = await startFails(args, startLimitMs);
  t.equal(torn.code, 2, 'a torn line does not hide the lost ones');
  t.match(torn.out, new RegExp(`lines ${lastKept + 1} to ${last} are missing`));
  t.equal(statSync(log).size, keptBytes + 10, 'nothing cut from the file when refusing');

  // the whole log back, plus a torn line that was never acknowledged: a warning, and the sandbox as it was
  rmSync(log);
  appendFileSync(log, whole);
  appendFileSync(log, `{"n":${last + 1},"seq":1,"ops":[["i","x","notif`);
  const c = await started(t, [...args, '--log-level', 'warn']);
  t.match(c.out(), /bug-7\.log: dropped a torn last line/);
  const scenario = (await (await fetch(`${c.base}/__admin/scenario?sandbox=bug-7`)).json()) as { name: string };
  t.equal(scenario.name, 'flaky', "the sandbox's scenario is back");
});

t.test('a marked sandbox whose mark is deleted is refused; createdAt survives a restart', async (t) => {
  const dir = tempDir(t, 'pm-mark-');
  const args = ['--data', dir, '--users', '20', '--now', now];
  const first = await started(t, args);
  const session = await httpSignIn(first.base, accounts.admin.email, 'created', 'kept-1');
  t.ok(session['x-service-session-id'], 'a write in kept-1');
  const info = async (c: Child) =>
    (await (await fetch(`${c.base}/__admin/sandboxes/kept-1`)).json()) as { createdAt: string };
  const createdAt = (await info(first)).createdAt;
  first.proc.kill('SIGKILL');
  await first.exited;
  // a restart in a later millisecond at the least: the restart time would differ
  const again = await started(t, args);
  t.equal((await info(again)).createdAt, createdAt, 'createdAt is the original, not the restart time');
  again.proc.kill('SIGKILL');
  await again.exited;

  rmSync(join(dir, 'kept-1.mark'));
  const refused = await startFails(args, startLimitMs);
  t.equal(refused.code, 2);
  t.match(refused.out, /kept-1\.mark is missing: .*kept-1\.json says sandbox kept-1 has one/);
});

t.test('in process: a log missing only its last acknowledged line is refused, naming that line', async (t) => {
  // the smallest cut a mark catches: one whole line at the end, nothing torn. In process (build, real files), so that
  // a change to src/store/log.ts is tested without a new bundle
  const dir = tempDir(t, 'pm-trunc-last-');
  const options = { data: dir, users: 20, now };
  const writer = await build(t, options);
  for (let i = 0; i < 3; i++) {
    const res = await writer.inject({
      method: 'POST',
      url: '/__admin/notifications?sandbox=bug-7',
      payload: { email: accounts.admin.email, title: `n${i}` },
    });
    t.equal(res.statusCode, 200, `notification ${i} acknowledged`);
  }
  await writer.close();
  const log = join(dir, 'bug-7.log');
  const lines = linesOf(log);
  const last = (JSON.parse(lines.at(-1)!) as { n: number }).n;
  t.ok(last >= 3, `${last} lines acknowledged`);
  const whole = readFileSync(log);
  truncateSync(log, whole.length - Buffer.byteLength(`${lines.at(-1)}\n`));
  const refused = await build(t, options).then(
    () => null,
    (err: Error) => err,
  );
  t.ok(refused, 'start-up refuses');
  t.match(
    refused?.message,
    new RegExp(`bug-7\\.log: line ${last} is missing: .*bug-7\\.mark says line ${last} was acknowledged`),
  );
  t.equal(statSync(log).size, whole.length - Buffer.byteLength(`${lines.at(-1)}\n`), 'the file is left as it was');

  rmSync(log);
  appendFileSync(log, whole);
  const back = await build(t, options);
  const notes = await back.inject({ url: `/__admin/outbox?sandbox=bug-7` });
  t.equal(notes.statusCode, 200, 'the whole log starts');
});
