import t from 'tap';
import { accounts, expectError, json, sharedApp, signIn, tenants } from '../helper.js';

const romashka = { 'x-service-tenant-id': tenants.romashka };
// one app for the file, each test in its own sandbox
const ownSandbox = sharedApp(t);

t.test('manual bind → auth → tenant-info → push token → unbind', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox, deviceId: 'phone-1' });
  const info = await inject({ url: '/mobile/tenant-info', headers: s.headers });
  t.equal(info.statusCode, 200);
  t.match(json(info), {
    id: tenants.romashka,
    name: 'Ромашка',
    base_url: 'http://localhost:80',
    options: { enableWallet: true },
  });

  const push = await inject({
    method: 'POST',
    url: '/mobile/save-push-token',
    headers: s.headers,
    payload: { token: 'fcm-token-1', deviceId: 'phone-1' },
  });
  t.same(json(push), { success: true });
  t.equal(
    app.sandboxes
      .get(sandbox)
      .store.tenant(tenants.romashka)!
      .pushTokens.filter((p) => p.deviceId === 'phone-1').length,
    1,
  );

  const unbind = await inject({ method: 'POST', url: '/mobile/unbind?deviceId=phone-1', headers: s.headers });
  t.equal(unbind.statusCode, 200);
  t.equal(json(unbind).id, tenants.romashka);
  expectError(t, await inject({ url: '/mobile/tenant-info', headers: s.headers }), 401);
  const reauth = await inject({
    method: 'POST',
    url: '/mobile/auth',
    headers: romashka,
    payload: { secret: 'whatever', userId: s.userId, deviceId: 'phone-1' },
  });
  expectError(t, reauth, 404);
  t.equal(
    app.sandboxes
      .get(sandbox)
      .store.tenant(tenants.romashka)!
      .pushTokens.filter((p) => p.deviceId === 'phone-1').length,
    0,
    'push token forgotten',
  );
});

t.test('every operation also answers under /api/v2', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  t.equal((await inject({ url: '/api/v2/mobile/tenant-info', headers: s.headers })).statusCode, 200);
  const bind = await inject({
    method: 'POST',
    url: '/api/v2/mobile/manual-bind',
    payload: { email: accounts.admin.email, password: accounts.admin.password, device: {} },
  });
  t.equal(bind.statusCode, 200);
  t.ok(json(bind).accountSecret.deviceId, 'device id minted when the app sends none');
});

t.test('base_url follows the address the client used', async (t) => {
  const { inject } = await ownSandbox();
  const creds = { email: accounts.admin.email, password: accounts.admin.password, device: { id: 'd1' } };
  const direct = await inject({
    method: 'POST',
    url: '/mobile/manual-bind',
    headers: { host: '192.168.1.20:3000' },
    payload: creds,
  });
  t.equal(json(direct).tenantInfo.base_url, 'http://192.168.1.20:3000');
  const proxied = await inject({
    method: 'POST',
    url: '/mobile/manual-bind',
    payload: creds,
    headers: { host: 'internal:3000', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'mock.example.test' },
  });
  t.equal(json(proxied).tenantInfo.base_url, 'https://mock.example.test');
  const sandboxed = await inject({
    method: 'POST',
    url: '/sandbox/qa-1/mobile/manual-bind',
    headers: { host: 'h:1' },
    payload: creds,
  });
  t.equal(json(sandboxed).tenantInfo.base_url, 'http://h:1/sandbox/qa-1');
});

