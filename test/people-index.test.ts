// The indexes of large tenants give the same answers as the scans, and see every change made through the API.
import t from 'tap';
import { accounts, build, json, signIn, tenants } from './helper.js';
import { PeopleIndex, indexedFrom, peopleIndex } from '../src/domain/people-index.js';
import { dataChanged } from '../src/store/data-version.js';
import { birthdaysFast, departmentItemFast, departmentPeopleFast, departmentSearchUsersFast, myTeamFast, userIndexFast, userSearchFast } from '../src/domain/people-fast.js';
import { departmentSearch, departmentTreeNode, listed, userIndex, userSearch, userItem } from '../src/domain/people.js';
import { matchesText } from '../src/domain/lists.js';
import type { DomainContext } from '../src/domain/context.js';

const words = ['ов', 'иван', 'ЕЛЕНА', 'отдел', 'а е', 'руковод', 'zzz', '', 'romashka'];

t.test('fast paths answer like the scans (default data, index built directly)', async (t) => {
  const app = await build(t);
  const data = app.sandboxes.get('default').data;
  for (const tenantId of [tenants.romashka, tenants.northwind]) {
    const tenant = data.tenants[tenantId]!;
    t.ok(tenant.users.length < indexedFrom, 'default data is scanned');
    t.equal(peopleIndex(data, tenant), null);
    const ix = new PeopleIndex(tenant, 0);
    const ctx: DomainContext = { data, now: new Date('2026-03-02T09:00:00Z'), outbox: app.sandboxes.get('default').outbox, baseUrl: 'http://x' };
    const me = tenant.users[0]!;
    for (const q of words) {
      for (const [limit, offset] of [[10, 0], [5, 3], [50, 0]] as const) {
        t.same(userSearchFast(ctx, tenant, ix, q, limit, offset), userSearch(ctx, tenant, me, true, { q, limit, offset }).users, `user search "${q}" ${limit}/${offset}`);
      }
      if (q.trim() !== '') {
        const slow = departmentSearch(ctx, tenant, me, { q });
        const deps = tenant.departments.filter((d) => matchesText(q, [d.name])).slice(0, 20).map((d) => departmentItemFast(ix, d));
        t.same([...deps, ...departmentSearchUsersFast(ctx, tenant, ix, q)], slow.items, `department search "${q}"`);
      }
    }
    for (const dep of [undefined, ...tenant.departments.slice(0, 12).map((d) => d.id)]) {
      const slow = departmentTreeNode(ctx, tenant, me, { id: dep });
      const node = tenant.departments.find((d) => (dep ? d.id === dep : d.parentId === null))!;
      const children = tenant.departments.filter((d) => d.parentId === node.id).sort((a, b) => a.name.localeCompare(b.name, ['ru', 'en'], { numeric: true }));
      t.same([...children.map((d) => departmentItemFast(ix, d)), ...departmentPeopleFast(ix, node.id).map((u) => userItem(ctx, tenant, u))], slow.items, `tree node ${dep ?? 'root'}`);
    }
    const url = 'http://x/user/index';
    for (const q of [{}, { sort: '-created_at', page: '3' }, { last_name: 'ов', reg_status_id: 2, sort: 'email' }, { name: 'а', position: 'е', sort: '-last_login_at', 'per-page': '7', page: '2' },
      { department_id: tenant.users[5]!.departmentId, sort: 'reg_status_id' }, { created_at: '2020-01-01|2025-12-31', email: 'a' }]) {
      const slow = userIndex(ctx, tenant, me, q, url);
      const sorted = ix.sorted((q as { sort?: string }).sort ?? 'name', {
        id: (u) => u.id, email: (u) => u.email, name: (u) => u.name, first_name: (u) => u.firstName, last_name: (u) => u.lastName,
        position: (u) => u.position, reg_status_id: (u) => u.regStatusId, created_at: (u) => u.createdAt, last_login_at: (u) => u.lastLoginAt,
      });
      const r = q as Record<string, string | undefined>;
      const fast = userIndexFast(ctx, tenant, ix, sorted, {
        ids: null, departments: r.department_id ? new Set([r.department_id]) : null, groupMembers: null, regStatusId: (q as { reg_status_id?: number }).reg_status_id,
        created: r.created_at ? { from: r.created_at.split('|')[0]!, to: r.created_at.split('|')[1]! } : null, lastLogin: null,
        text: [['email', r.email], ['name', r.name], ['firstName', r.first_name], ['lastName', r.last_name], ['position', r.position]],
      }, { page: r.page, perPage: r['per-page'] }, url);
      t.same(fast, slow, `user index ${JSON.stringify(q)}`);
    }
    for (const u of tenant.users.slice(0, 40)) {
      const own = tenant.departments.find((d) => d.id === u.departmentId);
      const heads = new Set(own?.headId === u.id ? tenant.departments.filter((d) => d.parentId === own.id && d.headId).map((d) => d.headId) : []);
      const slow = tenant.users.filter((x) => listed(x) && x.id !== u.id && (x.departmentId === u.departmentId || heads.has(x.id)))
        .sort((a, b) => Number(b.isBoss) - Number(a.isBoss) || a.name.localeCompare(b.name, ['ru', 'en']));
      t.same(myTeamFast(ix, u, heads).map((x) => x.id), slow.map((x) => x.id), 'my team');
      const md = u.birthday.slice(5);
      t.same(birthdaysFast(ix, md).map((x) => x.id), tenant.users.filter((x) => listed(x) && x.birthday.slice(5) === md).sort((a, b) => a.name.localeCompare(b.name, ['ru', 'en'])).map((x) => x.id), 'birthdays');
    }
    dataChanged(data);
  }
});

