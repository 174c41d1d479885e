import t from 'tap';
import { accounts, type build, expectError, json, signIn, tenants, sharedApp } from '../helper.js';

// one app for the file's tests, each in a sandbox of its own
const ownSandbox = sharedApp(t);

const tenantOf = (app: Awaited<ReturnType<typeof build>>, sandbox: string, id: string = tenants.romashka) =>
  app.sandboxes.get(sandbox).store.tenant(id)!;
const unknownUuid = '00000000-0000-4000-8000-00000000dead';

t.test('user/profile: success, 400, 404, 401, hidden user and another tenant are 404', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const res = await inject({ url: `/user/profile?id=${accounts.admin.userId}`, headers: s.headers });
  t.equal(res.statusCode, 200);
  t.match(json(res), {
    id: accounts.admin.userId,
    name: 'Петров Иван Сергеевич',
    email: accounts.admin.email,
    isBoss: true,
    faceUrl: `http://localhost:80/images/avatar/${accounts.admin.userId}.svg`,
    department: { name: 'Дирекция по персоналу' },
    mainEmployment: { is_main: true, user_id: accounts.admin.userId },
    statusText: '',
    activeStatusTypes: [],
  });
  expectError(t, await inject({ url: '/user/profile?id=not-a-uuid', headers: s.headers }), 400);
  expectError(t, await inject({ url: '/user/profile', headers: s.headers }), 400);
  expectError(t, await inject({ url: `/user/profile?id=${unknownUuid}`, headers: s.headers }), 404);
  expectError(t, await inject({ url: `/user/profile?id=${accounts.nwAdmin.userId}`, headers: s.headers }), 404);
  const hidden = tenantOf(app, sandbox).users.find((u) => u.state === 'hidden')!;
  expectError(t, await inject({ url: `/user/profile?id=${hidden.id}`, headers: s.headers }), 404);
  expectError(t, await inject({ url: `/user/profile?id=${accounts.admin.userId}` }), 401);
  expectError(
    t,
    await inject({
      url: `/user/profile?id=${accounts.admin.userId}`,
      headers: { ...s.headers, 'x-service-session-code': 'wrong' },
    }),
    401,
  );
});

t.test('user/items: case-insensitive Cyrillic search, same avatar as the profile', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const res = json(await inject({ url: `/user/items?q=${encodeURIComponent('ПЕТРОВ иван')}`, headers: s.headers }));
  const me = res.data.find((u: { id: string }) => u.id === accounts.admin.userId);
  t.same(me, {
    id: accounts.admin.userId,
    name: 'Петров Иван Сергеевич',
    faceUrl: `http://localhost:80/images/avatar/${accounts.admin.userId}.svg`,
  });
  t.ok(res.data.every((u: { name: string }) => /петров/i.test(u.name) && /иван/i.test(u.name)));
  t.equal(json(await inject({ url: '/user/items?q=zzzqqq', headers: s.headers })).data.length, 0);
  const nw = await signIn(app, accounts.nwAdmin, { sandbox });
  const walker = json(await inject({ url: '/user/items?q=walker', headers: nw.headers }));
  t.ok(
    walker.data.some((u: { id: string }) => u.id === accounts.nwAdmin.userId),
    'Latin search',
  );
  t.notOk(
    json(await inject({ url: '/user/items?q=петров', headers: nw.headers })).data.length,
    'only the caller tenant',
  );
});

