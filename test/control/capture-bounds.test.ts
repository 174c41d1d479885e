// The bug capture's own rules, fast (one app in process, app.inject; the mutation run of `capture` runs this file
// first): its name, what of a scenario it keeps, the pin, the data entries' key order, what is left out rather than
// written undefined, the 409 for a tenant record a state import changed, and the order the route serves it in.
import t from 'tap';
import { accounts, json, sharedApp, signIn, tenants } from '../helper.js';
import { bugCapture, captureName } from '../../src/control/capture.js';
import type { ScenarioFile } from '../../src/schemas/scenario.js';
import { parseMapping } from '../../src/wiremock/mapping.js';
import { WireMockStubs } from '../../src/wiremock/state.js';

const T = tenants.romashka;
const ownSandbox = sharedApp(t);

t.test('captureName: lower case, other characters as "-", at most 64 characters', async (t) => {
  t.equal(captureName('QA_Bug-7'), 'capture-qa-bug-7');
  t.equal(captureName('a.b c'), 'capture-a-b-c');
  const long = captureName('X'.repeat(64));
  t.equal(long, `capture-${'x'.repeat(56)}`);
  t.equal(long.length, 64);
});

t.test('a scenario flattened: the fields it sets, sessions by their lifetime, empty lists left out', async (t) => {
  const { sandbox, inject } = await ownSandbox();
  const define = (scenario: object) =>
    inject({ method: 'PUT', url: `/__admin/scenario?sandbox=${sandbox}`, payload: { scenario } });
  const set = await define({
    name: 'all-fields',
    description: 'every field a capture keeps',
    extends: 'flaky',
    twoFactor: false,
    sessions: { expired: true, lifetimeSeconds: 600 },
    revokeRights: 'all',
    tenantOptions: { enableIdeas: false },
    holdTickets: true,
    bandwidth: { bytesPerSecond: 5000 },
    forward: ['workflowTicketIndex'],
    compare: ['userProfile'],
    findings: { off: ['polling-too-fast'] },
  });
  t.equal(set.statusCode, 200, set.body.slice(0, 300));
  const res = await inject({ url: `/__admin/sandboxes/${sandbox}/capture` });
  t.equal(res.statusCode, 200, res.body.slice(0, 300));
  const capture = json<ScenarioFile>(res);
  t.equal(res.body, JSON.stringify(capture, null, 2), 'indented by 2, as JSON.stringify writes it');
  t.same(
    Object.keys(capture),
    [
      'summary',
      'name',
      'description',
      'twoFactor',
      'sessions',
      'revokeRights',
      'tenantOptions',
      'holdTickets',
      'stubs',
      'latency',
      'faults',
      'bandwidth',
      'forward',
      'compare',
      'findings',
      'pin',
      'data',
    ],
    'the summary, the head in the schema order, then pin and data; no followed or wiremock when there are none',
  );
  t.equal(capture.name, captureName(sandbox));
  t.match(capture.description, new RegExp(`^Bug capture of sandbox ${sandbox} on \\S+ at 2026-03-02T09:00:00\\.000Z`));
  t.match(capture.description, / \(scenario flaky > all-fields\)$/, 'the chain of the scenario');
  t.equal(capture.twoFactor, false);
  t.same(capture.sessions, { lifetimeSeconds: 600 }, 'what sessions made now do, not "expired" (in the data)');
  t.equal(capture.revokeRights, 'all');
  t.same(capture.tenantOptions, { enableIdeas: false });
  t.equal(capture.holdTickets, true);
  t.same(
    capture.stubs?.map((s) => s.status),
    [503],
    "flaky's stub",
  );
  t.same(capture.latency, [{ uniformMs: { min: 20, max: 200 } }]);
  t.same(
    capture.faults?.map((f) => f.kind),
    ['reset', 'truncated'],
  );
  t.same(capture.bandwidth, { bytesPerSecond: 5000 });
  t.same(capture.forward, ['workflowTicketIndex']);
  t.same(capture.compare, ['userProfile']);
  t.same(capture.findings, { off: ['polling-too-fast'] });
  t.same(capture.pin, {
    seed: 42,
    refDate: '2026-03-02T09:00:00.000Z',
    clock: { mode: 'frozen', at: '2026-03-02T09:00:00.000Z' },
  });
  t.same(capture.data, [], 'nothing arranged: an empty data list, there');
  t.match(capture.summary, { scenario: 'flaky > all-fields: its behaviour flattened into this file' });

  const bare = await define({
    name: 'bare',
    description: 'empty lists, no lifetime, nothing off',
    sessions: { expired: true },
    stubs: [],
    latency: [],
    faults: [],
    forward: [],
    compare: [],
    findings: { off: [] },
  });
  t.equal(bare.statusCode, 200, bare.body.slice(0, 300));
  const plain = json<ScenarioFile>(await inject({ url: `/__admin/sandboxes/${sandbox}/capture?as=plain-bug` }));
  t.equal(plain.name, 'plain-bug', '?as names it');
  t.same(Object.keys(plain), ['summary', 'name', 'description', 'pin', 'data'], 'nothing empty is written');
  t.match(plain.description, / \(scenario bare\)$/);
});

