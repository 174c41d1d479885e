// WireMock's admin API per sandbox (/sandbox/NAME/wiremock/__admin/…, docs/wiremock.md "The admin API") over real
// sockets: every endpoint, sandboxes kept apart, refusals that change nothing, the bounds, --data across a restart,
// a sandbox reset, and the admin token as WireMock's clients send it.
import t from 'tap';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build, httpCaller } from '../helper.js';
import { tempDir } from '../support/temp-dir.js';
import type { AppOptions } from '../../src/app.js';

type Teardown = { teardown(fn: () => unknown): void };

async function listening(t: Teardown, options: AppOptions = {}) {
  const app = await build(t, options);
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const call = httpCaller(base);
  /** a call to sandbox `name`'s WireMock admin API */
  const wm = (name: string) => (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    call(method, `/sandbox/${name}/wiremock/__admin${path}`, body, headers);
  return { app, base, call, wm };
}

const mapping = (url: string, extra: Record<string, unknown> = {}) => ({
  request: { method: 'GET', url },
  response: { status: 200, body: `at ${url}` },
  ...extra,
});
const urls = (list: { mappings: Array<{ request: { url: string } }> }) => list.mappings.map((m) => m.request.url);
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

t.test('mappings: create, list, get, put, delete, as WireMock answers them', async (t) => {
  const { wm, call } = await listening(t);
  const a = wm('wm-a');
  t.same((await a('GET', '/mappings')).body, { mappings: [], meta: { total: 0 } }, 'a fresh sandbox has none');
  t.ok(
    ((await call('GET', '/__admin/sandboxes')).body as Array<{ name: string }>).some((s) => s.name === 'wm-a'),
    'made on first use',
  );

  const created = await a('POST', '/mappings', {
    request: { url: '/one' },
    response: { body: 'x' },
    metadata: { k: 1 },
  });
  t.equal(created.status, 201);
  t.match(created.body.id, uuid, 'an id is given');
  t.equal(created.body.uuid, created.body.id);
  t.same(created.body.request, { url: '/one', method: 'ANY' }, 'the method is shown as ANY when not given');
  t.same(created.body.response, { status: 200, body: 'x' }, 'the status is shown as 200 when not given');
  const id = created.body.id as string;

  await a('POST', '/mappings', mapping('/two'));
  await a('POST', '/mappings', mapping('/three', { priority: 1 }));
  t.same(urls((await a('GET', '/mappings')).body), ['/three', '/two', '/one'], 'priority, then newest first');
  const page = (await a('GET', '/mappings?limit=1&offset=1')).body;
  t.same([urls(page), page.meta], [['/two'], { total: 3 }], 'limit and offset; the total of all');
  t.same(urls((await a('GET', '/mappings?offset=9')).body), [], 'an offset past the end is an empty page');

  t.equal((await a('GET', `/mappings/${id}`)).body.request.url, '/one');
  t.equal((await a('GET', `/mappings/${id.toUpperCase()}`)).status, 200, 'an id in capitals is the same id');
  const missing = await a('GET', '/mappings/00000000-0000-4000-8000-000000000000');
  t.equal(missing.status, 404);
  t.match(missing.body.errors[0].title, /No stub mapping 00000000-0000-4000-8000-000000000000/, 'names the id');
  const bad = await a('GET', '/mappings/not-a-uuid');
  t.same([bad.status, bad.body], [400, { errors: [{ code: 10, title: 'not-a-uuid is not a valid UUID' }] }]);

  const put = await a('PUT', `/mappings/${id}`, mapping('/one-b'));
  t.same([put.status, put.body.id, put.body.request.url], [200, id, '/one-b'], 'replaced, id kept');
  t.same(urls((await a('GET', '/mappings')).body), ['/three', '/two', '/one-b'], 'in its place');
  t.equal((await a('PUT', '/mappings/00000000-0000-4000-8000-000000000000', mapping('/x'))).status, 404);
  const badPut = await a('PUT', `/mappings/${id}`, { request: { url: '/x', bogus: 1 } });
  t.same([badPut.status, badPut.body.errors[0].source.pointer], [422, '/request/bogus']);
  t.equal((await a('GET', `/mappings/${id}`)).body.request.url, '/one-b', 'a refused put changes nothing');

  t.same(await a('DELETE', `/mappings/${id}`), { status: 200, body: {} });
  t.equal((await a('DELETE', `/mappings/${id}`)).status, 404, 'gone');
  t.same(await a('DELETE', '/mappings'), { status: 200, body: {} });
  t.same((await a('GET', '/mappings')).body.meta, { total: 0 });
});

t.test("refusals are WireMock's 422 and change nothing, not even a sandbox", async (t) => {
  const { wm, call } = await listening(t);
  const refused = await wm('wm-new')('POST', '/mappings', { request: { url: '/a', equalToXml: '<a/>' } });
  t.equal(refused.status, 422);
  t.same(refused.body.errors[0].source, { pointer: '/request/equalToXml' });
  const names = ((await call('GET', '/__admin/sandboxes')).body as Array<{ name: string }>).map((s) => s.name);
  t.notOk(names.includes('wm-new'), 'a refused write made no sandbox');

  const res = await fetch(`${(await listening(t)).base}/sandbox/x/wiremock/__admin/mappings`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"request": ',
  });
  const body = (await res.json()) as { errors: Array<{ title: string }> };
  t.same([res.status, body.errors[0]?.title], [422, 'Error parsing JSON'], 'JSON that does not parse');
});