t.test('user/index: paging, strict per-page, sort, filters, ranges', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const get = (q: string) => inject({ url: `/user/index?${q}`, headers: s.headers });
  const page = json(await get('per-page=5&page=2'));
  t.equal(page.data.length, 5);
  t.match(page._meta, { currentPage: 2, perPage: 5, totalCount: Number });
  t.match(page._links.next, /page=3/);
  t.equal(json(await get(''))._meta.perPage, 20, 'default per-page 20');
  expectError(t, await get('per-page=21'), 400);
  expectError(t, await get('per-page=0'), 400);
  expectError(t, await get('per-page=abc'), 400);
  const desc = json(await get('sort=-created_at&per-page=20')).data.map((u: { created_at: string }) => u.created_at);
  t.same(desc, [...desc].sort().reverse());
  t.same(
    json(await get('sort=%2Bemail')).data,
    json(await get('sort=+email')).data,
    'an unencoded + reads as ascending',
  );
  const asc = json(await get('sort=email')).data.map((u: { email: string }) => u.email);
  t.same(
    asc,
    [...asc].sort((a: string, b: string) => a.localeCompare(b, ['ru', 'en'], { sensitivity: 'base', numeric: true })),
  );
  expectError(t, await get('sort=password'), 400);

  const me = json(await get(`id=${accounts.admin.userId}`));
  t.equal(me._meta.totalCount, 1);
  t.match(me.data[0], {
    id: accounts.admin.userId,
    email: accounts.admin.email,
    first_name: 'Иван',
    last_name: 'Петров',
  });
  t.equal(json(await get(`email=IVAN.PETROV`)).data[0].id, accounts.admin.userId);
  t.ok(
    json(await get(`first_name=${encodeURIComponent('иван')}`)).data.every((u: { first_name: string }) =>
      /иван/i.test(u.first_name),
    ),
  );
  const tenant = tenantOf(app, sandbox);
  const dep = tenant.users[5]!.departmentId;
  const byDep = json(await get(`department_id=${dep}`));
  t.ok(byDep.data.length > 0 && byDep.data.every((u: { department_id: string }) => u.department_id === dep));
  const group = tenant.userGroups[1]!;
  t.equal(
    json(await get(`group_id=${group.id}&per-page=1`))._meta.totalCount,
    group.memberIds.filter((id) => tenant.users.find((u) => u.id === id)?.state !== 'hidden').length,
  );
  t.ok(json(await get('reg_status_id=1')).data.every((u: { reg_status_id: number }) => u.reg_status_id === 1));
  t.ok(
    json(await get(`position=${encodeURIComponent('инженер')}`)).data.every((u: { position: string }) =>
      /инженер/i.test(u.position),
    ),
  );
  const recent = json(await get('created_at=2026-02-01|2026-03-02'));
  t.ok(recent.data.length > 0 && recent.data.every((u: { created_at: string }) => u.created_at >= '2026-02-01'));
  t.ok(
    json(await get('last_login_at=2026-02-20|')).data.every(
      (u: { last_login_at: string | null }) => u.last_login_at !== null && u.last_login_at >= '2026-02-20',
    ),
  );
  expectError(t, await get(`created_at=${encodeURIComponent('2026-01-01T10:00|2026-02-01')}`), 422);
  expectError(t, await get('created_at=2026-13-01|'), 400);
  expectError(t, await get('group_id=bad'), 400);
});

t.test('user/search: limit default 10, no upper bound, offset; empty without show-structure-names', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const def = json(await inject({ url: '/user/search?q=а', headers: s.headers }));
  t.equal(def.q, 'а');
  t.equal(def.users.length, 10);
  t.match(def.users[0], {
    id: String,
    name: String,
    position: String,
    departmentName: String,
    isBoss: Boolean,
    faceUrl: /^http/,
  });
  const big = json(await inject({ url: '/user/search?q=&limit=150', headers: s.headers }));
  t.equal(big.users.length, 150, 'limit above any page size is honoured');
  const second = json(await inject({ url: '/user/search?q=а&limit=5&offset=5', headers: s.headers }));
  t.same(
    second.users.map((u: { id: string }) => u.id),
    def.users.slice(5, 10).map((u: { id: string }) => u.id),
  );
  expectError(t, await inject({ url: '/user/search?q=а&limit=-1', headers: s.headers }), 400);
  const none = await signIn(app, accounts.noRights, { sandbox });
  const res = await inject({ url: '/user/search?q=а', headers: none.headers });
  t.equal(res.statusCode, 200);
  t.same(json(res), { q: 'а', users: [] });
});