t.test('without its scenario (no longer defined): no behaviour, and the summary says so', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  t.equal(
    (await inject({ method: 'PUT', url: `/__admin/scenario?sandbox=${sandbox}`, payload: { name: 'hold-tickets' } }))
      .statusCode,
    200,
  );
  const capture = bugCapture(app.sandboxes.get(sandbox), undefined, { name: 'gone', instance: 'here' });
  t.same(Object.keys(capture), ['name', 'description', 'pin', 'data', 'summary'], 'no behaviour, nothing undefined');
  t.equal(capture.description, `Bug capture of sandbox ${sandbox} on here at 2026-03-02T09:00:00.000Z`);
  t.equal(capture.summary!.scenario, 'hold-tickets (no longer defined on here: no behaviour captured)');
  const withIt = bugCapture(app.sandboxes.get(sandbox), app.scenarios.get('hold-tickets'), {
    name: 'kept',
    instance: 'here',
  });
  t.equal(withIt.holdTickets, true);
  t.same(
    Object.keys(withIt),
    ['name', 'description', 'holdTickets', 'pin', 'data', 'summary'],
    'the fields the scenario does not set are absent, not undefined: the file is what a person would write',
  );
  t.equal(
    withIt.description,
    `Bug capture of sandbox ${sandbox} on here at 2026-03-02T09:00:00.000Z (scenario hold-tickets)`,
  );
});

t.test('pin and data: a clock not frozen is pinned frozen; entries in the schema key order; followed', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const admin = (method: 'POST' | 'PATCH' | 'DELETE' | 'PUT', url: string, payload?: object) =>
    inject({ method, url: `${url}?sandbox=${sandbox}`, ...(payload ? { payload } : {}) });
  t.equal((await admin('PUT', '/__admin/clock', { offsetMs: 7 * 86_400_000 })).statusCode, 200);
  const made = await admin('POST', `/__admin/data/${T}/notifications`, { userId: accounts.admin.userId, title: 'x' });
  t.equal(made.statusCode, 201, made.body.slice(0, 200));
  const id: string = json(made).records[0].id;
  const [first, second] = json(await inject({ url: `/__admin/data/${T}/notifications?sandbox=${sandbox}&limit=2` }))
    .records as { id: string }[];
  t.equal((await admin('PATCH', `/__admin/data/${T}/notifications/${first!.id}`, { title: 'y' })).statusCode, 200);
  t.equal((await admin('DELETE', `/__admin/data/${T}/notifications/${second!.id}`)).statusCode, 200);
  // a ticket list read a week on moves the base world's tickets on: followed
  const session = await signIn(app, accounts.admin, { sandbox });
  t.equal((await inject({ url: '/workflow-ticket?per-page=20', headers: session.headers })).statusCode, 200);

  const before = Date.now() + 7 * 86_400_000;
  const capture = json<ScenarioFile>(await inject({ url: `/__admin/sandboxes/${sandbox}/capture` }));
  const after = Date.now() + 7 * 86_400_000;
  t.same(Object.keys(capture.pin!), ['seed', 'refDate', 'clock'], 'no collections: none changed');
  t.match(capture.pin, { seed: 42, refDate: '2026-03-02T09:00:00.000Z', clock: { mode: 'frozen' } });
  const at = Date.parse(capture.pin!.clock.at);
  t.ok(at >= before - 5 && at <= after + 5, `${capture.pin!.clock.at}: the sandbox's now, frozen`);
  t.match(capture.summary!.clock, /^real time \+7 d, frozen at .* by the capture: /);
  const data = capture.data!;
  const byKind = (key: string) => data.filter((e) => key in e).map((e) => Object.keys(e));
  t.same(byKind('remove'), [['remove', 'id', 'tenant']], 'remove: its keys in the schema order');
  t.match(
    data.filter(
      (e) => ('create' in e && e.create === 'notifications') || ('patch' in e && e.patch === 'notifications'),
    ),
    [
      { create: 'notifications', record: { id, title: 'x' }, tenant: T },
      { patch: 'notifications', id: first!.id, set: { title: 'y' }, tenant: T },
    ],
  );
  t.ok(
    data.some((e) => 'remove' in e && e.remove === 'notifications' && e.id === second!.id && e.tenant === T),
    'the removal',
  );
  for (const e of data) {
    const keys = Object.keys(e).join();
    if ('create' in e) t.equal(keys, 'create,record,tenant,dependents', `create ${e.create}: the schema's key order`);
    if ('patch' in e)
      t.equal(
        keys,
        ['patch', 'id', ...['set', 'drop', 'add'].filter((k) => k in e), 'tenant'].join(),
        `patch ${e.patch}: the schema's key order`,
      );
  }
  const followed = capture.followed ?? [];
  t.ok(followed.length > 0, `${followed.length} tickets the clock moved on, in followed`);
  t.ok(
    followed.every((e) => Object.keys(e).join() === 'patch,id,set,tenant' && 'patch' in e && e.patch === 'wfTickets'),
    'followed: patches of tickets, their keys in the schema order',
  );
  t.same(Object.keys(capture).slice(-3), ['pin', 'data', 'followed']);
});

