// Stub matching on query parameters, headers and the JSON body (docs/scenarios.md, "Matching requests"), over a
// real socket: each matcher kind, the evaluation order (body stubs after auth), times, the journal's `stub`, a
// catastrophic regex, and bad matchers refused with their JSON path.
import t from 'tap';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { accounts, build, signIn } from '../helper.js';
import { ScenarioError, ScenarioRegistry } from '../../src/scenarios/registry.js';
import { buildApp } from '../../src/app.js';
import { waitFor } from '../support/wait.js';

const dirWith = (files: Record<string, unknown>) => {
  const dir = mkdtempSync(join(tmpdir(), 'pm-match-'));
  for (const [name, body] of Object.entries(files)) writeFileSync(join(dir, name), JSON.stringify(body));
  return dir;
};

const info = 'mobileTenantInfo';
const matching: Record<string, unknown> = {
  name: 'matching',
  description: 'stubs that match on query, headers and body',
  stubs: [
    { name: 'by-query', operationId: info, match: { query: { page: 3 } }, status: 418, body: { which: 'query' } },
    { operationId: info, match: { headers: { 'X-Client': { regex: '^ios-1[0-9]$' } } }, status: 419 },
    { operationId: info, match: { headers: { 'x-beta': { present: true } } }, status: 420 },
    { operationId: info, match: { query: { q: { contains: 'needle' } } }, status: 421 },
    {
      operationId: info,
      match: { query: { off: { present: false } }, headers: { 'x-want-absent': 'yes' } },
      status: 422,
    },
    { operationId: info, match: { query: { toString: { present: true } }, headers: { 'x-proto': '1' } }, status: 423 },
    {
      name: 'by-body',
      operationId: 'feedbackAdd',
      match: { body: { type: 'user', text: { contains: 'boom' } } },
      status: 503,
      body: { message: 'down' },
      times: 1,
    },
    { operationId: 'feedbackAdd', match: { body: { tags: ['a', { regex: '^b' }] } }, status: 409 },
    { operationId: 'feedbackAdd', match: { body: { text: { regex: '(a+)+$' } } }, status: 410 },
    { operationId: 'feedbackAdd', match: { body: { meta: { deep: { present: true } } } }, status: 411 },
  ],
};

