// The bounds of regular-expression work (issue 45, findings 2 and 4; docs/scenarios.md, "Matching requests"), over
// a real socket: a pattern whose compiled program is too large is refused where it is defined (a stub, a journal
// filter), a regex reads a bounded text and a request a bounded amount of work (a stub: a non-match; a journal
// read: a 422 that says how to narrow it), and a body nested too deep for a matcher is a non-match, never a 500.
// Each abuse runs beside a probe in another sandbox whose answer must stay correct. No test looks at a clock.
import t from 'tap';
import type { AppOptions } from '../../src/app.js';
import { accounts, build, httpCaller, signIn, tenants } from '../helper.js';

type Teardown = { teardown(fn: () => unknown): void };

async function listening(t: Teardown, options: AppOptions = {}) {
  const app = await build(t, options);
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const call = httpCaller(base);
  /** GET /mobile/oauth-list (needs only the tenant) in a sandbox: the status tells whether a stub answered */
  const oauthList = (sandbox: string, headers: Record<string, string> = {}) =>
    fetch(`${base}/mobile/oauth-list`, {
      headers: { 'x-service-tenant-id': tenants.romashka, 'x-mock-sandbox': sandbox, ...headers },
    });
  /** The probe: another sandbox, no scenario of the abuser's, answered as the mock answers */
  const probe = async () => {
    const res = await oauthList('probe');
    return { status: res.status, isList: Array.isArray(((await res.json()) as { data?: unknown }).data) };
  };
  return { app, base, call, oauthList, probe };
}

const stubbing = (name: string, match: Record<string, unknown>, operationId = 'mobileOauthList') => ({
  name,
  description: 'a stub with a regular expression',
  stubs: [{ operationId, match, status: 418, body: { stubbed: true } }],
});

t.test(
  'a pattern whose program is too large is refused where it is defined, naming the path and the limit',
  async (t) => {
    const { call, probe } = await listening(t);
    // 14 characters, 965 instructions: 137 s against a 1 MB body before the bound
    const heavy = '((a{30}){30})$';
    const stub = await call(
      'PUT',
      '/__admin/scenarios/qa-heavy',
      stubbing('qa-heavy', { body: { regex: heavy } }, 'feedbackAdd'),
    );
    t.equal(stub.status, 400, 'a stub body matcher');
    t.match(
      stub.body.message,
      /at \/stubs\/0\/match\/body\/regex: expected a pattern that compiles to at most 300 instructions \(--regex-max-program\); this one compiles to 965/,
    );
    const header = await call(
      'PUT',
      '/__admin/scenarios/qa-heavy',
      stubbing('qa-heavy', { headers: { 'x-pad': { regex: '(?:a?){500}a{500}$' } } }),
    );
    t.equal(header.status, 400, 'a stub header matcher');
    t.match(header.body.message, /at \/stubs\/0\/match\/headers\/x-pad\/regex: .*at most 300 instructions/);
    t.equal((await call('GET', '/__admin/scenarios/qa-heavy')).status, 404, 'nothing was defined');

    const filter = await call('GET', `/__admin/requests?sandbox=abuse&header.x-pad:regex=${encodeURIComponent(heavy)}`);
    t.equal(filter.status, 400, 'a journal filter');
    t.match(filter.body.message, /header\.x-pad:regex.*at most 300 instructions/);
    t.same(await probe(), { status: 200, isList: true }, 'the probe in another sandbox is answered as ever');

    const { call: lax } = await listening(t, { regexMaxProgram: 1000 });
    t.equal(
      (await lax('PUT', '/__admin/scenarios/qa-heavy', stubbing('qa-heavy', { body: { regex: heavy } }, 'feedbackAdd')))
        .status,
      201,
      '--regex-max-program raises the bound',
    );
  },
);