t.test('request-two-factor', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const off = await inject({
    method: 'POST',
    url: '/mobile/request-two-factor',
    payload: { email: accounts.admin.email, password: 'demo1234' },
  });
  t.match(json(off), { codeRequired: false, tenantInfo: { id: tenants.romashka } });
  t.equal(app.sandboxes.get(sandbox).outbox.list().length, 0, 'no code sent when two-factor is off');

  const on = await inject({
    method: 'POST',
    url: '/mobile/request-two-factor',
    payload: { email: accounts.twoFactor.email, password: 'demo1234' },
  });
  t.match(json(on), { codeRequired: true, delayTime: 60 });
  const sent = app.sandboxes.get(sandbox).outbox.list();
  t.equal(sent.length, 1);
  t.match(sent[0], { kind: 'two-factor-code', to: accounts.twoFactor.email, code: /^\d{6}$/ });

  const again = await inject({
    method: 'POST',
    url: '/mobile/request-two-factor',
    payload: { email: accounts.twoFactor.email, password: 'demo1234' },
  });
  t.equal(json(again).codeRequired, true);
  t.equal(app.sandboxes.get(sandbox).outbox.list().length, 1, 'no second e-mail within the resend delay');

  expectError(
    t,
    await inject({
      method: 'POST',
      url: '/mobile/request-two-factor',
      payload: { email: accounts.twoFactor.email, password: 'wrong' },
    }),
    403,
  );
  expectError(
    t,
    await inject({
      method: 'POST',
      url: '/mobile/request-two-factor',
      payload: { email: 'nobody@nowhere.test', password: 'x' },
    }),
    403,
  );
  const bad = expectError(
    t,
    await inject({ method: 'POST', url: '/mobile/request-two-factor', payload: { email: 'not-an-email' } }),
    400,
  );
  t.same(bad.details?.map((d) => d.field).sort(), ['body.email', 'body.password']);
});

t.test('manual-bind with two-factor', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const creds = { email: accounts.twoFactor.email, password: 'demo1234', device: { id: 'tf-phone' } };
  const noCode = expectError(t, await inject({ method: 'POST', url: '/mobile/manual-bind', payload: creds }), 403);
  t.match(noCode.message, /code required/);
  await inject({
    method: 'POST',
    url: '/mobile/request-two-factor',
    payload: { email: creds.email, password: creds.password },
  });
  const code = app.sandboxes.get(sandbox).outbox.list().at(-1)!.code!;
  const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
  expectError(t, await inject({ method: 'POST', url: '/mobile/manual-bind', payload: { ...creds, code: wrong } }), 403);
  const ok = await inject({ method: 'POST', url: '/mobile/manual-bind', payload: { ...creds, code } });
  t.equal(ok.statusCode, 200);
  t.equal(json(ok).accountSecret.userId, accounts.twoFactor.userId);
  expectError(t, await inject({ method: 'POST', url: '/mobile/manual-bind', payload: { ...creds, code } }), 403);

  t.test('an expired code is refused', async (t) => {
    await inject({
      method: 'POST',
      url: '/mobile/request-two-factor',
      payload: { email: creds.email, password: creds.password },
    });
    const code2 = app.sandboxes.get(sandbox).outbox.list().at(-1)!.code!;
    app.sandboxes.get(sandbox).clock.state = { mode: 'frozen', at: '2026-03-02T09:10:00.000Z' };
    const res = expectError(
      t,
      await inject({ method: 'POST', url: '/mobile/manual-bind', payload: { ...creds, code: code2 } }),
      403,
    );
    t.match(res.message, /expired/);
  });
});

t.test('manual-bind errors', async (t) => {
  const { inject } = await ownSandbox();
  expectError(
    t,
    await inject({
      method: 'POST',
      url: '/mobile/manual-bind',
      payload: { email: accounts.admin.email, password: 'nope', device: {} },
    }),
    403,
  );
  expectError(
    t,
    await inject({
      method: 'POST',
      url: '/mobile/manual-bind',
      payload: { email: accounts.admin.email, password: 'demo1234' },
    }),
    400,
  );
  expectError(
    t,
    await inject({
      method: 'POST',
      url: '/mobile/manual-bind',
      headers: { 'content-type': 'application/json' },
      payload: '{"email":',
    }),
    400,
  );
  expectError(
    t,
    await inject({
      method: 'POST',
      url: '/mobile/manual-bind',
      headers: { 'content-type': 'text/csv' },
      payload: 'a,b',
    }),
    415,
  );
  const huge = JSON.stringify({ email: accounts.admin.email, password: 'x'.repeat(2_000_000), device: {} });
  expectError(
    t,
    await inject({
      method: 'POST',
      url: '/mobile/manual-bind',
      headers: { 'content-type': 'application/json' },
      payload: huge,
    }),
    413,
  );
});