t.test('stubs match on query, headers and body; body stubs answer after auth', async (t) => {
  const app = await build(t, { scenarios: [dirWith({ 'matching.json': matching })] });
  const s = await signIn(app);
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const scen = { 'x-mock-scenario': 'matching' };
  const get = (query: string, headers: Record<string, string> = {}) =>
    fetch(`${base}/mobile/tenant-info${query}`, { headers: { ...s.headers, ...scen, ...headers } });

  t.equal((await get('')).status, 200, 'no matcher fits: the mock answers');
  const byQuery = await get('?page=3');
  t.equal(byQuery.status, 418, 'query equality (a number in the file matches its text)');
  t.same(await byQuery.json(), { which: 'query' });
  t.equal((await get('?page=4')).status, 200, 'another value does not match');
  t.equal((await get('', { 'x-client': 'ios-17' })).status, 419, 'header regex, names in any case');
  t.equal((await get('', { 'x-client': 'ios-170' })).status, 200, 'regex not found');
  t.equal((await get('', { 'x-beta': '' })).status, 420, 'present: true');
  t.equal((await get('?q=haystack-needle-hay')).status, 421, 'contains');
  t.equal((await get('', { 'x-want-absent': 'yes' })).status, 422, 'present: false with the parameter absent');
  t.equal((await get('?off=1', { 'x-want-absent': 'yes' })).status, 200, 'present: false with it there');
  t.equal((await get('', { 'x-proto': '1' })).status, 200, 'own parameters only: toString is none');
  t.equal((await get('?toString=1', { 'x-proto': '1' })).status, 423, 'toString sent');

  const post = (body: unknown, headers: Record<string, string> = s.headers) =>
    fetch(`${base}/feedback/add`, {
      method: 'POST',
      headers: { ...headers, ...scen, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const feedback = { type: 'user', id: accounts.noRights.userId, score: 5 };
  t.equal((await post({ ...feedback, text: 'boom' }, {})).status, 401, 'no session: auth answers before body stubs');
  const stubbed = await post({ ...feedback, text: 'a boom here' });
  t.equal(stubbed.status, 503, 'body subset with contains');
  t.same(await stubbed.json(), { message: 'down' });
  t.equal((await post({ ...feedback, text: 'a boom here' })).status, 200, 'times: 1, then the handler answers');
  t.equal((await post({ ...feedback, text: 'x', tags: ['a', 'bc'] })).status, 409, 'arrays item by item, regex leaf');
  t.not((await post({ ...feedback, text: 'x', tags: ['a', 'bc', 'd'] })).status, 409, 'an array of another length');
  t.equal((await post({ ...feedback, text: 'x', meta: { deep: null } })).status, 411, 'nested present');
  t.not((await post({ ...feedback, text: 'x', meta: {} })).status, 411, 'nested field absent');
  const form = await fetch(`${base}/feedback/add`, {
    method: 'POST',
    headers: { ...s.headers, ...scen, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'type=user&text=boom',
  });
  t.not(form.status, 503, 'a body that is not JSON never matches a body matcher');

  // (a+)+$ against a…ab is the classic catastrophic backtracking case: RE2 answers it in linear time
  const evil = await post({ ...feedback, text: `${'a'.repeat(30_000)}b` });
  t.not(evil.status, 410, 'the catastrophic pattern does not match and the request goes on');
  t.equal((await post({ ...feedback, text: 'a'.repeat(30_000) })).status, 410, 'and it does match where it should');
  t.equal((await get('')).status, 200, 'the server still answers');

  type Entry = { status: number; stubbed: boolean; stub?: { index: number; name?: string } };
  const journal = async (query: string) =>
    (await (await fetch(`${base}/__admin/requests?limit=1&${query}`)).json()) as Entry[];
  const [queried] = await waitFor(() => journal('status=418'));
  t.match(queried, { stubbed: true, stub: { index: 0, name: 'by-query' } }, 'the journal names the stub');
  const [bodied] = await waitFor(() => journal('status=503'));
  t.match(bodied, { stubbed: true, stub: { index: 6, name: 'by-body' } });
  const [handled] = await journal('status=200&operationId=feedbackAdd');
  t.equal(handled!.stub, undefined, 'an answer of the mock names no stub');
});

t.test('bad matchers are refused with the file and the JSON path', async (t) => {
  const ops = new Set([info]);
  const stub = (extra: Record<string, unknown>) => ({
    'x.json': { name: 'x', description: 'd', stubs: [{ operationId: info, status: 500, ...extra }] },
  });
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    [
      'a regex that does not compile',
      stub({ match: { headers: { 'x-a': { regex: '(' } } } }),
      /x\.json: at \/stubs\/0\/match\/headers\/x-a\/regex: expected a valid RE2 pattern/,
    ],
    [
      'a look-ahead (RE2 has none)',
      stub({ match: { query: { q: { regex: '(?=a)' } } } }),
      /at \/stubs\/0\/match\/query\/q\/regex: expected a valid RE2 pattern/,
    ],
    [
      'an unknown matcher key',
      stub({ match: { query: { page: { regx: 'a' } } } }),
      /at \/stubs\/0\/match\/query\/page: unknown matcher key "regx"/,
    ],
    [
      'two operators in one matcher',
      stub({ match: { headers: { h: { regex: 'a', contains: 'b' } } } }),
      /at \/stubs\/0\/match\/headers\/h: expected exactly one of present, regex, contains/,
    ],
    [
      'a body leaf with a wrong operand',
      stub({ match: { body: { a: [{ regex: 5 }] } } }),
      /at \/stubs\/0\/match\/body\/a\/0\/regex: expected a string/,
    ],
    ['present that is not a boolean', stub({ match: { query: { p: { present: 'yes' } } } }), /\/p\/present: expected/],
    ['times 0', stub({ times: 0 }), /x\.json: at \/stubs\/0\/times/],
    ['an unknown match section', stub({ match: { cookies: {} } }), /x\.json: at \/stubs\/0\/match/],
  ];
  for (const [what, files, expected] of cases) {
    t.throws(() => new ScenarioRegistry([dirWith(files)], ops), { name: 'Error', message: expected }, what);
    try {
      new ScenarioRegistry([dirWith(files)], ops);
    } catch (err) {
      t.ok(err instanceof ScenarioError, `${what}: a ScenarioError`);
    }
  }
  // the same at start-up of a whole app: buildApp rejects, naming the path
  await t.rejects(
    buildApp({ scenarios: [dirWith(stub({ match: { headers: { 'x-a': { regex: 'a**' } } } }))] }),
    /at \/stubs\/0\/match\/headers\/x-a\/regex/,
  );
});