t.test('import: all checked first; OVERWRITE, IGNORE, deleteAllNotInImport', async (t) => {
  const { wm } = await listening(t);
  const a = wm('wm-import');
  const fixed = '11111111-1111-4111-8111-111111111111';
  await a('POST', '/mappings', mapping('/old'));
  await a('POST', '/mappings', { id: fixed, ...mapping('/fixed') });
  const before = (await a('GET', '/mappings')).body;

  const refused = await a('POST', '/mappings/import', {
    mappings: [mapping('/k'), { request: { url: '/l', bogus: 1 } }],
  });
  t.equal(refused.status, 422);
  t.same(refused.body.errors[0].source, { pointer: '/mappings/1/request/bogus' }, 'names the mapping and field');
  t.same((await a('GET', '/mappings')).body, before, 'nothing was added');

  const ok = await a('POST', '/mappings/import', {
    mappings: [{ id: fixed, ...mapping('/fixed-ignored') }, mapping('/i'), mapping('/j')],
    importOptions: { duplicatePolicy: 'IGNORE' },
  });
  t.same([ok.status, ok.body], [200, {}]);
  t.same(urls((await a('GET', '/mappings')).body), ['/i', '/j', '/fixed', '/old'], 'the first imported is tried first');

  await a('POST', '/mappings/import', { mappings: [{ id: fixed, ...mapping('/fixed-new') }] });
  t.ok(urls((await a('GET', '/mappings')).body).includes('/fixed-new'), 'OVERWRITE by default');

  await a('POST', '/mappings/import', {
    mappings: [{ id: fixed, ...mapping('/fixed-last') }],
    importOptions: { deleteAllNotInImport: true },
  });
  t.same(urls((await a('GET', '/mappings')).body), ['/fixed-last'], 'the others deleted');
});

t.test('the bounds: --wiremock-max-mappings and --wiremock-sandbox-kb, past them a 422 naming the flag', async (t) => {
  const { wm } = await listening(t, { wiremockMaxMappings: 2, wiremockSandboxKb: 1 });
  const a = wm('wm-bounds');
  t.equal((await a('POST', '/mappings', mapping('/1'))).status, 201);
  t.equal((await a('POST', '/mappings', mapping('/2'))).status, 201);
  const third = await a('POST', '/mappings', mapping('/3'));
  t.equal(third.status, 422);
  t.match(third.body.errors[0].detail, /--wiremock-max-mappings/);
  const imported = await a('POST', '/mappings/import', { mappings: [mapping('/4')] });
  t.equal(imported.status, 422, 'an import past it too');
  t.same(urls((await a('GET', '/mappings')).body), ['/2', '/1'], 'nothing added');

  const b = wm('wm-bounds-kb');
  const big = await b('POST', '/mappings', mapping('/big', { response: { body: 'x'.repeat(2000) } }));
  t.equal(big.status, 422);
  t.match(big.body.errors[0].detail, /--wiremock-sandbox-kb/);
  t.same((await b('GET', '/mappings')).body.meta, { total: 0 });
});

