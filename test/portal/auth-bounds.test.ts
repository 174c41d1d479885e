// src/auth/plugin.ts, in process (one app, app.inject, a sandbox per test): every way a credential is refused, with the
// status and the message the API gives, tenant isolation (a tenant header names where a token or key is looked for,
// never widens it), the rights a route needs and those a scenario takes away. Run first by `npm run mutate -- auth`.
import t from 'tap';
import { accounts, expectError, json, sharedApp, signIn, tenants } from '../helper.js';

const ownSandbox = sharedApp(t);

const category = '/article/category';
const tokens = '/user-api-token';
const tickets = '/workflow-ticket/';
const key = { 'x-service-client-id': 'romashka-integration', 'x-service-client-secret': 'romashka-secret-0001' };

/** A personal token of `account` in the test's sandbox, as Bearer headers. */
async function bearerOf(inject: Awaited<ReturnType<typeof ownSandbox>>['inject'], headers: Record<string, string>) {
  const created = await inject({ method: 'POST', url: '/user-api-token/create', headers, payload: { name: 'CI' } });
  const body = json(created);
  return { token: body.data.token as string, id: body.data.record.id as string };
}

t.test(
  'session headers: each missing one named; unknown tenant, foreign session, wrong code: one answer',
  async (t) => {
    const { app, sandbox, inject } = await ownSandbox();
    const s = await signIn(app, accounts.admin, { sandbox });
    t.equal((await inject({ url: category, headers: s.headers })).statusCode, 200, 'the whole set passes');
    for (const name of Object.keys(s.headers).filter((h) => h.startsWith('x-service-'))) {
      const headers = { ...s.headers };
      delete headers[name];
      const body = expectError(t, await inject({ url: category, headers }), 401);
      t.equal(body.message, `missing session header(s): ${name}`, name);
    }
    const none = expectError(t, await inject({ url: category }), 401);
    t.equal(
      none.message,
      'missing session header(s): x-service-tenant-id, x-service-device-id, x-service-session-id, x-service-session-code',
    );
    const nw = await signIn(app, accounts.nwAdmin, { sandbox });
    const refused = [
      { ...s.headers, 'x-service-tenant-id': '00000000-0000-4000-8000-000000000000' },
      { ...s.headers, 'x-service-tenant-id': tenants.northwind },
      { ...s.headers, 'x-service-session-id': nw.sessionId },
      { ...s.headers, 'x-service-session-code': `${s.sessionSecret}x` },
      { ...nw.headers, 'x-service-session-code': s.sessionSecret },
    ];
    for (const headers of refused) {
      const body = expectError(t, await inject({ url: category, headers }), 401);
      t.equal(body.message, 'session not found or session code invalid');
    }
  },
);

t.test('a session on another device, a device bound again, an expired session, a blocked user: 401', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const other = await signIn(app, accounts.admin, { sandbox });
  const wrongDevice = expectError(
    t,
    await inject({ url: category, headers: { ...s.headers, 'x-service-device-id': other.deviceId } }),
    401,
  );
  t.equal(wrongDevice.message, 'session does not belong to this device');

  const { store, clock } = app.sandboxes.get(sandbox);
  const tenant = store.tenant(tenants.romashka)!;
  const device = tenant.devices.find((d) => d.id === s.deviceId)!;
  store.update(tenant, 'devices', device, { userId: accounts.noRights.userId });
  const rebound = expectError(t, await inject({ url: category, headers: s.headers }), 401);
  t.equal(rebound.message, 'device is no longer bound; bind it again');

  const live = await signIn(app, accounts.admin, { sandbox });
  const session = tenant.sessions.find((x) => x.id === live.sessionId)!;
  store.update(tenant, 'sessions', session, { expiresAt: new Date(clock.nowMs() + 1).toISOString() });
  t.equal((await inject({ url: category, headers: live.headers })).statusCode, 200, 'a millisecond left');
  const now = store.tenant(tenants.romashka)!.sessions.find((x) => x.id === live.sessionId)!;
  store.update(tenant, 'sessions', now, { expiresAt: new Date(clock.nowMs()).toISOString() });
  const expired = expectError(t, await inject({ url: category, headers: live.headers }), 401);
  t.equal(expired.message, 'session expired; authorize again with POST /mobile/auth');

  // the device gone, or the user: the same answers, never a 500
  const gone = await signIn(app, accounts.admin, { sandbox });
  const goneDevice = tenant.devices.find((d) => d.id === gone.deviceId)!;
  store.update(tenant, 'devices', goneDevice, { id: 'device-gone' });
  const noDevice = expectError(t, await inject({ url: category, headers: gone.headers }), 401);
  t.equal(noDevice.message, 'device is no longer bound; bind it again');
  const ghost = await signIn(app, accounts.admin, { sandbox });
  const ghostId = 'a1000000-0000-4000-8000-00000000dead';
  const ghostSession = tenant.sessions.find((x) => x.id === ghost.sessionId)!;
  store.update(tenant, 'sessions', ghostSession, { userId: ghostId });
  const ghostDevice = tenant.devices.find((d) => d.id === ghost.deviceId)!;
  store.update(tenant, 'devices', ghostDevice, { userId: ghostId });
  const noUser = expectError(t, await inject({ url: category, headers: ghost.headers }), 401);
  t.equal(noUser.message, 'the user of this credential is blocked or no longer exists');

  const fresh = await signIn(app, accounts.admin, { sandbox });
  const user = tenant.users.find((u) => u.id === accounts.admin.userId)!;
  store.update(tenant, 'users', user, { state: 'blocked' } as never);
  const blocked = expectError(t, await inject({ url: category, headers: fresh.headers }), 401);
  t.equal(blocked.message, 'the user of this credential is blocked or no longer exists');
});