t.test('bind by QR link', async (t) => {
  const { inject } = await ownSandbox();
  const ok = await inject({
    method: 'POST',
    url: '/mobile/bind/bind-ivan/qr-token-ivan-0001',
    payload: { device: { id: 'qr-phone' } },
  });
  t.equal(ok.statusCode, 200);
  t.match(json(ok), {
    accountSecret: { userId: accounts.admin.userId, deviceId: 'qr-phone', tenantId: tenants.romashka },
  });
  const again = await inject({
    method: 'POST',
    url: '/mobile/bind/bind-ivan/qr-token-ivan-0001',
    payload: { device: { id: 'qr-phone-2' } },
  });
  t.equal(again.statusCode, 200, 'fixture links are reusable');
  expectError(
    t,
    await inject({ method: 'POST', url: '/mobile/bind/bind-ivan/wrong-token', payload: { device: {} } }),
    403,
  );
  expectError(
    t,
    await inject({ method: 'POST', url: '/mobile/bind/no-such-link/qr-token-ivan-0001', payload: { device: {} } }),
    403,
  );
  expectError(t, await inject({ method: 'POST', url: '/mobile/bind/bind-ivan/qr-token-ivan-0001', payload: {} }), 400);
  // the secret from the QR bind authorizes a session
  const { accountSecret } = json(ok);
  const auth = await inject({
    method: 'POST',
    url: '/mobile/auth',
    headers: romashka,
    payload: { secret: accountSecret.secret, userId: accountSecret.userId, deviceId: 'qr-phone' },
  });
  t.equal(auth.statusCode, 200);
});

t.test('auth', async (t) => {
  const { inject } = await ownSandbox();
  // the pre-bound demo device of the fixtures
  const demo = { secret: 'demo-device-secret-1', userId: accounts.admin.userId, deviceId: 'demo-device-romashka' };
  const ok = await inject({ method: 'POST', url: '/mobile/auth', headers: romashka, payload: demo });
  t.equal(ok.statusCode, 200);
  t.match(json(ok), { sessionId: /^[0-9a-f-]{36}$/, sessionSecret: String, tenantInfo: { id: tenants.romashka } });
  expectError(
    t,
    await inject({ method: 'POST', url: '/mobile/auth', headers: romashka, payload: { ...demo, secret: 'bad' } }),
    401,
  );
  expectError(
    t,
    await inject({
      method: 'POST',
      url: '/mobile/auth',
      headers: romashka,
      payload: { ...demo, userId: accounts.twoFactor.userId },
    }),
    401,
  );
  expectError(
    t,
    await inject({
      method: 'POST',
      url: '/mobile/auth',
      headers: romashka,
      payload: { ...demo, deviceId: 'unknown' },
    }),
    404,
  );
  expectError(
    t,
    await inject({
      method: 'POST',
      url: '/mobile/auth',
      headers: { 'x-service-tenant-id': tenants.northwind },
      payload: demo,
    }),
    404,
  );
  expectError(t, await inject({ method: 'POST', url: '/mobile/auth', payload: demo }), 400);
  expectError(
    t,
    await inject({ method: 'POST', url: '/mobile/auth', headers: romashka, payload: { secret: 'x' } }),
    400,
  );
});

t.test('session checks', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const other = await signIn(app, accounts.nwAdmin, { sandbox });
  const call = (headers: Record<string, string>) => inject({ url: '/mobile/tenant-info', headers });
  t.equal((await call(s.headers)).statusCode, 200);
  expectError(t, await call({}), 401);
  expectError(t, await call({ ...s.headers, 'x-service-session-code': 'wrong' }), 401);
  expectError(t, await call({ ...s.headers, 'x-service-tenant-id': tenants.northwind }), 401);
  expectError(t, await call({ ...s.headers, 'x-service-device-id': other.deviceId }), 401);
  expectError(
    t,
    await call({
      ...s.headers,
      'x-service-session-id': other.sessionId,
      'x-service-session-code': other.sessionSecret,
    }),
    401,
  );
  // sessions end with their lifetime (24 h, by the sandbox clock)
  app.sandboxes.get(sandbox).clock.state = { mode: 'frozen', at: '2026-03-03T09:00:01.000Z' };
  expectError(t, await call(s.headers), 401);
});

