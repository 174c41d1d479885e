// A bug capture a person reads (issue 56, finding 3): indented, a summary first, what the tester arranged apart from
// what the clock moved on (`followed`), a group's membership as the ids that joined, not its whole list; and the
// sandbox's WireMock stubs and scenario states (issue 55, part 4), put back by a replay. It still replays byte for
// byte.
import t from 'tap';
import type { FastifyInstance } from 'fastify';
import { accounts, build, json, signIn, tenants } from '../helper.js';
import type { ScenarioFile } from '../../src/schemas/scenario.js';
import { parseMapping } from '../../src/wiremock/mapping.js';
import { WireMockStubs } from '../../src/wiremock/state.js';

const T = tenants.romashka;
type Entry = NonNullable<ScenarioFile['data']>[number];
const host = { 'x-forwarded-host': 'portal.test', 'x-forwarded-proto': 'http' };

/**
 * The issue's example: the clock frozen a week after the base world's date, one user made, two tickets for them, one
 * sign-in whose ticket list moves the base world's tickets on. Answers the new user's id and the session.
 */
async function arrangeIssueExample(app: FastifyInstance, sandbox: string) {
  const admin = (method: 'PUT' | 'POST', url: string, payload: object) =>
    app.inject({ method, url: `${url}?sandbox=${sandbox}`, payload });
  const clock = await admin('PUT', '/__admin/clock', { freeze: '2026-03-09T12:00:00.000Z' });
  if (clock.statusCode !== 200) throw new Error(clock.body);
  const user = await admin('POST', `/__admin/data/${T}/users`, {
    firstName: 'Anna',
    lastName: 'Bug',
    email: 'anna.bug@romashka.test',
  });
  if (user.statusCode !== 201) throw new Error(user.body);
  const userId: string = json(user).records[0].id;
  for (let i = 0; i < 2; i++) {
    const ticket = await admin('POST', `/__admin/data/${T}/wfTickets`, { userId });
    if (ticket.statusCode !== 201) throw new Error(ticket.body);
  }
  const session = await signIn(app, accounts.admin, { sandbox, deviceId: 'phone-bug' });
  const list = await app.inject({ url: '/workflow-ticket?per-page=20', headers: session.headers });
  if (list.statusCode !== 200) throw new Error(list.body);
  return { userId, session };
}