t.test(`a tenant of ${indexedFrom}+ users is indexed, and the index sees writes`, async (t) => {
  const app = await build(t, { users: indexedFrom });
  const s = await signIn(app);
  const tenant = app.sandboxes.get('default').data.tenants[tenants.romashka]!;
  t.ok(peopleIndex(app.sandboxes.get('default').data, tenant));
  const target = tenant.users.find((u) => u.state === 'active' && !u.isBoss && u.id !== accounts.admin.userId)!;
  const search = async () => json(await app.inject({ url: `/user/search?q=${encodeURIComponent(target.email)}`, headers: s.headers })).users.map((u: { id: string }) => u.id);
  t.same(await search(), [target.id]);
  const block = await app.inject({ method: 'POST', url: '/__admin/users/block', payload: { tenantId: tenants.romashka, userId: target.id } });
  t.equal(block.statusCode, 200, block.body);
  t.same(await search(), [], 'a blocked user is no longer found');
  const me = json(await app.inject({ url: `/user/search?q=${encodeURIComponent('Петров Иван')}`, headers: s.headers })).users;
  t.ok(me.some((u: { id: string }) => u.id === accounts.admin.userId));
  const tree = json(await app.inject({ url: '/department/tree-node', headers: s.headers }));
  t.ok(tree.items.length > 0);
  const dash = await app.inject({ url: '/dashboard?widgets=myTeam,updBirthday,updAchievements', headers: s.headers });
  t.equal(dash.statusCode, 200);
});

t.test('kept lookups answer like the scans: grouped records, id sets, date ranges', async (t) => {
  const { groupedBy, includesId, newestWithin, compareStamp } = await import('../src/domain/grouped.js');
  const app = await build(t);
  const tenant = app.sandboxes.get('default').data.tenants[tenants.romashka]!;
  for (const u of tenant.users.slice(0, 30)) {
    t.same(groupedBy(tenant.notifications, (n) => n.userId, u.id), tenant.notifications.filter((n) => n.userId === u.id));
    t.equal(includesId(tenant.learningCourses[0]!.assigneeIds, u.id), tenant.learningCourses[0]!.assigneeIds.includes(u.id));
  }
  const awards = tenant.achievementAwards;
  for (const [from, to] of [['2026-01-01', '2026-03-02T09:00:00.000Z'], ['2025-12-01T00:00:00.000Z', '2026-02-01'], ['0', '9']]) {
    t.same(newestWithin(awards, (a) => a.awardedAt, from!, to!), awards.filter((a) => a.awardedAt >= from! && a.awardedAt <= to!).sort((a, b) => b.awardedAt.localeCompare(a.awardedAt)));
  }
  const stamps = [...tenant.users.map((u) => u.createdAt), ...tenant.users.map((u) => u.hiredAt), 'x', '2026-01-01T00:00:00Z'];
  t.same([...stamps].sort(compareStamp), [...stamps].sort((a, b) => a.localeCompare(b)), 'compareStamp orders like localeCompare');
  // a record pushed later is found
  const me = tenant.users[0]!;
  const before = groupedBy(tenant.notifications, (n) => n.userId, me.id).length;
  tenant.notifications.push({ ...tenant.notifications.find((n) => n.userId === me.id)!, id: '00000000-0000-4000-8000-000000000001' });
  t.equal(groupedBy(tenant.notifications, (n) => n.userId, me.id).length, before + 1);
});