t.test('save-push-token', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const firebase = await inject({
    method: 'POST',
    url: '/mobile/save-push-token',
    headers: s.headers,
    payload: { token: 't1', provider: 'firebase', deviceId: s.deviceId },
  });
  t.equal(firebase.statusCode, 200);
  const apns = expectError(
    t,
    await inject({
      method: 'POST',
      url: '/mobile/save-push-token',
      headers: s.headers,
      payload: { token: 't1', provider: 'apns', deviceId: s.deviceId },
    }),
    400,
  );
  t.match(apns.message, /only firebase/);
  expectError(
    t,
    await inject({
      method: 'POST',
      url: '/mobile/save-push-token',
      headers: s.headers,
      payload: { token: 't1', deviceId: 'not-mine' },
    }),
    403,
  );
  expectError(
    t,
    await inject({
      method: 'POST',
      url: '/mobile/save-push-token',
      headers: s.headers,
      payload: { deviceId: s.deviceId },
    }),
    400,
  );
  expectError(
    t,
    await inject({ method: 'POST', url: '/mobile/save-push-token', payload: { token: 't', deviceId: s.deviceId } }),
    401,
  );
});

t.test('unbind errors', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  expectError(t, await inject({ method: 'POST', url: '/mobile/unbind', headers: s.headers }), 400);
  expectError(
    t,
    await inject({ method: 'POST', url: '/mobile/unbind?deviceId=demo-device-northwind', headers: s.headers }),
    403,
  );
  expectError(t, await inject({ method: 'POST', url: `/mobile/unbind?deviceId=${s.deviceId}` }), 401);
});

t.test('oauth-list', async (t) => {
  const { inject } = await ownSandbox();
  const res = await inject({ url: '/mobile/oauth-list', headers: romashka });
  t.equal(res.statusCode, 200);
  t.match(json(res).data[0], { id: 'romashka-sso', type: 'saml', url: 'http://localhost:80/oauth/romashka-sso' });
  t.same(
    json(await inject({ url: '/mobile/oauth-list', headers: { 'x-service-tenant-id': tenants.northwind } })).data,
    [],
  );
  expectError(t, await inject({ url: '/mobile/oauth-list' }), 400);
  expectError(t, await inject({ url: '/mobile/oauth-list', headers: { 'x-service-tenant-id': 'nope' } }), 404);
});

t.test('unknown routes and bad sandbox names answer with the error body', async (t) => {
  const { inject } = await ownSandbox();
  expectError(t, await inject({ url: '/no/such/operation' }), 404);
  expectError(t, await inject({ url: '/mobile/tenant-info', headers: { 'x-mock-sandbox': '../etc' } }), 400);
});

t.test('every session of a device works until the device is bound again, however many sign-ins it made', async (t) => {
  const { inject } = await ownSandbox();
  const bind = async (account: { email: string; password: string }) =>
    json(
      await inject({
        method: 'POST',
        url: '/mobile/manual-bind',
        payload: { email: account.email, password: account.password, device: { id: 'shared-phone' } },
      }),
    ).accountSecret as { secret: string; userId: string; deviceId: string; tenantId: string };
  const authorize = async (a: { secret: string; userId: string; deviceId: string }) => {
    const body = json(
      await inject({
        method: 'POST',
        url: '/mobile/auth',
        headers: romashka,
        payload: { secret: a.secret, userId: a.userId, deviceId: a.deviceId },
      }),
    );
    return {
      ...romashka,
      'x-service-device-id': a.deviceId,
      'x-service-session-id': body.sessionId,
      'x-service-session-code': body.sessionSecret,
    };
  };
  const admin = await bind(accounts.admin);
  const sessions = [];
  for (let i = 0; i < 60; i++) sessions.push(await authorize(admin));
  for (const i of [0, 30, 59])
    t.equal(
      (await inject({ url: '/mobile/tenant-info', headers: sessions[i] })).statusCode,
      200,
      `session ${i + 1} of 60`,
    );

  const other = await bind(accounts.noRights); // the same device id, bound by another user: its sessions end
  for (const i of [0, 59]) expectError(t, await inject({ url: '/mobile/tenant-info', headers: sessions[i] }), 401);
  const mine = await authorize(other);
  t.equal(
    json(await inject({ url: `/user/profile?id=${accounts.noRights.userId}`, headers: mine })).id,
    accounts.noRights.userId,
  );
});