t.test('find-by-metadata and remove-by-metadata', async (t) => {
  const { wm } = await listening(t);
  const a = wm('wm-meta');
  await a('POST', '/mappings', mapping('/x', { metadata: { team: 'red', n: { k: 1 } } }));
  await a('POST', '/mappings', mapping('/y', { metadata: { team: 'blue' } }));
  await a('POST', '/mappings', mapping('/z'));
  const found = await a('POST', '/mappings/find-by-metadata', {
    matchesJsonPath: { expression: '$.team', equalTo: 'red' },
  });
  t.same([found.status, urls(found.body), found.body.meta], [200, ['/x'], { total: 1 }]);
  t.same(urls((await a('POST', '/mappings/find-by-metadata', { matchesJsonPath: '$.n.k' })).body), ['/x']);
  const badPattern = await a('POST', '/mappings/find-by-metadata', { matchesXPath: '/a' });
  t.same([badPattern.status, badPattern.body.errors[0].source.pointer], [422, '/matchesXPath']);
  t.same(await a('POST', '/mappings/remove-by-metadata', { matchesJsonPath: '$.team' }), { status: 200, body: {} });
  t.same(urls((await a('GET', '/mappings')).body), ['/z']);
});

t.test('unmatched mappings: those no kept journal entry was served by, per sandbox', async (t) => {
  const { wm, call } = await listening(t);
  const [a, b] = [wm('wm-un-a'), wm('wm-un-b')];
  for (const w of [a, b]) {
    await w('POST', '/mappings', mapping('/used'));
    await w('POST', '/mappings', mapping('/idle'));
  }
  t.same(urls((await a('GET', '/mappings/unmatched')).body), ['/idle', '/used'], 'none served yet: all, in order');
  t.equal((await call('GET', '/sandbox/wm-un-a/wiremock/used')).status, 200);
  t.equal((await call('GET', '/sandbox/wm-un-a/portal-has-no-such-path')).status, 404, 'an unmatched request');
  const listed = (await a('GET', '/mappings/unmatched')).body;
  t.same([urls(listed), listed.meta], [['/idle'], { total: 1 }], 'the served one is not listed');
  t.same(urls((await b('GET', '/mappings/unmatched')).body), ['/idle', '/used'], "another sandbox's traffic is not");

  t.same(await a('DELETE', '/mappings/unmatched'), { status: 200, body: {} });
  t.same(urls((await a('GET', '/mappings')).body), ['/used'], 'the unmatched one deleted, the served one kept');
  t.same(urls((await b('GET', '/mappings')).body), ['/idle', '/used'], 'the other sandbox untouched');

  await a('DELETE', '/requests');
  t.same(urls((await a('GET', '/mappings/unmatched')).body), ['/used'], 'an emptied journal names no mapping');
  t.same((await wm('wm-un-fresh')('GET', '/mappings/unmatched')).body, { mappings: [], meta: { total: 0 } });
});

t.test('scenarios: listed with their mappings, set, reset; two sandboxes with the same names stay apart', async (t) => {
  const { wm, call } = await listening(t);
  const step = (url: string, required: string, next?: string) =>
    mapping(url, {
      scenarioName: 'cart',
      requiredScenarioState: required,
      ...(next === undefined ? {} : { newScenarioState: next }),
    });
  for (const name of ['wm-s1', 'wm-s2']) {
    await wm(name)('POST', '/mappings', step('/add', 'Started', 'full'));
    await wm(name)('POST', '/mappings', step('/pay', 'full', 'paid'));
  }
  const listed = (await wm('wm-s1')('GET', '/scenarios')).body.scenarios;
  t.same(
    listed.map((s: { name: string; state: string; possibleStates: string[]; mappings: unknown[] }) => [
      s.name,
      s.state,
      s.possibleStates,
      s.mappings.length,
    ]),
    [['cart', 'Started', ['Started', 'full', 'paid'], 2]],
  );
  t.same(await wm('wm-s1')('PUT', '/scenarios/cart/state', { state: 'paid' }), { status: 200, body: {} });
  const state = async (name: string) => (await wm(name)('GET', '/scenarios')).body.scenarios[0].state;
  t.equal(await state('wm-s1'), 'paid');
  t.equal(await state('wm-s2'), 'Started', 'the other sandbox keeps its own state');
  // the same API through the header, as a client without the path prefix
  const byHeader = await call('GET', '/wiremock/__admin/scenarios', undefined, { 'x-mock-sandbox': 'wm-s1' });
  t.equal(byHeader.body.scenarios[0].state, 'paid', 'x-mock-sandbox names the same sandbox');

  const unknown = await wm('wm-s1')('PUT', '/scenarios/nope/state', { state: 'x' });
  t.same([unknown.status, unknown.body], [404, { errors: [{ code: 404, title: 'Scenario nope does not exist' }] }]);
  const badState = await wm('wm-s1')('PUT', '/scenarios/cart/state', { state: 'lost' });
  t.same(
    [badState.status, badState.body],
    [422, { errors: [{ code: 11, title: 'Scenario cart does not support state lost' }] }],
  );
  t.equal(await state('wm-s1'), 'paid', 'a refused move changes nothing');
  t.same(await wm('wm-s1')('POST', '/scenarios/reset'), { status: 200, body: {} });
  t.equal(await state('wm-s1'), 'Started');
});

