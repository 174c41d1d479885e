// One people index per users collection: shared by every sandbox that has not written it, replaced by a write, and
// giving the answers a plain scan of the same data gives.
import t from 'tap';
import fc from 'fast-check';
import { accounts, build, json, signIn, tenants, sharedApp } from '../helper.js';
import { peopleIndex } from '../../src/domain/people-index.js';
import { departmentTreeNode, listed, userIndex } from '../../src/domain/people.js';
import { matchesText } from '../../src/domain/lists.js';
import type { DomainContext } from '../../src/domain/context.js';
import { noEffects } from '../../src/domain/effects.js';

// one app for the file's tests, each in a sandbox of its own
const ownSandbox = sharedApp(t);

const largeTenant = 5000;

t.test("sandboxes share the base world's index until they write users; the write is seen at once", async (t) => {
  const app = await build(t);
  const a = app.sandboxes.get('a');
  const b = app.sandboxes.get('b');
  t.equal(
    peopleIndex(a.store.tenant(tenants.romashka)!),
    peopleIndex(b.store.tenant(tenants.romashka)!),
    'one index for both',
  );
  const s = await signIn(app, accounts.admin, { sandbox: 'a' });
  const search = async (sandbox: string, q: string) =>
    json(
      await app.inject({
        url: `/user/search?q=${encodeURIComponent(q)}`,
        headers: { ...s.headers, 'x-mock-sandbox': sandbox },
      }),
    );
  const target = a.store
    .tenant(tenants.romashka)!
    .users.find((u) => u.state === 'active' && !u.isBoss && u.id !== accounts.admin.userId)!;
  t.same(
    (await search('a', target.email)).users.map((u: { id: string }) => u.id),
    [target.id],
  );
  const block = await app.inject({
    method: 'POST',
    url: '/__admin/users/block?sandbox=a',
    payload: { userId: target.id },
  });
  t.equal(block.statusCode, 200, block.body);
  t.same((await search('a', target.email)).users, [], 'a blocked user is no longer found in its sandbox');
  t.not(
    peopleIndex(a.store.tenant(tenants.romashka)!),
    peopleIndex(b.store.tenant(tenants.romashka)!),
    'sandbox a has its own index now',
  );
  t.equal(
    peopleIndex(b.store.tenant(tenants.romashka)!),
    peopleIndex(app.sandboxes.get('c').store.tenant(tenants.romashka)!),
    'the others still share one',
  );
});

t.test('kept lookups answer like the scans: grouped records, id sets, date ranges', async (t) => {
  const { groupedBy, includesId, newestWithin, compareStamp } = await import('../../src/domain/grouped.js');
  const { app, sandbox } = await ownSandbox();
  const tenant = app.sandboxes.get(sandbox).store.tenant(tenants.romashka)!;
  for (const u of tenant.users.slice(0, 30)) {
    t.same(
      groupedBy(tenant.notifications, (n) => n.userId, u.id),
      tenant.notifications.filter((n) => n.userId === u.id),
    );
    t.equal(
      includesId(tenant.learningCourses[0]!.assigneeIds, u.id),
      tenant.learningCourses[0]!.assigneeIds.includes(u.id),
    );
  }
  const awards = tenant.achievementAwards;
  for (const [from, to] of [
    ['2026-01-01', '2026-03-02T09:00:00.000Z'],
    ['2025-12-01T00:00:00.000Z', '2026-02-01'],
    ['0', '9'],
  ]) {
    t.same(
      newestWithin(awards, (a) => a.awardedAt, from!, to!),
      awards
        .filter((a) => a.awardedAt >= from! && a.awardedAt <= to!)
        .sort((a, b) => b.awardedAt.localeCompare(a.awardedAt)),
    );
  }
  const stamps = [
    ...tenant.users.map((u) => u.createdAt),
    ...tenant.users.map((u) => u.hiredAt),
    'x',
    '2026-01-01T00:00:00Z',
  ];
  t.same(
    [...stamps].sort(compareStamp),
    [...stamps].sort((a, b) => a.localeCompare(b)),
    'compareStamp orders like localeCompare',
  );
  // a record pushed later is found
  const me = tenant.users[0]!;
  const before = groupedBy(tenant.notifications, (n) => n.userId, me.id).length;
  app.sandboxes.get(sandbox).store.insert(tenant, 'notifications', {
    ...tenant.notifications.find((n) => n.userId === me.id)!,
    id: '00000000-0000-4000-8000-000000000001',
  });
  t.equal(groupedBy(tenant.notifications, (n) => n.userId, me.id).length, before + 1);
});

