// Scenario files are reloaded when they change, as the README says: the built CLI in its own process, a --scenarios
// directory, real HTTP. Every wait is on what the server answers or prints, with a generous limit against a hang.
import t from 'tap';
import { mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { start } from '../support/process.js';
import { waitFor } from '../support/wait.js';

t.setTimeout(10 * 60_000);
const limitMs = 120_000; // a guard against a hang, not a speed check

const scenario = (version: string, status: unknown) => ({
  name: 'bug-1234',
  description: `bug 1234, ${version}`,
  stubs: [{ operationId: 'mobileOauthList', status, body: { version } }],
});

/** Within limitMs, or the output so far as the failure. */
const within = <T>(work: Promise<T>, what: string, out: () => string) =>
  Promise.race([
    work,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`${what} did not happen within ${limitMs} ms: ${out()}`)), limitMs).unref(),
    ),
  ]);

t.test('the CLI reloads a changed scenario file; a bad edit is logged and the last good version answers', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pm-reload-'));
  const file = join(dir, 'bug-1234.json');
  writeFileSync(file, JSON.stringify(scenario('v1', 418)));
  const c = await start([
    '--scenarios',
    dir,
    '--scenario',
    'bug-1234',
    '--log-level',
    'info',
    '--log-format',
    'json',
    '--no-banner',
  ]);
  t.teardown(() => {
    c.proc.kill('SIGKILL');
  });

  // the default sandbox runs it from the start; another is given it through the admin route
  const put = await fetch(`${c.base}/__admin/scenario?sandbox=tester-1`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bug-1234' }),
  });
  t.equal(put.status, 200, 'a sandbox is given the scenario');
  const answer = async (sandbox: string) => {
    const res = await fetch(`${c.base}/mobile/oauth-list`, { headers: { 'x-mock-sandbox': sandbox } });
    return { status: res.status, body: (await res.json()) as unknown };
  };
  const described = async (sandbox: string) =>
    ((await (await fetch(`${c.base}/__admin/scenario?sandbox=${sandbox}`)).json()) as { description: string })
      .description;
  for (const sandbox of ['default', 'tester-1']) {
    t.same(await answer(sandbox), { status: 418, body: { version: 'v1' } }, `${sandbox}: v1 answers`);
    t.equal(await described(sandbox), 'bug 1234, v1');
  }

  // v2 as editors save: a new file renamed over the old one
  const tmp = join(dir, '.bug-1234.json.tmp');
  writeFileSync(tmp, JSON.stringify(scenario('v2', 503)));
  renameSync(tmp, file);
  for (const sandbox of ['default', 'tester-1']) {
    const v2 = await waitFor(async () => (await answer(sandbox)).status === 503, { everyMs: 100, limitMs });
    t.ok(v2, `${sandbox}: the next request is answered by v2`);
    t.same(await answer(sandbox), { status: 503, body: { version: 'v2' } }, `${sandbox}: v2's body too`);
    t.equal(await described(sandbox), 'bug 1234, v2', `${sandbox}: GET /__admin/scenario shows v2`);
  }
  await within(
    c.waitForOutput((out) => /"msg":"scenarios reloaded"/.test(out)),
    'the reload log line',
    c.out,
  );
  const reloaded = c
    .out()
    .split('\n')
    .find((l) => l.includes('"scenarios reloaded"'));
  t.match(JSON.parse(reloaded!), { level: 30, scenarios: ['bug-1234'] }, 'the log names the scenario that changed');

  // v3 is invalid, written in place: one error line names the file and the JSON path; v2 goes on answering
  writeFileSync(file, JSON.stringify(scenario('v3', 'teapot')));
  const failed = (out: string) =>
    out.split('\n').find((l) => l.includes('scenario reload failed') && l.includes('/stubs/0/status'));
  await within(
    c.waitForOutput((out) => failed(out) !== undefined),
    'the error line of the bad edit',
    c.out,
  );
  const line = JSON.parse(failed(c.out())!) as { level: number; msg: string };
  t.equal(line.level, 50, 'logged as an error');
  t.match(line.msg, `${file}: at /stubs/0/status`, 'it names the file and the JSON path');
  t.notOk(line.msg.includes('\n'), 'one line');
  for (const sandbox of ['default', 'tester-1']) {
    t.same(await answer(sandbox), { status: 503, body: { version: 'v2' } }, `${sandbox}: v2 still answers`);
    t.equal(await described(sandbox), 'bug 1234, v2', `${sandbox}: and is still the one shown`);
  }
  t.equal(c.proc.exitCode, null, 'the server runs on');
});