t.test('near misses of a request and of a request pattern', async (t) => {
  const { wm, call } = await listening(t);
  const a = wm('wm-near');
  await a('POST', '/mappings', { request: { method: 'GET', urlPath: '/things' }, response: {} });
  await a('POST', '/mappings', { request: { method: 'POST', url: '/other/place' }, response: {} });
  const near = await a('POST', '/near-misses/request', { url: '/thingz', method: 'GET', headers: {}, body: '' });
  t.equal(near.status, 200);
  t.same(
    near.body.nearMisses.map((n: { stubMapping: { request: { urlPath?: string } } }) => n.stubMapping.request.urlPath),
    ['/things', undefined],
    'nearest first',
  );
  t.ok(near.body.nearMisses[0].matchResult.distance > 0);
  t.ok(near.body.nearMisses[0].matchResult.distance < near.body.nearMisses[1].matchResult.distance);

  await call('GET', '/sandbox/wm-near/wiremock/thingz');
  const byPattern = await a('POST', '/near-misses/request-pattern', { method: 'GET', urlPath: '/things' });
  t.equal(byPattern.status, 200);
  t.equal(byPattern.body.nearMisses.length, 1, 'the one request of the journal');
  t.equal(byPattern.body.nearMisses[0].request.url, '/thingz', 'read after the sandbox and /wiremock prefixes');
  const badPattern = await a('POST', '/near-misses/request-pattern', { urlPath: '/a', host: 'x' });
  t.same([badPattern.status, badPattern.body.errors[0].source.pointer], [422, '/host']);
});

t.test(
  'reset: mappings back to the start ones, states Started, journal emptied; also by a sandbox reset',
  async (t) => {
    // the start mappings come from --wiremock DIR, read at start (the scenario registry keeps them)
    const root = tempDir(t, 'wm-admin-root-');
    mkdirSync(join(root, 'mappings'));
    const start = { id: '22222222-2222-4222-8222-222222222222', ...mapping('/start') };
    writeFileSync(join(root, 'mappings', 'start.json'), JSON.stringify(start));
    const { wm, call } = await listening(t, { wiremock: root });
    const a = wm('wm-reset');
    await a('POST', '/mappings', mapping('/added', { scenarioName: 's', newScenarioState: 'x' }));
    await a('PUT', '/scenarios/s/state', { state: 'x' });
    await call('GET', '/sandbox/wm-reset/__admin/health');
    await call('GET', '/sandbox/wm-reset/wiremock/somewhere');
    t.ok((await call('GET', '/__admin/requests?sandbox=wm-reset')).body.length > 0, 'the journal has entries');

    t.same(await a('POST', '/reset'), { status: 200, body: {} });
    t.same(urls((await a('GET', '/mappings')).body), ['/start'], 'the start mappings');
    t.same((await call('GET', '/__admin/requests?sandbox=wm-reset')).body, [], 'the journal emptied');

    await a('POST', '/mappings', mapping('/again'));
    t.same(await a('POST', '/mappings/reset'), { status: 200, body: {} });
    t.same(urls((await a('GET', '/mappings')).body), ['/start'], 'POST /mappings/reset');

    // a sandbox reset of the control plane puts back what the sandbox started with
    await a('POST', '/mappings', mapping('/more'));
    t.equal((await call('POST', '/__admin/reset?sandbox=wm-reset', {})).status, 200);
    t.same(urls((await a('GET', '/mappings')).body), ['/start'], "the start ones: --wiremock's");
  },
);