t.test('expired-session: for one request by header; a sandbox set to it keeps the sessions made after', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const once = expectError(
    t,
    await inject({ url: category, headers: { ...s.headers, 'x-mock-scenario': 'expired-session' } }),
    401,
  );
  t.equal(once.message, 'session expired; authorize again with POST /mobile/auth');
  t.equal((await inject({ url: category, headers: s.headers })).statusCode, 200, 'only that request');

  const set = await app.inject({
    method: 'PUT',
    url: `/__admin/scenario?sandbox=${sandbox}`,
    payload: { name: 'expired-session' },
  });
  t.equal(set.statusCode, 200);
  t.equal((await inject({ url: category, headers: s.headers })).statusCode, 401, 'expired when applied');
  const after = await signIn(app, accounts.admin, { sandbox });
  t.equal((await inject({ url: category, headers: after.headers })).statusCode, 200, 'a session made after works');
});

t.test('rights: a route names what it needs; a scenario takes some or all away', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const admin = await signIn(app, accounts.admin, { sandbox });
  const plain = await signIn(app, accounts.noRights, { sandbox });
  t.equal((await inject({ url: category, headers: admin.headers })).statusCode, 200);
  const missing = expectError(t, await inject({ url: category, headers: plain.headers }), 403);
  t.equal(missing.message, 'missing access right(s): show-content-categories');
  t.equal((await inject({ url: tokens, headers: plain.headers })).statusCode, 200, 'a route without rights');

  const all = expectError(
    t,
    await inject({ url: category, headers: { ...admin.headers, 'x-mock-scenario': 'no-rights' } }),
    403,
  );
  t.equal(all.message, 'missing access right(s): show-content-categories');
  const admins = expectError(
    t,
    await inject({ url: '/admin/user-api-token', headers: { ...admin.headers, 'x-mock-scenario': 'no-rights' } }),
    403,
  );
  t.equal(admins.message, 'missing access right(s): user-edit');

  const put = await app.inject({
    method: 'PUT',
    url: '/__admin/scenarios/qa-no-categories',
    payload: {
      name: 'qa-no-categories',
      description: 'the category right taken away',
      revokeRights: ['show-content-categories'],
    },
  });
  t.equal(put.statusCode, 201, put.body);
  const some = { ...admin.headers, 'x-mock-scenario': 'qa-no-categories' };
  const revoked = expectError(t, await inject({ url: category, headers: some }), 403);
  t.equal(revoked.message, 'missing access right(s): show-content-categories');
  t.equal((await inject({ url: '/admin/user-api-token', headers: some })).statusCode, 200, 'the other rights stay');
});