t.test('a large tenant: cached answers equal the scans, and writes that matter are seen at once', async (t) => {
  const app = await build(t, { users: indexedFrom });
  const s = await signIn(app);
  const data = app.sandboxes.get('default').data;
  const tenant = data.tenants[tenants.romashka]!;
  const ix = peopleIndex(data, tenant)!;
  const ctx: DomainContext = { data, now: new Date('2026-03-02T09:00:00Z'), outbox: app.sandboxes.get('default').outbox, baseUrl: 'http://x' };
  const me = tenant.users[0]!;
  const url = 'http://x/user/index';
  const get = async (path: string) => json(await app.inject({ url: path, headers: s.headers }));
  const indexPath = `/user/index?last_name=${encodeURIComponent('ов')}&reg_status_id=2&sort=-created_at&page=3`;
  // the scan of the same data, without an index (a copy of the tenant's users is below no threshold, so scan directly)
  const scanIndex = () => {
    const users = tenant.users.filter((u) => u.state !== 'hidden' && u.regStatusId === 2 && matchesText('ов', [u.lastName]))
      .sort((a, b) => -String(a.createdAt).localeCompare(String(b.createdAt), ['ru', 'en'], { sensitivity: 'base', numeric: true }));
    return users.slice(40, 60).map((u) => u.id);
  };
  for (let round = 0; round < 2; round++) t.same((await get(indexPath)).data.map((u: { id: string }) => u.id), scanIndex(), `user index, round ${round}`);
  t.equal(userIndex(ctx, tenant, me, { last_name: 'ов', reg_status_id: 2, sort: '-created_at', page: '3' }, url)._meta.totalCount,
    tenant.users.filter((u) => u.state !== 'hidden' && u.regStatusId === 2 && matchesText('ов', [u.lastName])).length);
  const q = 'отдел';
  const scanUsers = tenant.users.filter((u) => listed(u) && matchesText(q, [u.name, u.position])).sort((a, b) => a.name.localeCompare(b.name, ['ru', 'en'])).slice(0, 50).map((u) => u.id);
  for (let round = 0; round < 2; round++) {
    const items = (await get(`/department/search?q=${encodeURIComponent(q)}`)).items;
    t.same(items.filter((i: { type: string }) => i.type === 'user').map((i: { id: string }) => i.id), scanUsers, `department search users, round ${round}`);
    t.same(items.filter((i: { type: string }) => i.type === 'department').map((i: { id: string }) => i.id),
      tenant.departments.filter((d) => matchesText(q, [d.name])).slice(0, 20).map((d) => d.id), `department search departments, round ${round}`);
  }
  // block one of the users on that page: the cached answer must not be served
  const shown = (await get(indexPath)).data[0].id as string;
  const block = await app.inject({ method: 'POST', url: '/__admin/users/block', payload: { tenantId: tenants.romashka, userId: shown } });
  t.equal(block.statusCode, 200, block.body);
  t.same((await get(indexPath)).data.map((u: { id: string }) => u.id), scanIndex(), 'user index after a block');
  // a write that does not touch users keeps the index
  const before = peopleIndex(data, tenant);
  const seen = await app.inject({ method: 'POST', url: '/notifications/mark-seen-all', headers: s.headers });
  t.ok(seen.statusCode < 500);
  t.equal(peopleIndex(data, tenant), before, 'the index survives an unrelated write');
  // set-main employment moves the user: the structure shows it in the new department at once
  const second = tenant.employments.find((e) => e.userId === me.id && !e.isMain && e.statusId !== 3)!;
  t.ok(second);
  const res = await app.inject({ method: 'POST', url: '/employment/set-main', headers: s.headers, payload: { employment_id: second.id } });
  t.equal(res.statusCode, 200, res.body);
  const node = await get(`/department/tree-node?id=${second.departmentId}`);
  t.ok(node.items.some((i: { id: string }) => i.id === me.id), 'the user is listed in the department of the new main employment');
  t.not(peopleIndex(data, tenant), ix, 'the index was rebuilt');
  t.same(departmentTreeNode(ctx, tenant, me, { id: second.departmentId }).items.filter((i) => i.type === 'user').map((i) => i.id),
    tenant.users.filter((u) => listed(u) && u.departmentId === second.departmentId)
      .sort((a, b) => Number(b.isBoss) - Number(a.isBoss) || a.name.localeCompare(b.name, ['ru', 'en'])).map((u) => u.id));
});