t.test('a stub regex past the text bound or the work budget does not match; the server goes on', async (t) => {
  const { call, oauthList, probe } = await listening(t, { regexMaxText: 2048 });
  // 153 instructions, under the program bound; its work grows with the text
  const pattern = '(?:a?){50}a{50}$';
  t.equal(
    (await call('PUT', '/__admin/scenarios/qa-pad', stubbing('qa-pad', { headers: { 'x-pad': { regex: pattern } } })))
      .status,
    201,
  );
  const on = { 'x-mock-scenario': 'qa-pad' };
  t.equal((await oauthList('abuse', { ...on, 'x-pad': 'a'.repeat(2000) })).status, 418, 'within the bounds it matches');
  t.equal(
    (await oauthList('abuse', { ...on, 'x-pad': 'a'.repeat(3000) })).status,
    200,
    'a text longer than --regex-max-text is a non-match: the mock answers',
  );

  // 60,000 characters (under the default --regex-max-text) × 153 instructions is 18 times the default budget
  const { app: app2, call: call2, base, probe: probe2 } = await listening(t);
  t.equal(
    (
      await call2(
        'PUT',
        '/__admin/scenarios/qa-pad',
        stubbing('qa-pad', { body: { text: { regex: pattern } } }, 'feedbackAdd'),
      )
    ).status,
    201,
  );
  const s = (await signIn(app2)).headers;
  const post = (text: string) =>
    fetch(`${base}/feedback/add`, {
      method: 'POST',
      headers: { ...s, 'x-mock-scenario': 'qa-pad', 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'user', id: accounts.noRights.userId, score: 5, text }),
    });
  t.equal((await post('a'.repeat(1000))).status, 418, 'a small body matches');
  // the abuse and the probe go together: the probe is answered, and correctly
  const [abused, probed] = await Promise.all([post('a'.repeat(60_000)), probe2()]);
  t.not(abused.status, 418, 'past the budget the regex does not match');
  t.equal(abused.status, 400, 'the mock answers it as without the stub (a feedback text that long is refused)');
  t.same(probed, { status: 200, isList: true }, 'the probe in another sandbox is answered as ever');
  t.same(await probe(), { status: 200, isList: true });
});

t.test('a journal read whose regex work passes the budget is a 422 that says how to narrow it', async (t) => {
  const { call, oauthList, probe } = await listening(t);
  const pad = 'a'.repeat(3000);
  for (let i = 0; i < 50; i++) t.equal((await oauthList('abuse', { 'x-pad': pad })).status, 200);
  const filter = `header.x-pad:regex=${encodeURIComponent('(?:a?){50}a{50}$')}`;
  // 50 entries × 3,000 characters × 153 instructions: 23 million units, 46 times the default budget
  const [refused, probed] = await Promise.all([call('GET', `/__admin/requests?sandbox=abuse&${filter}`), probe()]);
  t.equal(refused.status, 422);
  t.equal(refused.body.code, 'UNPROCESSABLE');
  t.match(refused.body.message, /--regex-budget \(500000 units.*limit=.*since=.*plainer pattern/);
  t.same(probed, { status: 200, isList: true }, 'the probe in another sandbox is answered as ever');
  const counted = await call('GET', `/__admin/requests/count?sandbox=abuse&${filter}`);
  t.equal(counted.status, 422, 'the count as well');

  const narrowed = await call('GET', `/__admin/requests?sandbox=abuse&limit=1&${filter}`);
  t.equal(narrowed.status, 200, 'a smaller limit stops the scan early: within the budget');
  t.equal(narrowed.body.length, 1);
  const plain = await call('GET', '/__admin/requests/count?sandbox=abuse&header.x-pad:regex=aaa');
  t.same(plain.body, { count: 50 }, 'a plain-text pattern costs a unit a character: it reads every entry');
});

t.test('a body nested too deep for a matcher is a non-match, never a 500', async (t) => {
  const app = await build(t);
  const session = await signIn(app);
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const call = httpCaller(base);
  const scenario = {
    name: 'qa-deep',
    description: 'body stubs that read the whole value of a field',
    stubs: [
      { operationId: 'feedbackAdd', match: { body: { meta: { contains: 'boom' } } }, status: 418 },
      { operationId: 'feedbackAdd', match: { body: { meta: { regex: 'boom' } } }, status: 419 },
    ],
  };
  t.equal((await call('PUT', '/__admin/scenarios/qa-deep', scenario)).status, 201);
  const post = (meta: string) =>
    fetch(`${base}/feedback/add`, {
      method: 'POST',
      headers: { ...session.headers, 'x-mock-scenario': 'qa-deep', 'content-type': 'application/json' },
      body: `{"type":"user","id":"${accounts.noRights.userId}","score":5,"text":"x","meta":${meta}}`,
    });
  t.equal((await post('["boom"]')).status, 418, 'a shallow value matches by its JSON text');
  const deep = `${'['.repeat(5000)}"boom"${']'.repeat(5000)}`;
  const [answer, probed] = await Promise.all([post(deep), fetch(`${base}/__admin/health`)]);
  t.not(answer.status, 500, 'not a 500');
  t.not(answer.status, 418, 'nor a match');
  t.not(answer.status, 419, 'by either operator');
  t.equal(probed.status, 200, 'the server goes on');
  t.equal((await post('["boom"]')).status, 418, 'and still matches what it should');
});