t.test('pin.collections: an id-less collection the sandbox changed, whole, by tenant', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const asked = await inject({
    method: 'POST',
    url: '/mobile/request-two-factor',
    payload: { email: accounts.twoFactor.email, password: accounts.twoFactor.password },
  });
  t.equal(asked.statusCode, 200, asked.body.slice(0, 200));
  const capture = json<ScenarioFile>(await inject({ url: `/__admin/sandboxes/${sandbox}/capture` }));
  const challenges = app.sandboxes.get(sandbox).store.tenant(T)!.twoFactorChallenges;
  t.ok(challenges.length > 0, 'the sign-in made a challenge');
  t.same(Object.keys(capture.pin!.collections ?? {}), [T], 'only the tenant that changed');
  t.same(capture.pin!.collections![T], JSON.parse(JSON.stringify({ twoFactorChallenges: challenges })), 'only it');
  t.match(capture.summary!.pinned, `kept whole in pin.collections: twoFactorChallenges (${T})`);
  t.same(Object.keys(capture.pin!), ['seed', 'refDate', 'clock', 'collections']);
});

t.test('a tenant record a state import changed: 409 naming the way out, nothing changed', async (t) => {
  const { sandbox, inject } = await ownSandbox();
  const state = json(await inject({ url: `/__admin/state?sandbox=${sandbox}` }));
  const same = await inject({ method: 'PUT', url: `/__admin/state?sandbox=${sandbox}`, payload: state });
  t.equal(same.statusCode, 200, same.body.slice(0, 200));
  t.equal((await inject({ url: `/__admin/sandboxes/${sandbox}/capture` })).statusCode, 200, 'an unchanged import');
  state.data.tenants[T].tenant.name = 'Renamed by an import';
  const changed = await inject({ method: 'PUT', url: `/__admin/state?sandbox=${sandbox}`, payload: state });
  t.equal(changed.statusCode, 200, changed.body.slice(0, 200));
  const refused = await inject({ url: `/__admin/sandboxes/${sandbox}/capture` });
  t.equal(refused.statusCode, 409);
  t.equal(
    json(refused).message,
    `tenant ${T} of sandbox "${sandbox}" is not its base world's (a state import changed it): a capture cannot pin ` +
      'a tenant record; export the whole sandbox with GET /__admin/state instead',
  );
});

t.test('WireMock stubs: captured after the data, and only when the sandbox has some', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const mapping = {
    id: '6f0c5b0a-0d1e-4a51-9a7e-3a2b9d1c0e01',
    request: { method: 'GET', urlPath: '/external/weather' },
    response: { status: 200, jsonBody: { sky: 'clear' } },
  };
  const parsed = parseMapping(mapping, () => 'unused');
  if (!('mapping' in parsed)) throw new Error(JSON.stringify(parsed.errors));
  app.sandboxes.get(sandbox).wiremock = WireMockStubs.of([parsed.mapping], new Map());
  const capture = json<ScenarioFile>(await inject({ url: `/__admin/sandboxes/${sandbox}/capture` }));
  t.same(capture.wiremock, { mappings: [{ ...mapping, uuid: mapping.id }], scenarios: {} });
  t.same(Object.keys(capture).slice(-3), ['pin', 'data', 'wiremock']);
  t.equal(capture.summary!.wiremock, '1 stub mappings, 0 WireMock scenarios out of Started');
});