t.test(
  'Bearer: any case of the scheme; session-only routes refuse it; a tenant header narrows the search',
  async (t) => {
    const { app, sandbox, inject } = await ownSandbox();
    const s = await signIn(app, accounts.admin, { sandbox });
    const { token, id } = await bearerOf(inject, s.headers);
    for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
      const res = await inject({ url: category, headers: { authorization: `${scheme} ${token}` } });
      t.equal(res.statusCode, 200, scheme);
    }
    t.equal((await inject({ url: category, headers: { authorization: `Bearer   ${token}  ` } })).statusCode, 200);
    const only = expectError(t, await inject({ url: tokens, headers: { authorization: `Bearer ${token}` } }), 403);
    t.equal(only.message, 'this operation requires session authorization; personal tokens are not accepted');
    // a session's headers beside a Bearer: the token decides
    const both = expectError(
      t,
      await inject({ url: tokens, headers: { ...s.headers, authorization: `Bearer x` } }),
      403,
    );
    t.match(both.message, 'personal tokens are not accepted');

    t.equal(
      (
        await inject({
          url: category,
          headers: { authorization: `Bearer ${token}`, 'x-service-tenant-id': tenants.romashka },
        })
      ).statusCode,
      200,
      'its own tenant named',
    );
    for (const headers of [
      { authorization: `Bearer ${token}`, 'x-service-tenant-id': tenants.northwind },
      { authorization: `Bearer ${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}` },
      { authorization: `Bearer ${token}x!` },
      { authorization: `Bearer pmt_${id}` },
      { authorization: `Bearer x${token}` },
      { authorization: 'Bearer ' },
    ]) {
      const body = expectError(t, await inject({ url: category, headers }), 401);
      t.equal(body.message, 'bearer token invalid', headers.authorization);
    }
    // a scheme that is not Bearer: read as a session call
    const basic = expectError(t, await inject({ url: category, headers: { authorization: `Basic ${token}` } }), 401);
    t.match(basic.message, 'missing session header(s)');
    const noSpace = expectError(t, await inject({ url: category, headers: { authorization: `Bearer${token}` } }), 401);
    t.match(noSpace.message, 'missing session header(s)');

    // a token of another tenant's user is looked for in its own tenant only
    const nw = await signIn(app, accounts.nwAdmin, { sandbox });
    const nwToken = await bearerOf(inject, nw.headers);
    t.equal((await inject({ url: category, headers: { authorization: `Bearer ${nwToken.token}` } })).statusCode, 200);
    t.equal(
      (
        await inject({
          url: category,
          headers: { authorization: `Bearer ${nwToken.token}`, 'x-service-tenant-id': tenants.northwind },
        })
      ).statusCode,
      200,
    );
  },
);

t.test('Bearer: revoked, expired (at the instant), owner blocked; a use is stamped; rights as a session', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const { store, clock } = app.sandboxes.get(sandbox);
  const tenant = store.tenant(tenants.romashka)!;
  const record = (id: string) => store.tenant(tenants.romashka)!.personalTokens.find((x) => x.id === id)!;

  const used = await bearerOf(inject, s.headers);
  t.notOk(record(used.id).lastUsedAt, 'not used yet');
  t.equal((await inject({ url: category, headers: { authorization: `Bearer ${used.token}` } })).statusCode, 200);
  t.equal(record(used.id).lastUsedAt, clock.iso(), 'the use is stamped');

  const revoked = await bearerOf(inject, s.headers);
  store.update(tenant, 'personalTokens', record(revoked.id), { revokedAt: clock.iso() });
  const r = expectError(t, await inject({ url: category, headers: { authorization: `Bearer ${revoked.token}` } }), 401);
  t.equal(r.message, 'personal token revoked');

  const expiring = await bearerOf(inject, s.headers);
  store.update(tenant, 'personalTokens', record(expiring.id), { expiresAt: new Date(clock.nowMs() + 1).toISOString() });
  t.equal((await inject({ url: category, headers: { authorization: `Bearer ${expiring.token}` } })).statusCode, 200);
  store.update(tenant, 'personalTokens', record(expiring.id), { expiresAt: clock.iso() });
  const e = expectError(
    t,
    await inject({ url: category, headers: { authorization: `Bearer ${expiring.token}` } }),
    401,
  );
  t.equal(e.message, 'personal token expired');

  const plain = await signIn(app, accounts.noRights, { sandbox });
  const weak = await bearerOf(inject, plain.headers);
  const w = expectError(t, await inject({ url: category, headers: { authorization: `Bearer ${weak.token}` } }), 403);
  t.equal(w.message, 'missing access right(s): show-content-categories');
  const n = expectError(
    t,
    await inject({ url: category, headers: { authorization: `Bearer ${used.token}`, 'x-mock-scenario': 'no-rights' } }),
    403,
  );
  t.equal(n.message, 'missing access right(s): show-content-categories');

  const user = tenant.users.find((u) => u.id === accounts.noRights.userId)!;
  store.update(tenant, 'users', user, { state: 'blocked' } as never);
  const b = expectError(t, await inject({ url: tokens, headers: plain.headers }), 401);
  t.equal(b.message, 'the user of this credential is blocked or no longer exists');
});