t.test('under --data every change outlives a restart; save changes nothing', async (t) => {
  const dir = tempDir(t, 'wm-admin-data-');
  const first = await listening(t, { data: dir });
  const a = first.wm('wm-kept');
  await a('POST', '/mappings', mapping('/kept', { scenarioName: 'flow', newScenarioState: 'two', persistent: true }));
  await a('PUT', '/scenarios/flow/state', { state: 'two' });
  t.same(await a('POST', '/mappings/save'), { status: 200, body: {} });
  await first.app.close();

  const again = await listening(t, { data: dir });
  const list = (await again.wm('wm-kept')('GET', '/mappings')).body;
  t.same(urls(list), ['/kept']);
  t.equal(list.mappings[0].persistent, true, 'persistent is kept and shown');
  t.equal((await again.wm('wm-kept')('GET', '/scenarios')).body.scenarios[0].state, 'two', 'the state too');
});

t.test('the admin token: Token (WireMock Java client), Bearer, x-mock-admin-token', async (t) => {
  const { wm, call } = await listening(t, { adminToken: 'sekret' });
  const a = wm('wm-token');
  const none = await a('GET', '/mappings');
  t.equal(none.status, 401);
  t.match(none.body.message, /Authorization: Token TOKEN/, 'names the ways');
  t.equal((await a('GET', '/mappings', undefined, { authorization: 'Token sekret' })).status, 200);
  t.equal((await a('GET', '/mappings', undefined, { authorization: 'Bearer sekret' })).status, 200);
  t.equal((await a('GET', '/mappings', undefined, { 'x-mock-admin-token': 'sekret' })).status, 200);
  t.equal((await a('GET', '/mappings', undefined, { authorization: 'Token wrong' })).status, 401);
  t.equal((await a('GET', '/nope', undefined, {})).status, 401, 'the 404 of the block is guarded too');
  t.equal(
    (await call('GET', '/__admin/health', undefined, { authorization: 'Token sekret' })).status,
    401,
    "the Token scheme is WireMock's routes' only",
  );
});

t.test('settings, health, version, recordings, shutdown, and the 404 of the block', async (t) => {
  const { wm } = await listening(t);
  const a = wm('wm-misc');
  t.same(await a('GET', '/settings'), { status: 200, body: { settings: {} } });
  t.same(await a('POST', '/settings', { settings: {} }), { status: 200, body: {} });
  t.same(await a('PUT', '/settings', {}), { status: 200, body: {} });
  const delay = await a('POST', '/settings', { fixedDelay: 5 });
  t.same([delay.status, delay.body.errors[0].source.pointer], [422, '/fixedDelay']);
  const wrapped = await a('PUT', '/settings', { settings: { delayDistribution: { type: 'uniform' } } });
  t.same([wrapped.status, wrapped.body.errors[0].source.pointer], [422, '/settings/delayDistribution']);

  const health = (await a('GET', '/health')).body;
  t.match(health, { status: 'healthy', version: String, uptimeInSeconds: Number, timestamp: String });
  t.match((await a('GET', '/version')).body, { version: String });
  t.same(await a('GET', '/recordings/status'), { status: 200, body: { status: 'NeverStarted' } });
  for (const path of ['/recordings/start', '/recordings/stop', '/recordings/snapshot']) {
    const refused = await a('POST', path, {});
    t.equal(refused.status, 422, path);
    t.match(refused.body.errors[0].detail, /\/__admin\/proxy.*\/__admin\/recording/, `${path} names what to use`);
  }
  const shutdown = await a('POST', '/shutdown');
  t.same([shutdown.status], [422]);
  t.match(shutdown.body.errors[0].detail, /DELETE \/__admin\/sandboxes\/NAME/);
  const missing = await a('GET', '/no-such-thing');
  t.equal(missing.status, 404);
  t.match(missing.body.errors[0].title, /No WireMock admin route GET/);
});