t.test('compareId orders record ids like localeCompare', async (t) => {
  const { compareId } = await import('../../src/domain/grouped.js');
  const sign = (n: number) => Math.sign(n);
  fc.assert(
    fc.property(fc.uuid(), fc.uuid(), (a, b) => sign(compareId(a, b)) === sign(a.localeCompare(b))),
    { numRuns: 2000 },
  );
  // any text of hexadecimal digits, hyphens and a few others, of any length: the same order as localeCompare
  const unit = fc.constantFrom(...'0123456789abcdef-AFgz_. é'.split(''));
  const idLike = fc.string({ unit, maxLength: 12 });
  fc.assert(
    fc.property(idLike, idLike, (a, b) => sign(compareId(a, b)) === sign(a.localeCompare(b))),
    { numRuns: 5000 },
  );
  fc.assert(
    fc.property(fc.uuid(), idLike, (a, tail) => {
      const b = a.slice(0, 20) + tail;
      return sign(compareId(a, b)) === sign(a.localeCompare(b));
    }),
    { numRuns: 2000 },
  );
  // not UUIDs (upper case, other shapes): localeCompare itself
  for (const [a, b] of [
    ['A1000000-0000-4000-8000-000000000001', 'a1000000-0000-4000-8000-000000000001'],
    ['idea-10', 'idea-9'],
    ['b', 'B'],
    ['', 'a'],
  ] as const)
    t.equal(compareId(a, b), a.localeCompare(b), `${a} vs ${b}`);
  const ids = Array.from(
    { length: 200 },
    (_, i) => `${(i * 7919).toString(16).padStart(8, '0')}-0000-4000-8000-00000000000${i % 10}`,
  );
  t.same(
    [...ids].sort(compareId),
    [...ids].sort((a, b) => a.localeCompare(b)),
    'the same order for a list',
  );
});

t.test('byStampThenId sorts as compareStamp, then compareId, do', async (t) => {
  const { byStampThenId, compareId, compareStamp } = await import('../../src/domain/grouped.js');
  // stamps of the canonical shape (many equal), and now and then one that is not; UUIDs, and now and then another id
  const stamp = fc.oneof(
    {
      weight: 9,
      arbitrary: fc.constantFrom('2026-03-02T09:00:00.000Z', '2026-03-02T09:00:01.000Z', '2025-12-31T23:59:59.999Z'),
    },
    { weight: 1, arbitrary: fc.constantFrom('2026-03-02', 'Soon', 'later', '') },
  );
  const id = fc.oneof({ weight: 9, arbitrary: fc.uuid() }, { weight: 1, arbitrary: fc.constantFrom('B', 'a-1', 'é') });
  const records = fc.array(fc.record({ stamp, id }), { maxLength: 40 });
  for (const first of ['oldest', 'newest'] as const) {
    const dir = first === 'oldest' ? 1 : -1;
    fc.assert(
      fc.property(records, (list) => {
        const sorted = byStampThenId(
          list,
          (r) => r.stamp,
          (r) => r.id,
          first,
        );
        const expected = [...list].sort((a, b) => dir * compareStamp(a.stamp, b.stamp) || compareId(a.id, b.id));
        return sorted.every((r, i) => r.stamp === expected[i]!.stamp && r.id === expected[i]!.id);
      }),
      { numRuns: 1000 },
    );
  }
  t.pass(`the same order as the comparators, oldest and newest first`);
});