t.test('API key: only where a route takes one, only its own tenant, never beside a session', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  t.equal((await inject({ url: tickets, headers: key })).statusCode, 200, 'the key of the fixtures');
  t.equal(
    (await inject({ url: tickets, headers: { ...key, 'x-service-tenant-id': tenants.romashka } })).statusCode,
    200,
  );
  const invalid = 'API key (X-Service-Client-Id / X-Service-Client-Secret) invalid';
  for (const headers of [
    { ...key, 'x-service-tenant-id': tenants.northwind },
    { ...key, 'x-service-client-secret': 'romashka-secret-0002' },
    { 'x-service-client-id': 'romashka-integration' },
    { ...key, 'x-service-client-id': 'nobody' },
    { ...key, 'x-service-client-secret': 'northwind-secret-0001' },
  ]) {
    const body = expectError(t, await inject({ url: tickets, headers }), 401);
    t.equal(body.message, invalid);
  }
  // a route that takes no key reads the call as a session call
  const notHere = expectError(t, await inject({ url: category, headers: key }), 401);
  t.match(notHere.message, 'missing session header(s)');
  // a session id beside the key: the session headers decide
  const s = await signIn(app, accounts.admin, { sandbox });
  t.equal((await inject({ url: tickets, headers: { ...key, ...s.headers } })).statusCode, 200);
  const { 'x-service-session-code': _code, ...partial } = s.headers;
  const mixed = expectError(t, await inject({ url: tickets, headers: { ...key, ...partial } }), 401);
  t.equal(mixed.message, 'missing session header(s): x-service-session-code');
  const nwKey = { 'x-service-client-id': 'northwind-integration', 'x-service-client-secret': 'northwind-secret-0001' };
  t.equal((await inject({ url: tickets, headers: nwKey })).statusCode, 200, "the other tenant's key in its tenant");
});

t.test('tenant routes: the header is required (400) and must name a tenant (404); none needs nothing', async (t) => {
  const { inject } = await ownSandbox();
  const payload = { secret: 'x', userId: accounts.admin.userId, deviceId: 'd' };
  const missing = expectError(t, await inject({ method: 'POST', url: '/mobile/auth', payload }), 400);
  t.equal(missing.message, 'header x-service-tenant-id is required');
  t.same(missing.details, [{ field: 'headers.x-service-tenant-id', message: 'is required' }]);
  const empty = expectError(
    t,
    await inject({ method: 'POST', url: '/mobile/auth', payload, headers: { 'x-service-tenant-id': '' } }),
    400,
  );
  t.equal(empty.message, 'header x-service-tenant-id is required');
  const unknown = '00000000-0000-4000-8000-000000000000';
  const notFound = expectError(
    t,
    await inject({ method: 'POST', url: '/mobile/auth', payload, headers: { 'x-service-tenant-id': unknown } }),
    404,
  );
  t.equal(notFound.message, `tenant ${unknown} not found`);
  const known = await inject({
    method: 'POST',
    url: '/mobile/auth',
    payload,
    headers: { 'x-service-tenant-id': tenants.romashka },
  });
  // past the plugin: the handler answers (an unknown device), not the tenant check
  t.equal(known.statusCode, 404);
  t.notMatch(json(known).message, /^tenant /);
  const none = await inject({
    method: 'POST',
    url: '/mobile/request-two-factor',
    payload: { email: accounts.admin.email, password: accounts.admin.password },
  });
  t.equal(none.statusCode, 200, 'a route of auth none takes no credential');
  // a route that declares no auth (here the not-found answer) is read as auth none: a 404, not a 401
  const unknownRoute = expectError(t, await inject({ url: '/no-such-route' }), 404);
  t.notMatch(unknownRoute.message, /session/);
});