t.test('employment: index, set-main changes the profile; 404 for a foreign or unknown employment', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const idx = json(await inject({ url: '/employment/index', headers: s.headers }));
  t.ok(idx.data.length >= 2, 'the admin holds a second employment');
  t.equal(idx.data[0].is_main, true);
  t.match(idx._meta, { totalCount: idx.data.length });
  const second = idx.data.find((e: { is_main: boolean }) => !e.is_main);
  const res = await inject({
    method: 'POST',
    url: '/employment/set-main',
    headers: s.headers,
    payload: { employment_id: second.id },
  });
  t.equal(res.statusCode, 200);
  t.match(json(res), {
    success: true,
    message: { type: 'success', text: String },
    errors: null,
    data: { id: second.id, is_main: true },
  });
  const after = json(await inject({ url: '/employment/index', headers: s.headers }));
  t.same(
    after.data.filter((e: { is_main: boolean }) => e.is_main).map((e: { id: string }) => e.id),
    [second.id],
  );
  const profile = json(await inject({ url: `/user/profile?id=${accounts.admin.userId}`, headers: s.headers }));
  t.equal(profile.mainEmployment.id, second.id);
  t.equal(profile.department.id, second.department.id);

  const other = tenantOf(app, sandbox).employments.find((e) => e.userId !== accounts.admin.userId)!;
  expectError(
    t,
    await inject({
      method: 'POST',
      url: '/employment/set-main',
      headers: s.headers,
      payload: { employment_id: other.id },
    }),
    404,
  );
  expectError(
    t,
    await inject({
      method: 'POST',
      url: '/employment/set-main',
      headers: s.headers,
      payload: { employment_id: unknownUuid },
    }),
    404,
  );
  expectError(
    t,
    await inject({
      method: 'POST',
      url: '/employment/set-main',
      headers: s.headers,
      payload: { employment_id: 'x' },
    }),
    400,
  );
  expectError(t, await inject({ url: '/employment/index' }), 401);
});

t.test('account: status text and active types show in profile and dashboard', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const text = await inject({
    method: 'POST',
    url: '/account/status-text',
    headers: s.headers,
    payload: { activeTypes: 'В отпуске до 10 марта' },
  });
  t.same(json(text), { activeTypes: 'В отпуске до 10 марта' });
  const types = await inject({
    method: 'POST',
    url: '/account/status-active-types',
    headers: s.headers,
    payload: { activeTypes: ['vacation', 'remote'] },
  });
  t.same(json(types), { statusTypes: ['vacation', 'remote'] });
  const profile = json(await inject({ url: `/user/profile?id=${accounts.admin.userId}`, headers: s.headers }));
  t.equal(profile.statusText, 'В отпуске до 10 марта');
  t.same(profile.activeStatusTypes, [
    { id: 'vacation', name: 'В отпуске' },
    { id: 'remote', name: 'Работает удалённо' },
  ]);
  const dash = json(await inject({ url: '/dashboard?info=profileBrief', headers: s.headers }));
  t.match(dash.profileBrief, {
    statusText: 'В отпуске до 10 марта',
    activeStatusTypes: [{ id: 'vacation' }, { id: 'remote' }],
  });

  const bad = expectError(
    t,
    await inject({
      method: 'POST',
      url: '/account/status-active-types',
      headers: s.headers,
      payload: { activeTypes: ['vacation', 'on-the-moon'] },
    }),
    400,
  );
  t.match(bad.message, /on-the-moon/);
  t.same(
    json(await inject({ url: `/user/profile?id=${accounts.admin.userId}`, headers: s.headers })).activeStatusTypes.map(
      (x: { id: string }) => x.id,
    ),
    ['vacation', 'remote'],
    'unchanged after a 400',
  );
  expectError(
    t,
    await inject({
      method: 'POST',
      url: '/account/status-active-types',
      headers: s.headers,
      payload: { activeTypes: { a: 1 } },
    }),
    400,
  );
  expectError(t, await inject({ method: 'POST', url: '/account/status-text', headers: s.headers, payload: {} }), 400);
  t.same(
    json(
      await inject({
        method: 'POST',
        url: '/account/status-active-types',
        headers: s.headers,
        payload: { activeTypes: [] },
      }),
    ),
    { statusTypes: [] },
  );
});

