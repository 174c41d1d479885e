import t from 'tap';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { accounts, build, expectError, json, signIn, tenants, sharedApp } from '../helper.js';

// one app for the file's tests, each in a sandbox of its own
const ownSandbox = sharedApp(t);

t.test('health and fixtures', async (t) => {
  const app = await build(t, { seed: 9 });
  t.match(json(await app.inject({ url: '/__admin/health' })), {
    status: 'ok',
    version: String,
    scenario: 'default',
    seed: 9,
    uptimeMs: Number,
  });
  const f = json(await app.inject({ url: '/__admin/fixtures' }));
  t.equal(f.tenants.length, 2);
  t.ok(f.accounts.some((a: { twoFactor: boolean }) => a.twoFactor));
  t.ok(f.accounts.some((a: { rights: string[] }) => a.rights.length === 0));
  t.match(f.apiKeys[0], { tenantId: String, clientId: String, clientSecret: String });
  t.match(f.bindLinks[0], {
    tenantId: String,
    userId: String,
    id: String,
    token: String,
    url: /\/mobile\/bind\//,
    qr: /qr\.svg/,
  });
});

t.test('sandboxes are isolated, even under concurrent requests', async (t) => {
  const app = await build(t);
  const [a, b] = await Promise.all([
    signIn(app, accounts.admin, { sandbox: 'suite-a' }),
    signIn(app, accounts.admin, { sandbox: 'suite-b' }),
  ]);
  // Each sandbox minted its own session: a session of A is unknown in B and in default.
  expectError(
    t,
    await app.inject({ url: '/mobile/tenant-info', headers: { ...a.headers, 'x-mock-sandbox': 'suite-b' } }),
    401,
  );
  expectError(
    t,
    await app.inject({ url: '/mobile/tenant-info', headers: { ...a.headers, 'x-mock-sandbox': 'default' } }),
    401,
  );
  // 40 concurrent binds in two sandboxes: each sees only its own.
  await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      app.inject({
        method: 'POST',
        url: `/sandbox/${i % 2 ? 'suite-a' : 'suite-b'}/mobile/manual-bind`,
        payload: { email: accounts.admin.email, password: 'demo1234', device: { id: `c-${i}` } },
      }),
    ),
  );
  const devices = (name: string) =>
    app.sandboxes
      .get(name)
      .store.tenant(tenants.romashka)!
      .devices.map((d) => d.id)
      .filter((id) => id.startsWith('c-'));
  t.equal(devices('suite-a').length, 20);
  t.equal(devices('suite-b').length, 20);
  t.ok(devices('suite-a').every((id) => Number(id.slice(2)) % 2 === 1));
  t.equal(devices('default').length, 0);
  void b;
  const list = json<Array<{ name: string }>>(await app.inject({ url: '/__admin/sandboxes' }))
    .map((s) => s.name)
    .sort();
  t.same(list, ['default', 'suite-a', 'suite-b']);
  t.equal(json(await app.inject({ method: 'DELETE', url: '/__admin/sandboxes/suite-a' })).deleted, 'suite-a');
  expectError(t, await app.inject({ method: 'DELETE', url: '/__admin/sandboxes/suite-a' }), 404);
  expectError(t, await app.inject({ method: 'DELETE', url: '/__admin/sandboxes/default' }), 400);
  expectError(t, await app.inject({ url: '/__admin/sandboxes/nope' }), 404);
});