t.test('a large tenant: cached answers equal the scans, and writes that matter are seen at once', async (t) => {
  const app = await build(t, { users: largeTenant });
  const s = await signIn(app);
  const { store, outbox } = app.sandboxes.get('default');
  const tenant = store.tenant(tenants.romashka)!;
  const ix = peopleIndex(tenant);
  const ctx: DomainContext = {
    store,
    now: new Date('2026-03-02T09:00:00Z'),
    outbox,
    baseUrl: 'http://x',
    effects: noEffects,
  };
  const me = tenant.users.find((u) => u.id === accounts.admin.userId)!;
  const url = 'http://x/user/index';
  const get = async (path: string) => json(await app.inject({ url: path, headers: s.headers }));
  const indexPath = `/user/index?last_name=${encodeURIComponent('ов')}&reg_status_id=2&sort=-created_at&page=3`;
  // the scan of the same data, without an index (a copy of the tenant's users is below no threshold, so scan directly)
  const scanIndex = () => {
    const users = tenant.users
      .filter((u) => u.state !== 'hidden' && u.regStatusId === 2 && matchesText('ов', [u.lastName]))
      .sort(
        (a, b) =>
          -String(a.createdAt).localeCompare(String(b.createdAt), ['ru', 'en'], { sensitivity: 'base', numeric: true }),
      );
    return users.slice(40, 60).map((u) => u.id);
  };
  for (let round = 0; round < 2; round++)
    t.same(
      (await get(indexPath)).data.map((u: { id: string }) => u.id),
      scanIndex(),
      `user index, round ${round}`,
    );
  t.equal(
    userIndex(ctx, tenant, me, { last_name: 'ов', reg_status_id: 2, sort: '-created_at', page: '3' }, url)._meta
      .totalCount,
    tenant.users.filter((u) => u.state !== 'hidden' && u.regStatusId === 2 && matchesText('ов', [u.lastName])).length,
  );
  const q = 'отдел';
  const scanUsers = tenant.users
    .filter((u) => listed(u) && matchesText(q, [u.name, u.position]))
    .sort((a, b) => a.name.localeCompare(b.name, ['ru', 'en']))
    .slice(0, 50)
    .map((u) => u.id);
  for (let round = 0; round < 2; round++) {
    const items = (await get(`/department/search?q=${encodeURIComponent(q)}`)).items;
    t.same(
      items.filter((i: { type: string }) => i.type === 'user').map((i: { id: string }) => i.id),
      scanUsers,
      `department search users, round ${round}`,
    );
    t.same(
      items.filter((i: { type: string }) => i.type === 'department').map((i: { id: string }) => i.id),
      tenant.departments
        .filter((d) => matchesText(q, [d.name]))
        .slice(0, 20)
        .map((d) => d.id),
      `department search departments, round ${round}`,
    );
  }
  // block one of the users on that page: the cached answer must not be served
  const shown = (await get(indexPath)).data[0].id as string;
  const block = await app.inject({
    method: 'POST',
    url: '/__admin/users/block',
    payload: { tenantId: tenants.romashka, userId: shown },
  });
  t.equal(block.statusCode, 200, block.body);
  t.same(
    (await get(indexPath)).data.map((u: { id: string }) => u.id),
    scanIndex(),
    'user index after a block',
  );
  // a write that does not touch users keeps the index
  const before = peopleIndex(tenant);
  const seen = await app.inject({ method: 'POST', url: '/notifications/mark-seen-all', headers: s.headers });
  t.ok(seen.statusCode < 500);
  t.equal(peopleIndex(tenant), before, 'the index survives an unrelated write');
  // set-main employment moves the user: the structure shows it in the new department at once
  const second = tenant.employments.find((e) => e.userId === me.id && !e.isMain && e.statusId !== 3)!;
  t.ok(second);
  const res = await app.inject({
    method: 'POST',
    url: '/employment/set-main',
    headers: s.headers,
    payload: { employment_id: second.id },
  });
  t.equal(res.statusCode, 200, res.body);
  const node = await get(`/department/tree-node?id=${second.departmentId}`);
  t.ok(
    node.items.some((i: { id: string }) => i.id === me.id),
    'the user is listed in the department of the new main employment',
  );
  t.not(peopleIndex(tenant), ix, 'the index was rebuilt');
  t.same(
    departmentTreeNode(ctx, tenant, me, { id: second.departmentId })
      .items.filter((i) => i.type === 'user')
      .map((i) => i.id),
    tenant.users
      .filter((u) => listed(u) && u.departmentId === second.departmentId)
      .sort((a, b) => Number(b.isBoss) - Number(a.isBoss) || a.name.localeCompare(b.name, ['ru', 'en']))
      .map((u) => u.id),
  );
});

t.test(
  'the id lookup carries over writes of user records: every user found as the store has it, across many writes',
  async (t) => {
    const { app } = await ownSandbox();
    const store = app.sandboxes.get('carry').store;
    const tenant = () => store.tenant(tenants.romashka)!;
    void peopleIndex(tenant()).byId; // built once; every later write carries it over
    const users = tenant().users;
    for (let i = 0; i < 80; i++) {
      const u = tenant().users[(i * 7) % users.length]!;
      if (i % 10 === 9)
        store.updateWhere(
          tenant(),
          'users',
          (x) => x.id === u.id || x.id === users[0]!.id,
          () => ({ statusText: `many ${i}` }),
        );
      else store.update(tenant(), 'users', u, { statusText: `write ${i}` });
      const lookup = peopleIndex(tenant()).byId;
      const wrong = tenant().users.filter((x) => lookup.get(x.id) !== x);
      if (wrong.length > 0) t.fail(`after write ${i}: ${wrong.length} users looked up as an older record`);
    }
    t.equal(
      peopleIndex(tenant()).byId.get(users[7]!.id)!.statusText,
      'write 1',
      'a user written early keeps its record through later writes and flattenings',
    );
    t.equal(
      peopleIndex(tenant()).byId.get(users[0]!.id)!.statusText,
      'many 79',
      'a user written many times: the newest record',
    );
    t.equal(peopleIndex(tenant()).byId.get('no-such-user'), undefined);
    // the base world's lookup is untouched
    const base = app.sandboxes.get('untouched').store.tenant(tenants.romashka)!;
    t.equal(peopleIndex(base).byId.get(users[7]!.id), users[7], 'another sandbox still sees the base record');
  },
);
