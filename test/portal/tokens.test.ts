import t from 'tap';
import { accounts, type build, setUser, expectError, json, signIn, tenants, sharedApp } from '../helper.js';
import { blockUser } from '../../src/domain/tokens.js';
import { hashSecret } from '../../src/store/ids.js';

// one app for the file's tests, each in a sandbox of its own
const ownSandbox = sharedApp(t);

const tenantOf = (app: Awaited<ReturnType<typeof build>>, sandbox: string, id: string = tenants.romashka) =>
  app.sandboxes.get(sandbox).store.tenant(id)!;

t.test('create → list (no clear value) → use as Bearer → revoke → 401', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const created = await inject({
    method: 'POST',
    url: '/user-api-token/create',
    headers: s.headers,
    payload: { name: 'CI', expiresAt: '2026-12-31T00:00:00Z' },
  });
  t.equal(created.statusCode, 200);
  const body = json(created);
  t.equal(body.success, true);
  const token: string = body.data.token;
  t.match(token, /^pmt_[0-9a-f-]{36}_[A-Za-z0-9_-]+$/);
  t.equal(body.data.record.expires_at, '2026-12-31T00:00:00.000Z');
  const stored = tenantOf(app, sandbox).personalTokens.find((x) => x.id === body.data.record.id)!;
  t.equal(stored.secretHash, hashSecret(token), 'stored hashed');
  t.notOk(JSON.stringify(tenantOf(app, sandbox)).includes(token), 'the clear value is nowhere in the store');

  const list = await inject({ url: '/user-api-token', headers: s.headers });
  t.equal(list.statusCode, 200);
  t.notOk(list.body.includes(token), 'the list never shows the clear value');
  t.equal(json(list).data.length, 1);
  t.match(json(list).data[0], { id: stored.id, name: 'CI', active: true, last_used_at: null });

  const bearer = { authorization: `Bearer ${token}` };
  const info = await inject({ url: '/mobile/tenant-info', headers: bearer });
  t.equal(info.statusCode, 200, 'works as Bearer on a session operation');
  t.equal(
    tenantOf(app, sandbox).personalTokens.find((x) => x.id === stored.id)!.lastUsedAt,
    '2026-03-02T09:00:00.000Z',
  );

  // token management refuses Bearer
  for (const [method, url] of [
    ['GET', '/user-api-token'],
    ['POST', '/user-api-token/create'],
    ['POST', '/user-api-token/revoke'],
    ['GET', '/admin/user-api-token'],
    ['POST', '/admin/user-api-token/revoke'],
  ] as const) {
    expectError(
      t,
      await inject({
        method,
        url,
        headers: bearer,
        payload: method === 'POST' ? { id: stored.id, name: 'x' } : undefined,
      }),
      403,
    );
  }

  const revoked = await inject({
    method: 'POST',
    url: '/user-api-token/revoke',
    headers: s.headers,
    payload: { id: stored.id },
  });
  t.match(json(revoked), {
    success: true,
    data: { id: stored.id, active: false, revoked_at: '2026-03-02T09:00:00.000Z' },
  });
  expectError(t, await inject({ url: '/mobile/tenant-info', headers: bearer }), 401);
  const again = await inject({
    method: 'POST',
    url: '/user-api-token/revoke',
    headers: s.headers,
    payload: { id: stored.id },
  });
  t.equal(json(again).success, true, 'revoking twice is harmless');
});

t.test('create: form validation is 200 with success false', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const noName = await inject({ method: 'POST', url: '/user-api-token/create', headers: s.headers, payload: {} });
  t.equal(noName.statusCode, 200);
  t.match(json(noName), { success: false, errors: [/name/] });
  const past = await inject({
    method: 'POST',
    url: '/user-api-token/create',
    headers: s.headers,
    payload: { name: 'a', expiresAt: '2026-01-01T00:00:00Z' },
  });
  t.match(json(past), { success: false, errors: [/future/] });
  const bad = await inject({
    method: 'POST',
    url: '/user-api-token/create',
    headers: s.headers,
    payload: { name: 'a', expiresAt: 'tomorrow' },
  });
  t.match(json(bad), { success: false, errors: [/ISO 8601/] });
  t.equal(tenantOf(app, sandbox).personalTokens.length, 0);
});

t.test('revoke: malformed id 400, unknown or foreign id 404', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const admin = await signIn(app, accounts.admin, { sandbox });
  const other = await signIn(app, accounts.noRights, { sandbox });
  const created = json(
    await inject({ method: 'POST', url: '/user-api-token/create', headers: admin.headers, payload: { name: 'x' } }),
  );
  expectError(
    t,
    await inject({
      method: 'POST',
      url: '/user-api-token/revoke',
      headers: admin.headers,
      payload: { id: 'nope' },
    }),
    400,
  );
  expectError(
    t,
    await inject({
      method: 'POST',
      url: '/user-api-token/revoke',
      headers: admin.headers,
      payload: { id: '00000000-0000-4000-8000-000000000000' },
    }),
    404,
  );
  expectError(
    t,
    await inject({
      method: 'POST',
      url: '/user-api-token/revoke',
      headers: other.headers,
      payload: { id: created.data.record.id },
    }),
    404,
  );
  t.same(json(await inject({ url: '/user-api-token', headers: other.headers })).data, [], 'others see only their own');
  expectError(t, await inject({ url: '/user-api-token' }), 401);
});