t.test('scenario switching per sandbox and reset', async (t) => {
  const app = await build(t);
  const res = await app.inject({
    method: 'PUT',
    url: '/__admin/scenario',
    headers: { 'x-mock-sandbox': 'qa' },
    payload: { name: 'no-rights' },
  });
  t.match(json(res), { sandbox: 'qa', name: 'no-rights' });
  t.equal(json(await app.inject({ url: '/__admin/scenario?sandbox=qa' })).name, 'no-rights');
  t.equal(json(await app.inject({ url: '/__admin/scenario' })).name, 'default', 'default sandbox untouched');
  const unknown = expectError(
    t,
    await app.inject({ method: 'PUT', url: '/__admin/scenario', payload: { name: 'nope' } }),
    404,
  );
  t.match(unknown.message, /known: .*flaky/);
  expectError(t, await app.inject({ method: 'PUT', url: '/__admin/scenario', payload: {} }), 400);

  await signIn(app, accounts.admin, { sandbox: 'qa' });
  t.ok(app.sandboxes.get('qa').outbox.list().length >= 0);
  t.ok(app.sandboxes.get('qa').journal.size() > 0);
  const reset = json(await app.inject({ method: 'POST', url: '/__admin/reset?sandbox=qa', payload: { seed: 5 } }));
  t.match(reset, { name: 'qa', scenario: 'default', journalEntries: 0, outboxMessages: 0 });
  t.equal(app.sandboxes.get('qa').store.meta.seed, 5);
  t.equal(app.sandboxes.get('qa').store.tenant(tenants.romashka)!.sessions.length, 0);
});

t.test('state: export then import answers the same; an invalid snapshot changes nothing', async (t) => {
  const app = await build(t);
  const s = await signIn(app);
  await app.inject({
    method: 'POST',
    url: '/mobile/save-push-token',
    headers: s.headers,
    payload: { token: 'tok', deviceId: s.deviceId },
  });
  const snapshot = json(await app.inject({ url: '/__admin/state' }));
  t.equal(snapshot.format, 'portal-mock-state');

  const fresh = await build(t);
  expectError(t, await fresh.inject({ url: '/mobile/tenant-info', headers: s.headers }), 401);
  t.equal((await fresh.inject({ method: 'PUT', url: '/__admin/state', payload: snapshot })).statusCode, 200);
  const a = await app.inject({ url: '/mobile/tenant-info', headers: s.headers });
  const b = await fresh.inject({ url: '/mobile/tenant-info', headers: s.headers });
  t.equal(b.statusCode, 200);
  t.equal(a.body, b.body);
  t.equal(
    JSON.stringify(fresh.sandboxes.get('default').store.toData()),
    JSON.stringify(app.sandboxes.get('default').store.toData()),
  );

  const before = JSON.stringify(fresh.sandboxes.get('default').store.toData());
  const broken = structuredClone(snapshot);
  broken.data.tenants[tenants.romashka]!.users[0].email = 42;
  const res = expectError(t, await fresh.inject({ method: 'PUT', url: '/__admin/state', payload: broken }), 422);
  t.match(res.message, /users\/0\/email/);
  t.equal(JSON.stringify(fresh.sandboxes.get('default').store.toData()), before, 'unchanged');
  expectError(t, await fresh.inject({ method: 'PUT', url: '/__admin/state', payload: { format: 'other' } }), 400);
});

t.test('--state starts from a snapshot: scenario + snapshot + seed replay a bug', async (t) => {
  const app = await build(t);
  const s = await signIn(app);
  const file = join(mkdtempSync(join(tmpdir(), 'pm-state-')), 'bug.json');
  writeFileSync(file, (await app.inject({ url: '/__admin/state' })).body);
  const replay = await build(t, { state: file, scenario: 'default' });
  t.equal((await replay.inject({ url: '/mobile/tenant-info', headers: s.headers })).statusCode, 200);
});