t.test(
  "the issue's example: indented, a summary first, arranged apart from followed, the membership small",
  async (t) => {
    const origin = await build(t);
    const { userId, session } = await arrangeIssueExample(origin, 'bug');
    const res = await origin.inject({ url: '/__admin/sandboxes/bug/capture' });
    t.equal(res.statusCode, 200);
    const text = res.body;
    const capture = JSON.parse(text) as ScenarioFile;
    t.equal(text, JSON.stringify(capture, null, 2), 'indented by 2 spaces, as JSON.stringify writes it');
    t.ok(text.startsWith('{\n  "summary": {\n    "sandbox": "bug on '), 'the summary comes first');
    t.equal(Object.keys(capture)[0], 'summary');
    const summary = capture.summary!;
    t.match(summary.clock, /^frozen at 2026-03-09T12:00:00\.000Z: 7 d 3 h after the base world's reference date$/);
    t.match(summary.scenario, /^default/);
    t.match(summary.world, /seed 42, seeded for 2026-03-02T09:00:00\.000Z/);
    t.match(summary.arranged, /created .*users ×1.*wfTickets ×2.*; patched .*userGroups ×1 \(memberIds \+1\)/);
    t.match(summary.followed, /^\d+ entries in followed: patched wfTickets ×\d+, the base world's tickets moved on/);

    const data = capture.data!;
    const followed = capture.followed!;
    t.ok(followed.length >= 10, `${followed.length} base tickets the clock moved on, in followed`);
    const baseTickets = new Set(
      origin.worlds.get(42, new Date('2026-03-02T09:00:00.000Z')).data.tenants[T]!.wfTickets.map((r) => r.id),
    );
    t.ok(
      followed.every((e) => 'patch' in e && e.patch === 'wfTickets' && baseTickets.has(e.id)),
      'followed holds patches of base tickets only',
    );
    t.notOk(
      data.some((e) => 'patch' in e && e.patch === 'wfTickets'),
      'no ticket the clock alone moved is among the arranged entries',
    );
    const kinds = data.map((e) =>
      'create' in e ? `create ${e.create}` : 'patch' in e ? `patch ${e.patch}` : 'remove',
    );
    t.same(
      [...kinds].sort(),
      [
        'create devices',
        'create employments',
        'create sessions',
        'create users',
        'create wfTickets',
        'create wfTickets',
        'patch userGroups',
        'patch users',
      ],
      'the arranged part: the user (with the employment its factory made), two tickets, the sign-in, the membership',
    );
    const membership = data.find(
      (e): e is Extract<Entry, { patch: string }> => 'patch' in e && e.patch === 'userGroups',
    )!;
    t.same(membership.add, { memberIds: [userId] }, 'the membership change: the id that joined');
    t.equal(membership.set, undefined, 'not the whole member list');
    const membershipBytes = JSON.stringify(membership).length;
    t.ok(membershipBytes < 300, `the membership entry is ${membershipBytes} bytes (the whole list was 7,975)`);
    const compactBytes = JSON.stringify(capture).length;
    t.ok(compactBytes < 12_000, `${compactBytes} bytes without indentation (17,649 when the list was whole)`);

    // replayed on a server started on another day with another seed: the same bytes
    const replay = await build(t, { now: '2026-11-27T15:30:00.000Z', seed: 7 });
    const applied = await replay.inject({
      method: 'PUT',
      url: '/__admin/scenario?sandbox=bug',
      payload: { scenario: capture },
    });
    t.equal(applied.statusCode, 200, applied.body.slice(0, 300));
    const { 'x-mock-sandbox': _s, ...headers } = session.headers;
    for (const url of [
      '/workflow-ticket?per-page=50',
      `/user/profile?id=${userId}`,
      '/dashboard?widgets=myTeam,updBirthday&info=profileBrief,notificationsBadge',
    ]) {
      const a = await origin.inject({ url, headers: { ...session.headers, ...host } });
      const b = await replay.inject({ url, headers: { ...headers, 'x-mock-sandbox': 'bug', ...host } });
      t.equal(a.statusCode, 200, `${url} on the origin`);
      t.ok(a.statusCode === b.statusCode && a.body === b.body, `${url}: the same ${a.body.length} bytes`);
    }
    const state = (app: FastifyInstance) => app.inject({ url: '/__admin/data/changes?sandbox=bug' });
    t.equal((await state(replay)).body, (await state(origin)).body, 'the same data changes against the base world');
    const again = json<ScenarioFile>(await replay.inject({ url: '/__admin/sandboxes/bug/capture' }));
    t.same(again.data, data, 'captured again: the same arranged entries');
    t.same(again.followed, followed, 'and the same followed ones');

    // a capture of the old shape (no summary, the clock's moves among the patches, the member list whole) replays too
    const group = origin.sandboxes
      .get('bug')
      .store.tenant(T)!
      .userGroups.find((g) => g.id === membership.id)!;
    const { add: _add, ...rest } = membership;
    const old: ScenarioFile = {
      name: 'old-capture',
      description: capture.description,
      pin: capture.pin,
      data: [
        ...data.filter((e) => 'create' in e),
        { ...rest, set: { memberIds: [...group.memberIds] } },
        ...data.filter((e) => 'patch' in e && e !== membership),
        ...followed,
      ],
    };
    const oldApplied = await replay.inject({
      method: 'PUT',
      url: '/__admin/scenario?sandbox=old',
      payload: { scenario: old },
    });
    t.equal(oldApplied.statusCode, 200, oldApplied.body.slice(0, 300));
    const list = { url: '/workflow-ticket?per-page=50', headers: { ...headers, ...host } };
    const a = await origin.inject({ ...list, headers: { ...list.headers, 'x-mock-sandbox': 'bug' } });
    const b = await replay.inject({ ...list, headers: { ...list.headers, 'x-mock-sandbox': 'old' } });
    t.equal(b.body, a.body, 'an old-shape capture answers the same bytes');
  },
);

t.test('a patch by items: a dropped id the list lacks, or nothing to change, is a 422 naming it', async (t) => {
  const app = await build(t);
  const group = app.sandboxes.get('default').store.tenant(T)!.userGroups[0]!;
  const apply = (entry: object) =>
    app.inject({
      method: 'PUT',
      url: '/__admin/scenario?sandbox=items',
      payload: { scenario: { name: 'items', description: 'items', data: [entry] } },
    });
  const member = group.memberIds[0]!;
  const ok = await apply({
    patch: 'userGroups',
    id: group.id,
    drop: { memberIds: [member] },
    add: { memberIds: [member] },
  });
  t.equal(ok.statusCode, 200, ok.body.slice(0, 300));
  const moved = app.sandboxes
    .get('items')
    .store.tenant(T)!
    .userGroups.find((g) => g.id === group.id)!;
  t.same(moved.memberIds, [...group.memberIds.slice(1), member], 'dropped, then added at the end');

  const missing = await apply({ patch: 'userGroups', id: group.id, drop: { memberIds: ['no-such-member'] } });
  t.equal(missing.statusCode, 422);
  t.match(
    json(missing).message,
    /data\[0\] \(patch userGroups .*\): memberIds: the list holds no "no-such-member" to drop/,
  );
  t.same(json(missing).details, [
    { field: 'data[0].drop.memberIds', message: 'the list holds no "no-such-member" to drop' },
  ]);
  const nothing = await apply({ patch: 'userGroups', id: group.id });
  t.equal(nothing.statusCode, 422);
  t.match(json(nothing).message, /a patch changes nothing: give set, drop or add/);
  const notList = await apply({ patch: 'userGroups', id: group.id, add: { name: ['x'] } });
  t.equal(notList.statusCode, 422);
  t.match(json(notList).message, /name: the record's name is not a list/);
});

const mappings = [
  {
    id: '6f0c5b0a-0d1e-4a51-9a7e-3a2b9d1c0e01',
    request: { method: 'GET', urlPath: '/external/weather' },
    response: { status: 200, jsonBody: { sky: 'clear' } },
  },
  {
    id: '6f0c5b0a-0d1e-4a51-9a7e-3a2b9d1c0e02',
    scenarioName: 'checkout',
    requiredScenarioState: 'Paid',
    request: { method: 'GET', url: '/external/order' },
    response: { status: 200, body: 'shipped' },
  },
];
/** The mappings as WireMock lists them once taken: with a uuid, the id's twin. */
const listed = mappings.map((m) => ({ ...m, uuid: m.id }));
const parsed = () =>
  mappings.map((m) => {
    const result = parseMapping(m, () => 'unused');
    if (!('mapping' in result)) throw new Error(JSON.stringify(result.errors));
    return result.mapping;
  });

t.test("a capture carries the sandbox's WireMock stubs and scenario states; a replay puts them back", async (t) => {
  const origin = await build(t);
  await origin.inject({ method: 'PUT', url: '/__admin/sandboxes/wm' });
  origin.sandboxes.get('wm').wiremock = WireMockStubs.of(parsed(), new Map([['checkout', 'Paid']]));
  const capture = json<ScenarioFile>(await origin.inject({ url: '/__admin/sandboxes/wm/capture' }));
  t.same(capture.wiremock, { mappings: listed, scenarios: { checkout: 'Paid' } }, 'the mappings and the state');
  t.match(capture.summary!.wiremock, /^2 stub mappings, 1 WireMock scenarios out of Started$/);
  t.same(Object.keys(capture).slice(-2), ['data', 'wiremock'], 'after the data');

  const replay = await build(t, { now: '2026-11-27T15:30:00.000Z' });
  await replay.inject({ method: 'PUT', url: '/__admin/sandboxes/r' });
  const before = replay.sandboxes.get('r').wiremock;
  const broken = {
    ...capture,
    name: 'broken',
    data: [{ patch: 'users', id: 'no-such-user', set: { statusText: 'x' } }],
  };
  const refused = await replay.inject({
    method: 'PUT',
    url: '/__admin/scenario?sandbox=r',
    payload: { scenario: broken },
  });
  t.equal(refused.statusCode, 422, 'data that does not apply');
  t.equal(replay.sandboxes.get('r').wiremock, before, 'the refused replay left the stubs as they were');

  const applied = await replay.inject({
    method: 'PUT',
    url: '/__admin/scenario?sandbox=r',
    payload: { scenario: capture },
  });
  t.equal(applied.statusCode, 200, applied.body.slice(0, 300));
  const stubs = replay.sandboxes.get('r').wiremock;
  t.same(
    JSON.parse(JSON.stringify(stubs.toStored())),
    { mappings: listed, scenarios: { checkout: 'Paid' } },
    'put back',
  );
  t.equal(stubs.stateOf('checkout'), 'Paid');
  t.same(
    stubs.servingOrder.map((m) => m.id),
    origin.sandboxes.get('wm').wiremock.servingOrder.map((m) => m.id),
    'served in the same order',
  );

  // a capture without stubs (an old one, or of a sandbox that had none) leaves none: the captured sandbox had none
  const { wiremock: _w, ...without } = capture;
  const plain = await replay.inject({
    method: 'PUT',
    url: '/__admin/scenario?sandbox=r',
    payload: { scenario: { ...without, name: 'no-stubs' } },
  });
  t.equal(plain.statusCode, 200, plain.body.slice(0, 300));
  t.ok(replay.sandboxes.get('r').wiremock.isEmpty, 'no stubs after a capture without them');

  const bad = {
    ...capture,
    name: 'bad-mapping',
    wiremock: { mappings: [{ request: { method: 'GET', nope: 1 } }], scenarios: {} },
  };
  const badApplied = await replay.inject({
    method: 'PUT',
    url: '/__admin/scenario?sandbox=r',
    payload: { scenario: bad },
  });
  t.equal(badApplied.statusCode, 400, 'a mapping that does not parse: the definition is refused');
  t.match(json(badApplied).message, /at \/wiremock\/mappings\/0\/request\/nope: Error parsing JSON/);
  t.equal(json(await replay.inject({ url: '/__admin/scenario?sandbox=r' })).name, 'no-stubs', 'the scenario kept');
});