t.test('expired token → 401', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const { data } = json(
    await inject({
      method: 'POST',
      url: '/user-api-token/create',
      headers: s.headers,
      payload: { name: 'short', expiresAt: '2026-03-02T10:00:00Z' },
    }),
  );
  t.equal(
    (await inject({ url: '/mobile/tenant-info', headers: { authorization: `Bearer ${data.token}` } })).statusCode,
    200,
  );
  app.sandboxes.get(sandbox).clock.state = { mode: 'frozen', at: '2026-03-02T10:00:01.000Z' };
  expectError(t, await inject({ url: '/mobile/tenant-info', headers: { authorization: `Bearer ${data.token}` } }), 401);
});

t.test('admin index and revoke (right user-edit)', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const admin = await signIn(app, accounts.admin, { sandbox });
  const other = await signIn(app, accounts.noRights, { sandbox });
  const mine = json(
    await inject({
      method: 'POST',
      url: '/user-api-token/create',
      headers: admin.headers,
      payload: { name: 'admin token' },
    }),
  );
  const theirs = json(
    await inject({
      method: 'POST',
      url: '/user-api-token/create',
      headers: other.headers,
      payload: { name: 'their token' },
    }),
  );
  const nw = await signIn(app, accounts.nwAdmin, { sandbox });
  await inject({
    method: 'POST',
    url: '/user-api-token/create',
    headers: nw.headers,
    payload: { name: 'foreign tenant' },
  });

  const index = await inject({ url: '/admin/user-api-token?per-page=500', headers: admin.headers });
  t.equal(index.statusCode, 200);
  const page = json(index);
  t.equal(page._meta.perPage, 100, 'per-page clamped to 100');
  t.same(page.data.map((x: { name: string }) => x.name).sort(), ['admin token', 'their token'], 'only the own tenant');
  t.notOk(index.body.includes(mine.data.token) || index.body.includes(theirs.data.token));
  const filtered = json(
    await inject({ url: `/admin/user-api-token?user_id=${accounts.noRights.userId}`, headers: admin.headers }),
  );
  t.equal(filtered.data.length, 1);

  expectError(t, await inject({ url: '/admin/user-api-token', headers: other.headers }), 403);
  expectError(
    t,
    await inject({
      method: 'POST',
      url: '/admin/user-api-token/revoke',
      headers: other.headers,
      payload: { id: mine.data.record.id },
    }),
    403,
  );
  expectError(
    t,
    await inject({
      method: 'POST',
      url: '/admin/user-api-token/revoke',
      headers: admin.headers,
      payload: { id: 'x' },
    }),
    400,
  );
  expectError(
    t,
    await inject({
      method: 'POST',
      url: '/admin/user-api-token/revoke',
      headers: admin.headers,
      payload: { id: '00000000-0000-4000-8000-000000000000' },
    }),
    404,
  );
  const revoked = await inject({
    method: 'POST',
    url: '/admin/user-api-token/revoke',
    headers: admin.headers,
    payload: { id: theirs.data.record.id },
  });
  t.match(json(revoked), { success: true, data: { active: false } });
  expectError(
    t,
    await inject({ url: '/mobile/tenant-info', headers: { authorization: `Bearer ${theirs.data.token}` } }),
    401,
  );
  const active = json(await inject({ url: '/admin/user-api-token?active=1', headers: admin.headers }));
  t.same(
    active.data.map((x: { name: string }) => x.name),
    ['admin token'],
  );
});

t.test('owner blocked or hidden → 401; blockUser revokes every token of the user', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.noRights, { sandbox });
  const a = json(
    await inject({ method: 'POST', url: '/user-api-token/create', headers: s.headers, payload: { name: 'a' } }),
  ).data;
  const b = json(
    await inject({ method: 'POST', url: '/user-api-token/create', headers: s.headers, payload: { name: 'b' } }),
  ).data;
  const tenant = tenantOf(app, sandbox);
  const user = tenant.users.find((u) => u.id === accounts.noRights.userId)!;
  const call = (token: string) => inject({ url: '/mobile/tenant-info', headers: { authorization: `Bearer ${token}` } });

  setUser(app, user.id, { state: 'hidden' }, sandbox);
  expectError(t, await call(a.token), 401);
  setUser(app, user.id, { state: 'active' }, sandbox);
  t.equal((await call(a.token)).statusCode, 200);
  setUser(app, user.id, { state: 'blocked' }, sandbox);
  expectError(t, await call(a.token), 401);
  setUser(app, user.id, { state: 'active' }, sandbox);

  const blocked = blockUser(app.sandboxes.get(sandbox).store, tenant, user.id, new Date('2026-03-02T09:30:00Z'));
  t.equal(blocked.state, 'blocked');
  const mine = tenant.personalTokens.filter((x) => x.userId === user.id);
  t.equal(mine.length, 2);
  t.ok(
    mine.every((x) => x.revokedAt === '2026-03-02T09:30:00.000Z'),
    'every token revoked',
  );
  setUser(app, user.id, { state: 'active' }, sandbox);
  expectError(t, await call(a.token), 401);
  expectError(t, await call(b.token), 401);
  try {
    blockUser(app.sandboxes.get(sandbox).store, tenant, '00000000-0000-4000-8000-000000000000', new Date());
    t.fail('should throw');
  } catch (e) {
    t.equal((e as { statusCode?: number }).statusCode, 404);
  }
});

t.test('a malformed Bearer value → 401', async (t) => {
  const { inject } = await ownSandbox();
  expectError(t, await inject({ url: '/mobile/tenant-info', headers: { authorization: 'Bearer pmt_nope' } }), 401);
});