t.test('journal: filters, count, clear, secrets redacted', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  for (let i = 0; i < 3; i++) await inject({ url: '/mobile/tenant-info', headers: s.headers });
  await inject({ url: '/mobile/tenant-info' });
  t.equal(json(await inject({ url: '/__admin/requests/count?operationId=mobileTenantInfo' })).count, 4);
  t.equal(json(await inject({ url: '/__admin/requests/count?operationId=mobileTenantInfo&status=401' })).count, 1);
  t.equal(json(await inject({ url: '/__admin/requests/count?method=POST' })).count, 3);
  const entries = json<Array<Record<string, any>>>(await inject({ url: '/__admin/requests?limit=2' }));
  t.equal(entries.length, 2);
  t.ok(entries[0]!.id > entries[1]!.id, 'newest first');
  const auth = json<Array<Record<string, any>>>(
    await inject({ url: '/__admin/requests?operationId=mobileManualBind' }),
  )[0]!;
  t.equal(auth.requestBody.password, '[redacted]');
  t.equal(auth.responseBody.accountSecret, '[redacted]', 'the account secret, a secret by its name, as a whole');
  const tenantInfo = json<Array<Record<string, any>>>(
    await inject({ url: '/__admin/requests?operationId=mobileTenantInfo&status=200&limit=1' }),
  )[0]!;
  t.equal(tenantInfo.requestHeaders['x-service-session-code'], '[redacted]');
  t.equal(json(await inject({ url: '/__admin/requests/count?path=/mobile/*' })).count, 7);
  await inject({ method: 'DELETE', url: '/__admin/requests' });
  t.equal(json(await inject({ url: '/__admin/requests/count' })).count, 0);
  expectError(t, await inject({ url: '/__admin/requests?status=abc' }), 400);
});

t.test('the journal is bounded', async (t) => {
  const app = await build(t, { journalLimit: 5 });
  for (let i = 0; i < 12; i++) await app.inject({ url: '/mobile/tenant-info' });
  const entries = json<Array<{ id: number }>>(await app.inject({ url: '/__admin/requests' }));
  t.equal(entries.length, 5);
  t.equal(entries[0]!.id, 12, 'the oldest were dropped');
});

t.test('clock: freeze, advance, offset, release', async (t) => {
  const { inject } = await ownSandbox();
  t.equal(json(await inject({ url: '/__admin/clock' })).now, '2026-03-02T09:00:00.000Z');
  t.equal(
    json(await inject({ method: 'PUT', url: '/__admin/clock', payload: { advanceMs: 3_600_000 } })).now,
    '2026-03-02T10:00:00.000Z',
  );
  t.equal(
    json(await inject({ method: 'PUT', url: '/__admin/clock', payload: { freeze: '2027-01-01T00:00:00Z' } })).now,
    '2027-01-01T00:00:00.000Z',
  );
  // real time a day back, read between the two stamps around the call (however long it takes)
  const before = Date.now();
  const offset = json(await inject({ method: 'PUT', url: '/__admin/clock', payload: { offsetMs: -86_400_000 } }));
  const after = Date.now();
  const shown = Date.parse(offset.now) + 86_400_000;
  t.ok(shown >= before && shown <= after, `a day back: ${offset.now}`);
  t.equal(json(await inject({ method: 'PUT', url: '/__admin/clock', payload: { mode: 'real' } })).state.mode, 'real');
  expectError(
    t,
    await inject({
      method: 'PUT',
      url: '/__admin/clock',
      payload: { freeze: '2027-01-01T00:00:00Z', advanceMs: 1 },
    }),
    400,
  );
  expectError(t, await inject({ method: 'PUT', url: '/__admin/clock', payload: { freeze: 'tomorrow' } }), 400);
});

t.test('sessions/expire', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  t.equal(json(await inject({ method: 'POST', url: '/__admin/sessions/expire', payload: {} })).expired, 1);
  expectError(t, await inject({ url: '/mobile/tenant-info', headers: s.headers }), 401);
});

