// The whole sign-in flow as a mobile build does it: over a real socket, using only what
// /__admin/fixtures tells a new user.
import t from 'tap';
import { build } from '../helper.js';

t.test('manual bind → auth → tenant-info → save-push-token → unbind → auth answers 404', async (t) => {
  const app = await build(t);
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${address}${path}`, {
      method,
      headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  const fixtures = (await call('GET', '/__admin/fixtures')).body;
  const account = fixtures.accounts.find(
    (a: { twoFactor: boolean; rights: string[] }) => !a.twoFactor && a.rights.length === 5,
  );
  t.ok(account, 'fixtures list an account with all rights and no two-factor');

  const bind = await call('POST', '/api/v2/mobile/manual-bind', {
    email: account.email,
    password: account.password,
    device: { id: 'socket-phone', platform: 'android' },
  });
  t.equal(bind.status, 200);
  const { accountSecret, tenantInfo } = bind.body;
  t.equal(tenantInfo.base_url, address, 'base_url is the address the client used');

  const base = tenantInfo.base_url;
  const auth = await call(
    'POST',
    '/mobile/auth',
    { secret: accountSecret.secret, userId: accountSecret.userId, deviceId: accountSecret.deviceId },
    { 'x-service-tenant-id': tenantInfo.id },
  );
  t.equal(auth.status, 200);
  const session = {
    'x-service-tenant-id': tenantInfo.id,
    'x-service-device-id': accountSecret.deviceId,
    'x-service-session-id': auth.body.sessionId,
    'x-service-session-code': auth.body.sessionSecret,
  };
  const info = await fetch(`${base}/mobile/tenant-info`, { headers: session });
  t.equal(info.status, 200);
  t.equal(((await info.json()) as { id: string }).id, tenantInfo.id);

  t.same(
    (
      await call(
        'POST',
        '/mobile/save-push-token',
        { token: 'fcm:abc', provider: 'firebase', deviceId: 'socket-phone' },
        session,
      )
    ).body,
    { success: true },
  );
  t.equal((await call('POST', '/mobile/unbind?deviceId=socket-phone', undefined, session)).status, 200);
  const again = await call(
    'POST',
    '/mobile/auth',
    { secret: accountSecret.secret, userId: accountSecret.userId, deviceId: 'socket-phone' },
    { 'x-service-tenant-id': tenantInfo.id },
  );
  t.equal(again.status, 404);
  t.equal((await call('GET', '/mobile/tenant-info', undefined, session)).status, 401);
});

t.test('a bind through the sandbox prefix keeps the client in that sandbox', async (t) => {
  const app = await build(t);
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  // admin reads never make a sandbox: the tester makes the phone's first
  const made = await fetch(`${address}/__admin/sandboxes/phone-1?sandbox=phone-1`, { method: 'PUT' });
  t.equal(made.status, 201, 'phone-1 is made');
  const fixtures = (await (await fetch(`${address}/__admin/fixtures?sandbox=phone-1`)).json()) as {
    bindLinks: Array<{ url: string; link: string; qr: string }>;
  };
  const link = fixtures.bindLinks[0]!;
  t.match(link.url, `${address}/sandbox/phone-1/mobile/bind/`);
  t.match(link.link, /^service:\/\/bind\/\?url=http/);
  const qr = await fetch(link.qr);
  t.equal(qr.status, 200);
  t.match(qr.headers.get('content-type'), /image\/svg\+xml/);
  t.match(await qr.text(), /<svg/);
  const res = await fetch(link.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ device: { id: 'p1' } }),
  });
  const body = (await res.json()) as { tenantInfo: { base_url: string } };
  t.equal(body.tenantInfo.base_url, `${address}/sandbox/phone-1`);
  t.ok(
    app.sandboxes
      .find('phone-1')!
      .store.tenants()[0]!
      .devices.some((d) => d.id === 'p1'),
  );
  t.notOk(
    app.sandboxes
      .get('default')
      .store.tenants()
      .some((tn) => tn.devices.some((d) => d.id === 'p1')),
    'default sandbox untouched',
  );
});
