// The journal's filters (docs/admin.md): by request header, query parameter and body field in the matcher language,
// by fault, by finding, status=0 for a dropped connection, in the list, the count and the HAR form; an unknown or
// malformed filter is a 400 naming it.
import t from 'tap';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { accounts, build, signIn } from '../helper.js';
import { waitFor } from '../support/wait.js';

const dir = mkdtempSync(join(tmpdir(), 'pm-jf-'));
writeFileSync(
  join(dir, 'drop.json'),
  JSON.stringify({ name: 'drop', description: 'd', faults: [{ operations: ['mobileTenantInfo'], kind: 'reset' }] }),
);

t.test('journal filters by header, query, body field, fault, finding and status 0', async (t) => {
  const app = await build(t, { scenarios: [dir] });
  const s = await signIn(app);
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  await fetch(`${base}/__admin/requests`, { method: 'DELETE' });

  await fetch(`${base}/mobile/tenant-info?page=3&tag=a&tag=b`, {
    headers: { ...s.headers, 'x-trace': 'abc-123', 'x-evil': `${'a'.repeat(12_000)}b` },
  });
  const feedback = { type: 'user', id: accounts.noRights.userId, score: 5, text: 'hello world', meta: { n: [7] } };
  await fetch(`${base}/feedback/add`, {
    method: 'POST',
    headers: { ...s.headers, 'content-type': 'application/json' },
    body: JSON.stringify(feedback),
  });
  await fetch(`${base}/feedback/add`, {
    method: 'POST',
    headers: { ...s.headers, 'content-type': 'application/json' },
    body: JSON.stringify({ ...feedback, text: `${'a'.repeat(30_000)}b` }),
  });
  await t.rejects(
    fetch(`${base}/mobile/tenant-info`, { headers: { ...s.headers, 'x-mock-scenario': 'drop' } }),
    'the reset drops the connection',
  );
  await fetch(`${base}/user-list-cache/set-user-list`, {
    method: 'POST',
    headers: { ...s.headers, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'key=k1',
  });

  const count = async (query: string) => {
    const res = await fetch(`${base}/__admin/requests/count?${query}`);
    t.equal(res.status, 200, query);
    return ((await res.json()) as { count: number }).count;
  };
  t.equal(await waitFor(async () => (await count('')) === 5), true, 'the five requests are journaled');

  const q = (key: string, value: string) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`;
  const cases: Array<[string, number]> = [
    [q('header.x-trace', 'abc-123'), 1],
    [q('header.X-Trace', 'abc-12'), 0],
    [q('header.x-trace:regex', '^abc-\\d+$'), 1],
    [q('header.x-trace:contains', 'c-1'), 1],
    [q('header.x-trace:present', 'true'), 1],
    [q('header.x-trace:present', 'false'), 4],
    [q('query.page', '3'), 1],
    [q('query.tag', 'b'), 1],
    [q('query.page:present', 'true'), 1],
    [q('header.constructor:present', 'true'), 0],
    [q('body.text', 'hello world'), 1],
    [q('body.text:regex', '^hello'), 1],
    // the 30k body is kept cut (8 KiB): its fields are not there, its text is
    [q('body.score', '5'), 1],
    [q('body.meta.n.0', '7'), 1],
    [q('body:contains', 'hello'), 1],
    [q('body:contains', 'aaaa'), 1],
    // (a+)+$ against a…ab: catastrophic for a backtracking engine, linear in RE2
    [q('header.x-evil:regex', '(a+)+$'), 0],
    [q('header.x-evil:regex', 'a+b$'), 1],
    [q('body:regex', '(a+)+$'), 0],
    [`${q('body.score', '5')}&${q('body.text:contains', 'world')}`, 1],
    ['status=0', 1],
    ['fault=reset', 1],
    ['fault=truncated', 0],
    ['finding=set-user-list-not-json', 1],
    ['finding=date-range-time-of-day', 0],
  ];
  for (const [query, expected] of cases) t.equal(await count(query), expected, query);

  type Entry = { status: number; fault?: string; path: string };
  const [dropped] = (await (await fetch(`${base}/__admin/requests?status=0`)).json()) as Entry[];
  t.match(dropped, { status: 0, fault: 'reset', path: '/mobile/tenant-info' });
  const har = (await (await fetch(`${base}/__admin/requests?format=har&${q('query.page', '3')}`)).json()) as {
    log: { entries: Array<{ request: { url: string } }> };
  };
  t.equal(har.log.entries.length, 1, 'the HAR form takes the same filters');
  t.match(har.log.entries[0]!.request.url, /page=3/);
});

t.test('an unknown or malformed filter is a 400 naming it', async (t) => {
  const app = await build(t);
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const refused = async (url: string, name: RegExp) => {
    const res = await fetch(`${base}${url}`);
    t.equal(res.status, 400, url);
    const body = (await res.json()) as { message: string; details?: Array<{ field: string }> };
    t.match(body.message, name, url);
    return body;
  };
  const unknown = await refused('/__admin/requests/count?colour=red', /unknown filter "colour"/);
  t.match(unknown.details, [{ field: 'query.colour' }]);
  await refused('/__admin/requests?stauts=0', /unknown filter "stauts"/);
  await refused('/__admin/requests?format=har&headers.x=1', /unknown filter "headers\.x"/);
  await refused(`/__admin/requests/count?${encodeURIComponent('header.x:regex')}=(`, /header\.x:regex.*RE2/);
  await refused(`/__admin/requests?${encodeURIComponent('query.p:present')}=maybe`, /query\.p:present.*true or false/);
  await refused('/__admin/requests/count?query.a=1&query.a=2', /query\.a: expected one value/);
  await refused('/__admin/requests/count?fault=boom', /fault/);
  await refused('/__admin/requests/count?status=600', /status/);
  const ok = await fetch(`${base}/__admin/requests/count?status=0`);
  t.equal(ok.status, 200, 'status=0 is a filter, not an error');
  t.same(await ok.json(), { count: 0 });
});