t.test('bind-links: minted, single-use, with a QR image', async (t) => {
  const { inject } = await ownSandbox();
  const link = json(
    await inject({ method: 'POST', url: '/__admin/bind-links', payload: { email: accounts.nwAdmin.email } }),
  );
  t.match(link, {
    tenantId: tenants.northwind,
    userId: accounts.nwAdmin.userId,
    singleUse: true,
    url: /\/mobile\/bind\//,
  });
  const path = new URL(link.url).pathname;
  t.equal((await inject({ method: 'POST', url: path, payload: { device: { id: 'x1' } } })).statusCode, 200);
  expectError(t, await inject({ method: 'POST', url: path, payload: { device: { id: 'x2' } } }), 403);
  const qr = await inject({ url: new URL(link.qr).pathname });
  t.equal(qr.statusCode, 200);
  t.match(qr.body, /^<svg/);
  expectError(
    t,
    await inject({ method: 'POST', url: '/__admin/bind-links', payload: { email: 'nobody@x.test' } }),
    404,
  );
  expectError(t, await inject({ method: 'POST', url: '/__admin/bind-links', payload: {} }), 400);
  expectError(t, await inject({ url: '/__admin/bind-links/nope/qr.svg' }), 404);
});

t.test('--admin-token protects every admin route', async (t) => {
  const app = await build(t, { adminToken: 's3cret' });
  expectError(t, await app.inject({ url: '/__admin/health' }), 401);
  expectError(t, await app.inject({ url: '/__admin/sandboxes' }), 401);
  expectError(t, await app.inject({ method: 'POST', url: '/__admin/reset', payload: {} }), 401);
  t.equal(
    (await app.inject({ url: '/__admin/sandboxes', headers: { authorization: 'Bearer s3cret' } })).statusCode,
    200,
  );
  t.equal(
    (await app.inject({ url: '/mobile/oauth-list', headers: { 'x-service-tenant-id': tenants.romashka } })).statusCode,
    200,
    'the API itself is not affected',
  );
});

t.test('--admin-token: a wrong token is told apart from a missing one', async (t) => {
  const app = await build(t, { adminToken: 's3cret' });
  const message = async (headers: Record<string, string>) =>
    (await app.inject({ url: '/__admin/sandboxes', headers })).json().message as string;
  t.match(await message({}), /^admin token required: Authorization: Bearer TOKEN/, 'none given: required');
  const wrong: Array<[string, Record<string, string>]> = [
    ['authorization', { authorization: 'Bearer wrong' }],
    ['x-mock-admin-token', { 'x-mock-admin-token': 'wrong' }],
  ];
  for (const [name, headers] of wrong) {
    const text = await message(headers);
    t.match(text, /^the admin token given does not match this server's --admin-token/, name);
    t.notMatch(text, /wrong/, 'the value sent is not echoed');
  }
  const qr = await app.inject({ url: '/__admin/bind-links/nope/qr.svg?token=wrong' });
  t.match(qr.json(), { statusCode: 401, message: /does not match.*\?token=/ }, 'a route that takes ?token= says so');
});

t.test(
  'admin POSTs whose body is optional take none, an empty one, or JSON under any content type (as curl sends it)',
  async (t) => {
    const app = await build(t);
    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const variants: Array<[string, RequestInit]> = [
      ['no body, no content type', { method: 'POST' }],
      [
        'empty body with content-type JSON',
        { method: 'POST', headers: { 'content-type': 'application/json' }, body: '' },
      ],
      [
        'curl -d (form content type)',
        { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '{}' },
      ],
      ['text/plain', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' }],
    ];
    for (const path of ['/__admin/reset', '/__admin/sessions/expire']) {
      for (const [what, init] of variants) {
        const res = await fetch(`${base}${path}`, init);
        t.equal(res.status, 200, `${path}: ${what}`);
      }
    }
    // the body is still read and checked
    const seeded = await fetch(`${base}/__admin/reset`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '{"seed":5}',
    });
    t.equal(seeded.status, 200);
    t.equal(
      ((await (await fetch(`${base}/__admin/health`)).json()) as { seed: number }).seed,
      5,
      'the seed in a form-typed body was used',
    );
    const bad = await fetch(`${base}/__admin/reset`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"seed":"x"}',
    });
    t.equal(bad.status, 400);
    t.match(await bad.json(), { code: 'VALIDATION_FAILED' });
    const broken = await fetch(`${base}/__admin/reset`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{nope',
    });
    t.equal(broken.status, 400);
  },
);