t.test('lookups: user groups (q, only_with_calendar_events), meeting places', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const all = json(await inject({ url: '/user-group/items', headers: s.headers }));
  t.equal(all.data.length, 7);
  t.match(all.data[0], { id: String, name: 'Все сотрудники', faceUrl: /^http:\/\/localhost:80\/images\/user-group\// });
  const withEvents = json(await inject({ url: '/user-group/items?only_with_calendar_events=1', headers: s.headers }));
  t.same(
    withEvents.data.map((g: { id: string }) => g.id),
    tenantOf(app, sandbox).calendarUserGroupIds,
  );
  t.equal(
    json(await inject({ url: `/user-group/items?q=${encodeURIComponent('РУКОВОД')}`, headers: s.headers })).data[0]
      .name,
    'Руководители',
  );
  expectError(t, await inject({ url: '/user-group/items?only_with_calendar_events=2', headers: s.headers }), 400);
  const places = json(
    await inject({ url: `/meeting-place/items?q=${encodeURIComponent('переговорная')}`, headers: s.headers }),
  );
  t.equal(places.data.length, 2);
  t.same(Object.keys(places.data[0]).sort(), ['id', 'name']);
  expectError(t, await inject({ url: '/meeting-place/items', headers: {} }), 401);
});

t.test('department: tree-node root, child, 400, 404; search', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const root = json(await inject({ url: '/department/tree-node', headers: s.headers }));
  t.match(root, { name: 'Компания', path: 'Компания' });
  const top = root.items.filter((i: { type: string }) => i.type === 'department');
  t.equal(top.length, 5);
  t.ok(top.every((i: { employmentsCount: number; empty: boolean }) => i.employmentsCount > 0 && i.empty === false));
  t.match(
    root.items.find((i: { type: string }) => i.type === 'user'),
    { isBoss: true, position: /^Руководитель/ },
    'the head of the company',
  );
  const people = root.items.find((i: { name: string }) => i.name === 'Дирекция по персоналу');
  const node = json(await inject({ url: `/department/tree-node?id=${people.id}`, headers: s.headers }));
  const me = node.items.find((i: { id: string }) => i.id === accounts.admin.userId);
  t.match(me, {
    type: 'user',
    isBoss: true,
    name: 'Петров Иван Сергеевич',
    faceUrl: `http://localhost:80/images/avatar/${accounts.admin.userId}.svg`,
  });
  t.notOk('employmentsCount' in me);
  const deps = node.items.filter((i: { type: string }) => i.type === 'department');
  t.ok(deps.length >= 3);
  t.notOk('isBoss' in deps[0]);
  expectError(t, await inject({ url: '/department/tree-node?id=nope', headers: s.headers }), 400);
  expectError(t, await inject({ url: `/department/tree-node?id=${unknownUuid}`, headers: s.headers }), 404);

  const found = json(
    await inject({ url: `/department/search?q=${encodeURIComponent('ОТДЕЛ ПРОДАЖ')}`, headers: s.headers }),
  );
  t.equal(found.q, 'ОТДЕЛ ПРОДАЖ');
  t.ok(found.items.some((i: { type: string; name: string }) => i.type === 'department' && i.name === 'Отдел продаж'));
  const person = json(
    await inject({ url: `/department/search?q=${encodeURIComponent('петров иван')}`, headers: s.headers }),
  );
  t.ok(person.items.some((i: { id: string; type: string }) => i.id === accounts.admin.userId && i.type === 'user'));
  t.same(json(await inject({ url: '/department/search', headers: s.headers })), { q: '', items: [] });
});
