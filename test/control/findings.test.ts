// Findings (docs/findings.md): for each code, the request that causes it and a control request that does not;
// then the surfaces: per-sandbox isolation, the header, the admin routes, health, HAR notes, a scenario's `off`, the
// admin client's assertNone, and one case end to end over a real socket. The clock is frozen (test/helper.ts build):
// timing detectors see simultaneous requests unless a test advances the clock through PUT /__admin/clock.
import t from 'tap';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { accounts, build, json, signIn, type Session, sharedApp, type InSandbox } from '../helper.js';
import { adminClient } from '../../src/client/control.js';
import { buildApp } from '../../src/app.js';
import { findingCodes, type Finding } from '../../src/schemas/control.js';
import { FindingLog } from '../../src/store/findings.js';

// one app for the file's tests, each in a sandbox of its own
const ownSandbox = sharedApp(t);

const codes = (res: LightMyRequestResponse | Response): string[] => {
  const v =
    res.headers instanceof Headers
      ? res.headers.get('x-mock-finding')
      : (res.headers as Record<string, unknown>)['x-mock-finding'];
  return typeof v === 'string' ? v.split(', ') : [];
};
/** an app, or a test's own sandbox of the shared app: `{ inject }` of fresh() */
type Injects = Pick<InSandbox, 'inject'>;
const findings = async (app: Injects, query = ''): Promise<Finding[]> =>
  json(await app.inject({ url: `/__admin/findings${query}` }));
const advance = (app: Injects, ms: number, sandbox?: string) =>
  app.inject({
    method: 'PUT',
    url: `/__admin/clock${sandbox ? `?sandbox=${sandbox}` : ''}`,
    payload: { advanceMs: ms },
  });
const bearerOf = (token: string, s: Session) => ({
  authorization: `Bearer ${token}`,
  'x-service-tenant-id': s.tenantId,
});

/** Every code gets its own test below; this list is checked against the table so a new code cannot go untested. */
const tested = new Set<string>();
const proves = (code: string) => {
  tested.add(code);
  return code;
};

t.test('set-user-list-not-json: a body that is not application/json', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const code = proves('set-user-list-not-json');
  const form = await inject({
    method: 'POST',
    url: '/user-list-cache/set-user-list',
    headers: { ...s.headers, 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'key=k1&userList[usersId][]=x',
  });
  t.equal(form.statusCode, 200, 'the quirk answers 200');
  t.same(codes(form), [code]);
  const ok = await inject({
    method: 'POST',
    url: '/user-list-cache/set-user-list',
    headers: s.headers,
    payload: { key: 'k2', userList: { usersId: [accounts.noRights.userId] } },
  });
  t.same(codes(ok), [], 'control: application/json');
  const [f] = await findings({ inject });
  t.match(f, {
    code,
    severity: 'error',
    operationId: 'userListCacheSet',
    method: 'POST',
    path: '/user-list-cache/set-user-list',
    docs: '/docs#/user-list-cache/userListCacheSet',
    message: /EMPTY selection.*application\/json/,
  });
  const entry = json(await inject({ url: '/__admin/requests?operationId=userListCacheSet' })).at(-1);
  t.equal(f!.requestId, entry.id, 'requestId is the journal entry of the request');
});

t.test('date-range-time-of-day: a time of day in a day range', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const code = proves('date-range-time-of-day');
  const timed = await inject({
    url: `/admin/employment?created_at=${encodeURIComponent('2026-01-01 10:00:00|2026-01-31')}`,
    headers: s.headers,
  });
  t.equal(timed.statusCode, 422, 'the mock answers 422 as the real portal does');
  t.same(codes(timed), [code]);
  t.same(
    codes(
      await inject({
        url: `/user/index?last_login_at=${encodeURIComponent('2026-01-01T08:00|')}`,
        headers: s.headers,
      }),
    ),
    [code],
    '/user/index too',
  );
  const days = await inject({
    url: `/admin/employment?created_at=${encodeURIComponent('2026-01-01|2026-01-31')}`,
    headers: s.headers,
  });
  t.equal(days.statusCode, 200);
  t.same(codes(days), [], 'control: whole days');
});

t.test('user-index-per-page and admin-per-page-clamped', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const strict = proves('user-index-per-page');
  const clamped = proves('admin-per-page-clamped');
  const big = await inject({ url: '/user/index?per-page=50', headers: s.headers });
  t.equal(big.statusCode, 400);
  t.same(codes(big), [strict]);
  t.same(codes(await inject({ url: '/user/index?per-page=0', headers: s.headers })), [strict], 'below 1 too');
  t.same(codes(await inject({ url: '/user/index?per-page=20', headers: s.headers })), [], 'control: 20');
  const admin = await inject({ url: '/admin/employment?per-page=500', headers: s.headers });
  t.equal(json(admin)._meta.perPage, 100, 'clamped');
  t.same(codes(admin), [clamped]);
  t.same(codes(await inject({ url: '/admin/employment?per-page=100', headers: s.headers })), [], 'control: 100');
  t.equal((await findings({ inject }, `?code=${clamped}`))[0]!.severity, 'warning');
});

t.test('search-without-right: /user/search without show-structure-names', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const code = proves('search-without-right');
  const petr = await signIn(app, accounts.noRights, { sandbox });
  const empty = await inject({ url: '/user/search?q=a', headers: petr.headers });
  t.same(json(empty).users, []);
  t.same(codes(empty), [code]);
  const ivan = await signIn(app, accounts.admin, { sandbox });
  t.same(codes(await inject({ url: '/user/search?q=a', headers: ivan.headers })), [], 'control: with the right');
});

t.test('session-headers-missing: none or some of the session headers after /mobile/auth', async (t) => {
  const app = await build(t);
  const code = proves('session-headers-missing');
  const before = await app.inject({ url: '/mobile/tenant-info', headers: { 'x-mock-sandbox': 'fresh' } });
  t.equal(before.statusCode, 401);
  t.same(codes(before), [], 'control: no /mobile/auth in that sandbox yet');
  const s = await signIn(app);
  const none = await app.inject({ url: '/mobile/tenant-info' });
  t.equal(none.statusCode, 401);
  t.same(codes(none), [code]);
  const { 'x-service-session-code': _code, ...partial } = s.headers;
  const some = await app.inject({ url: '/mobile/tenant-info', headers: partial });
  t.same(codes(some), [code]);
  t.match((await findings(app))[0]!.message, /Session header\(s\) x-service-session-code missing/);
  t.same(codes(await app.inject({ url: '/mobile/tenant-info', headers: s.headers })), [], 'control: all four');
});

t.test('session-other-device and session-after-unbind', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const other = proves('session-other-device');
  const unbound = proves('session-after-unbind');
  const a = await signIn(app, accounts.admin, { sandbox, deviceId: 'phone-a' });
  const b = await signIn(app, accounts.admin, { sandbox, deviceId: 'phone-b' });
  const mixed = await inject({
    url: '/mobile/tenant-info',
    headers: { ...a.headers, 'x-service-device-id': 'phone-b' },
  });
  t.equal(mixed.statusCode, 401);
  t.same(codes(mixed), [other]);
  t.same(codes(await inject({ url: '/mobile/tenant-info', headers: a.headers })), [], 'control: its own device');

  const unbind = await inject({ method: 'POST', url: '/mobile/unbind?deviceId=phone-a', headers: a.headers });
  t.equal(unbind.statusCode, 200);
  t.same(codes(unbind), [], 'control: the sign-out itself');
  const after = await inject({ url: '/mobile/tenant-info', headers: a.headers });
  t.equal(after.statusCode, 401);
  t.same(codes(after), [unbound]);
  t.same(
    codes(await inject({ url: '/mobile/tenant-info', headers: b.headers })),
    [],
    "control: the other device's session",
  );
  await advance({ inject }, 5000);
  const retried = await inject({ method: 'POST', url: '/mobile/unbind?deviceId=phone-a', headers: a.headers });
  t.equal(retried.statusCode, 401);
  t.same(codes(retried), [], 'control: the unbind retried after a lost answer');
  // an HTTP client that adds the last session headers to every call: the sign-in operations ignore them
  const creds = { email: accounts.admin.email, password: 'demo1234' };
  const stale = a.headers;
  const post = (url: string, payload: object) => inject({ method: 'POST', url, headers: stale, payload });
  t.same(codes(await post('/mobile/request-two-factor', creds)), [], 'control: old headers on sign-in');
  const bound = await post('/mobile/manual-bind', { ...creds, device: { id: 'phone-a' } });
  t.equal(bound.statusCode, 200);
  t.same(codes(bound), [], 'control: old headers on manual-bind');
  const { secret, userId, deviceId } = json(bound).accountSecret;
  const auth = await post('/mobile/auth', { secret, userId, deviceId });
  t.equal(auth.statusCode, 200);
  t.same(codes(auth), [], 'control: old headers on /mobile/auth');
  const { sessionId, sessionSecret } = json(auth);
  const again = { ...a.headers, 'x-service-session-id': sessionId, 'x-service-session-code': sessionSecret };
  t.same(
    codes(await inject({ url: '/mobile/tenant-info', headers: again })),
    [],
    'control: a new session after binding',
  );
});

t.test('unauthorized-loop: a third 401 with no new /mobile/auth between', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const code = proves('unauthorized-loop');
  const s = await signIn(app, accounts.admin, { sandbox, deviceId: 'loop-phone' });
  const bad = { ...s.headers, 'x-service-session-code': 'wrong' };
  const call = () => inject({ url: '/dashboard?widgets=myTeam', headers: bad });
  t.same(codes(await call()), []);
  t.same(codes(await call()), [], 'two 401s are not yet a loop');
  await signIn(app, accounts.admin, { sandbox, deviceId: 'loop-phone' });
  t.same(codes(await call()), [], 'control: /mobile/auth in between starts the count again');
  t.same(codes(await call()), []);
  const third = await call();
  t.equal(third.statusCode, 401);
  t.same(codes(third), [code]);

  // a screen's calls sent together all meet the expired session: each is one 401, not a loop
  const fresh = await signIn(app, accounts.admin, { sandbox, deviceId: 'burst-phone' });
  const expired = { ...fresh.headers, 'x-service-session-code': 'expired' };
  const screen = ['/mobile/tenant-info', '/dashboard?info=notificationsBadge', '/notifications/pushes', '/user/items'];
  const burst = await Promise.all(screen.map((url) => inject({ url, headers: expired })));
  t.same(
    burst.map((r) => r.statusCode),
    [401, 401, 401, 401],
  );
  t.same(burst.flatMap(codes), [], 'control: four different calls, one 401 each');
});

t.test('two-factor-code-missing: manual bind without the code while codeRequired is true', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const code = proves('two-factor-code-missing');
  const creds = { email: accounts.twoFactor.email, password: 'demo1234' };
  t.equal(json(await inject({ method: 'POST', url: '/mobile/request-two-factor', payload: creds })).codeRequired, true);
  const without = await inject({
    method: 'POST',
    url: '/mobile/manual-bind',
    payload: { ...creds, device: { id: 'p1' } },
  });
  t.equal(without.statusCode, 403);
  t.same(codes(without), [code]);
  const sent = app.sandboxes
    .get(sandbox)
    .outbox.list()
    .find((m) => m.to === creds.email)!.code;
  const withCode = await inject({
    method: 'POST',
    url: '/mobile/manual-bind',
    payload: { ...creds, code: sent, device: { id: 'p1' } },
  });
  t.equal(withCode.statusCode, 200);
  t.same(codes(withCode), [], 'control: with the code');
  const plain = await inject({
    method: 'POST',
    url: '/mobile/manual-bind',
    payload: { email: accounts.admin.email, password: 'demo1234', device: { id: 'p2' } },
  });
  t.same(codes(plain), [], 'control: an account without two-factor');

  // without request-two-factor: the first 403 says the code is missing; repeating the bind without it is the mistake
  const bob = { email: accounts.nwTwoFactor.email, password: 'demo1234', device: { id: 'p3' } };
  const first = await inject({ method: 'POST', url: '/mobile/manual-bind', payload: bob });
  t.equal(first.statusCode, 403);
  t.same(codes(first), []);
  await advance({ inject }, 3000);
  const bind = (payload: object) => inject({ method: 'POST', url: '/mobile/manual-bind', payload });
  const repeated = await bind({ ...bob, email: ` ${bob.email.toUpperCase()}` });
  t.same(codes(repeated), [code], 'repeated without the code (the e-mail as typed, case and spaces aside)');
  // a wrong password is a 403 too, which says nothing about a code
  const mistyped = { email: accounts.noRights.email, password: 'demo12345', device: { id: 'p4' } };
  for (let i = 0; i < 2; i++) {
    await advance({ inject }, 3000);
    const wrong = await inject({ method: 'POST', url: '/mobile/manual-bind', payload: mistyped });
    t.equal(wrong.statusCode, 403);
    t.same(codes(wrong), [], `control: wrong password ${i + 1} on an account without two-factor`);
  }
  await advance({ inject }, 3000);
  const right = await bind({ ...mistyped, password: 'demo1234' });
  t.same(codes(right), [], 'control: then the right one');
});

t.test('uploads: upload-never-finished, finish-before-upload, prepare-new-id', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const stale = proves('upload-never-finished');
  const early = proves('finish-before-upload');
  const newId = proves('prepare-new-id');
  const prepare = async (payload: object) =>
    inject({ method: 'POST', url: '/file/prepare-upload', headers: s.headers, payload });

  const first = await prepare({ name: 'report.pdf', size: 3, is_public: false });
  t.same(codes(first), []);
  await advance({ inject }, 2000); // not within a second: that would be a retry storm as well
  const second = await prepare({ name: 'report.pdf', size: 3, is_public: false });
  t.not(json(second).id, json(first).id, 'no id: a second record');
  t.same(codes(second), [newId]);
  const id = randomUUID();
  t.same(codes(await prepare({ id, name: 'other.pdf', size: 3, is_public: false })), []);
  await advance({ inject }, 2000);
  t.same(codes(await prepare({ id, name: 'other.pdf', size: 3, is_public: false })), [], 'control: the same id again');

  const finish = await inject({ method: 'POST', url: `/file/finish-upload?id=${id}`, headers: s.headers });
  t.equal(finish.statusCode, 409);
  t.same(codes(finish), [early]);
  const upload = new URL(json(await prepare({ id, name: 'other.pdf', size: 3, is_public: false })).uploadUrl);
  t.equal(
    (
      await inject({
        method: 'PUT',
        url: upload.pathname + upload.search,
        payload: Buffer.from('abc'),
        headers: { 'content-type': 'application/pdf' },
      })
    ).statusCode,
    200,
  );
  await advance({ inject }, 2000);
  const done = await inject({ method: 'POST', url: `/file/finish-upload?id=${id}`, headers: s.headers });
  t.equal(done.statusCode, 200);
  t.same(codes(done), [], 'control: finish after the bytes');

  t.same(await findings({ inject }, `?code=${stale}`), [], 'not stale yet');
  await advance({ inject }, 16 * 60_000);
  const found = await findings({ inject }, `?code=${stale}`);
  t.equal(found.length, 2, 'the two never-finished prepares, not the finished one');
  t.same(
    found.map((f) => f.requestId).sort(),
    [
      json(await inject({ url: '/__admin/requests?operationId=filePrepareUpload&limit=10' })).at(-1).id,
      json(await inject({ url: '/__admin/requests?operationId=filePrepareUpload&limit=10' })).at(-2).id,
    ].sort(),
    'each names its prepare request',
  );
  t.match(found[0], { severity: 'warning', operationId: 'filePrepareUpload', docs: '/docs#/file/filePrepareUpload' });
  t.equal((await findings({ inject }, `?code=${stale}`)).length, 2, 'reported once');
});

t.test('push-token-repeated: the same token registered again', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const code = proves('push-token-repeated');
  const save = (token: string) =>
    inject({
      method: 'POST',
      url: '/mobile/save-push-token',
      headers: s.headers,
      payload: { token, deviceId: s.deviceId },
    });
  t.same(codes(await save('tok-1')), []);
  await advance({ inject }, 5000);
  t.same(codes(await save('tok-1')), [code], 'next start, same token');
  await advance({ inject }, 5000);
  t.same(codes(await save('tok-2')), [], 'control: a new token');

  const unbind = await inject({ method: 'POST', url: `/mobile/unbind?deviceId=${s.deviceId}`, headers: s.headers });
  t.equal(unbind.statusCode, 200);
  await advance({ inject }, 60_000);
  const again = await signIn(app, accounts.admin, { sandbox, deviceId: s.deviceId });
  const payload = { token: 'tok-2', deviceId: s.deviceId };
  const saved = await inject({ method: 'POST', url: '/mobile/save-push-token', headers: again.headers, payload });
  t.equal(saved.statusCode, 200);
  t.same(codes(saved), [], 'control: the same token for the device bound again (unbind removed it)');
});

t.test('polling-too-fast and retry-storm: the sandbox clock says how far apart', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const poll = proves('polling-too-fast');
  const storm = proves('retry-storm');
  const view = () =>
    inject({ url: '/file-processing/view?id=7d3f9a2e-0000-4000-8000-000000000001', headers: s.headers });
  t.same(codes(await view()), []);
  t.same(codes(await view()), [poll], 'again at the same instant');
  await advance({ inject }, 1000);
  t.same(codes(await view()), [], 'control: a second later');
  const list = (query = '') => inject({ url: `/file-processing${query}`, headers: s.headers });
  t.same(codes(await list()), []);
  t.same(codes(await list()), [poll], 'the list polled again at the same instant');
  t.same(codes(await list('?page=2')), [], 'control: the next page is no poll');

  const markAll = () => inject({ method: 'POST', url: '/notifications/mark-seen-all', headers: s.headers });
  t.same(codes(await markAll()), []);
  await advance({ inject }, 400);
  t.same(codes(await markAll()), [storm], 'the same POST 0.4 s later');
  await advance({ inject }, 1500);
  t.same(codes(await markAll()), [], 'control: 1.5 s later');
  const status = (text: string) =>
    inject({ method: 'POST', url: '/account/status-text', headers: s.headers, payload: { activeTypes: text } });
  t.same(codes(await status('a')), []);
  t.same(codes(await status('b')), [], 'control: another body');
});

t.test('retry-storm: a /mobile/auth right after a 401 answers it; twice without one is a storm', async (t) => {
  const { inject } = await ownSandbox();
  const storm = proves('retry-storm');
  const { email, password } = accounts.admin;
  const device = { id: 'storm-phone', platform: 'ios' };
  const bind = await inject({ method: 'POST', url: '/mobile/manual-bind', payload: { email, password, device } });
  const secret = json(bind).accountSecret;
  const auth = () =>
    inject({
      method: 'POST',
      url: '/mobile/auth',
      headers: { 'x-service-tenant-id': secret.tenantId },
      payload: { secret: secret.secret, userId: secret.userId, deviceId: secret.deviceId },
    });
  const first = json(await auth());
  const headers = {
    'x-service-tenant-id': secret.tenantId,
    'x-service-device-id': device.id,
    'x-service-session-id': first.sessionId,
    'x-service-session-code': first.sessionSecret,
  };
  await inject({ method: 'POST', url: '/__admin/sessions/expire' });
  t.equal((await inject({ url: '/mobile/tenant-info', headers })).statusCode, 401);
  t.same(codes(await auth()), [], 'the re-auth answering the 401, at the same instant');
  t.same(codes(await auth()), [storm], 'control: one more at the same instant, with no 401 between');
});

t.test('bearer-on-token-management: a personal token on token management', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const code = proves('bearer-on-token-management');
  const token = json(
    await inject({ method: 'POST', url: '/user-api-token/create', headers: s.headers, payload: { name: 'CI' } }),
  ).token as string;
  const list = await inject({ url: '/user-api-token', headers: bearerOf(token, s) });
  t.equal(list.statusCode, 403);
  t.same(codes(list), [code]);
  t.same(codes(await inject({ url: '/user-api-token', headers: s.headers })), [], 'control: session headers');
  t.same(
    codes(await inject({ url: '/mobile/tenant-info', headers: bearerOf(token, s) })),
    [],
    'control: Bearer elsewhere',
  );
});

t.test('wrong-body-type: a value of the wrong JSON type that validation converted', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const code = proves('wrong-body-type');
  const res = await inject({
    method: 'POST',
    url: '/mobile/request-two-factor',
    payload: { email: accounts.admin.email, password: true },
  });
  t.not(res.statusCode, 400, 'the mock accepted "true"');
  t.same(codes(res), [code]);
  t.match((await findings({ inject }))[0]!.message, /password as boolean where the API takes string/);
  const s = await signIn(app, accounts.admin, { sandbox });
  const nested = await inject({
    method: 'POST',
    url: '/feedback/add',
    headers: s.headers,
    payload: { type: 'user', id: accounts.noRights.userId, score: '4', text: 'ok' },
  });
  t.equal(nested.statusCode, 200);
  t.same(codes(nested), [code], 'a number sent as a string');
  await advance({ inject }, 2000);
  t.same(
    codes(
      await inject({
        method: 'POST',
        url: '/mobile/request-two-factor',
        payload: { email: accounts.admin.email, password: 'demo1234' },
      }),
    ),
    [],
    'control: the declared types',
  );
  const rejected = await inject({
    method: 'POST',
    url: '/feedback/add',
    headers: s.headers,
    payload: { type: 'user', id: accounts.noRights.userId, score: 'many', text: 'ok' },
  });
  t.equal(rejected.statusCode, 400);
  t.same(codes(rejected), [], 'control: a value validation refused (the app sees the 400)');
});

t.test('retry-created-duplicate: a create repeated after the first succeeded', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const code = proves('retry-created-duplicate');
  const body = { type: 'user', id: accounts.noRights.userId, score: 5, text: 'Thanks' };
  const add = (payload: object) => inject({ method: 'POST', url: '/feedback/add', headers: s.headers, payload });
  const first = await add(body);
  t.same(codes(first), []);
  await advance({ inject }, 3000);
  const retry = await add(body);
  t.not(json(retry).feedback.id, json(first).feedback.id, 'the mock created a second record, as the portal does');
  t.same(codes(retry), [code]);
  const [f] = await findings({ inject }, `?code=${code}`);
  const journal = json(await inject({ url: '/__admin/requests?operationId=feedbackAdd' }));
  t.equal(f!.requestId, journal[0].id, 'the finding names the retry');
  t.match(f!.message, new RegExp(`request #${journal[1].id} had created it`), 'and the first request');
  t.same(codes(await add({ ...body, text: 'Another' })), [], 'control: another body');
  await advance({ inject }, 61_000);
  t.same(codes(await add(body)), [], 'control: a minute later it is a new feedback, not a retry');

  const idea = { title: 'Coffee machine', description: 'On floor 3', idea_purpose_id: 1 };
  const created = await inject({ method: 'POST', url: '/idea/edit', headers: s.headers, payload: idea });
  t.equal(created.statusCode, 200, created.body);
  const edit = (id: string) =>
    inject({ method: 'POST', url: `/idea/edit?id=${id}`, headers: s.headers, payload: idea });
  t.same(codes(await edit(json(created).id)), [], 'control: an edit (with id) is no create');
  t.same(
    codes(await edit(json(created).id)),
    ['retry-storm'],
    'control: repeating the edit is no duplicate (only too fast)',
  );
  await advance({ inject }, 2000);
  t.same(
    codes(await inject({ method: 'POST', url: '/idea/edit', headers: s.headers, payload: idea })),
    [code],
    'the idea create again',
  );
});

t.test('every code has a test and a line in docs/findings.md', async (t) => {
  const { readFileSync } = await import('node:fs');
  const doc = readFileSync(new URL('../../docs/findings.md', import.meta.url), 'utf8');
  for (const code of findingCodes) {
    t.ok(tested.has(code), `${code} is tested`);
    t.match(doc, new RegExp(`\`${code}\``), `${code} is documented`);
  }
});

t.test('findings are per sandbox; admin routes, health, clear', async (t) => {
  const app = await build(t);
  const a = await signIn(app, accounts.admin, { sandbox: 'a' });
  await signIn(app, accounts.admin, { sandbox: 'b' });
  const res = await app.inject({ url: '/user/index?per-page=99', headers: a.headers });
  t.same(codes(res), ['user-index-per-page']);
  t.equal((await findings(app, '?sandbox=a')).length, 1);
  t.same(await findings(app, '?sandbox=b'), [], 'sandbox b saw nothing of it');
  t.same(await findings(app), [], 'nor default');
  t.same(json(await app.inject({ url: '/__admin/health?sandbox=a' })).findings, { warning: 0, error: 1 });
  t.same(json(await app.inject({ url: '/__admin/health?sandbox=b' })).findings, { warning: 0, error: 0 });
  t.equal((await findings(app, '?sandbox=a&severity=warning')).length, 0, 'filter by severity');
  t.equal((await findings(app, '?sandbox=a&code=retry-storm')).length, 0, 'filter by code');
  t.equal((await findings(app, '?sandbox=a&since=2026-03-02T09:00:00.000Z')).length, 1, 'since: the sandbox clock');
  t.equal((await findings(app, '?sandbox=a&since=2026-03-02T09:00:01.000Z')).length, 0);
  t.equal(
    (await app.inject({ url: '/__admin/findings?code=no-such-code' })).statusCode,
    400,
    'an unknown code filter is a 400',
  );
  t.same(json(await app.inject({ method: 'DELETE', url: '/__admin/findings?sandbox=a' })), { cleared: 1 });
  t.same(await findings(app, '?sandbox=a'), []);
  t.equal((await app.inject({ method: 'POST', url: '/__admin/reset?sandbox=a' })).statusCode, 200);
  t.equal(app.sandboxes.get('a').findingLog, null, 'reset drops the findings and what the detectors remember');
});

t.test('HAR export: findings as notes on the entries', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  await inject({ url: '/user/index?per-page=21', headers: s.headers });
  await inject({ url: '/user/index?per-page=5', headers: s.headers });
  const har = json(await inject({ url: '/__admin/requests?format=har' }));
  const bad = har.log.entries.find((e: any) => e.request.url.includes('per-page=21'));
  const good = har.log.entries.find((e: any) => e.request.url.includes('per-page=5'));
  t.match(
    bad.comment,
    /finding user-index-per-page \(error\): per-page=21 is outside 1 to 20.*\/docs#\/user\/userIndex/,
  );
  t.same(
    bad.response.headers.find((h: any) => h.name === 'x-mock-finding'),
    { name: 'x-mock-finding', value: 'user-index-per-page' },
  );
  t.notMatch(good.comment, /finding/, 'control: the entry without a finding has no note');
});

t.test('a scenario turns codes off; an unknown code fails the load', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'findings-scenarios-'));
  writeFileSync(
    join(dir, 'quiet.json'),
    JSON.stringify({ name: 'quiet', description: 'no per-page findings', findings: { off: ['user-index-per-page'] } }),
  );
  writeFileSync(
    join(dir, 'quieter.json'),
    JSON.stringify({
      name: 'quieter',
      description: 'extends quiet',
      extends: 'quiet',
      findings: { off: ['search-without-right'] },
    }),
  );
  const app = await build(t, { scenarios: [dir] });
  const s = await signIn(app, accounts.noRights);
  const call = (scenario: string) =>
    app.inject({ url: '/user/index?per-page=50', headers: { ...s.headers, 'x-mock-scenario': scenario } });
  t.same(codes(await call('default')), ['user-index-per-page'], 'control: the default scenario reports it');
  t.same(codes(await call('quiet')), [], 'off in quiet');
  t.same(codes(await call('quieter')), [], 'off lists add up through extends');
  t.same(
    codes(await app.inject({ url: '/user/search?q=a', headers: { ...s.headers, 'x-mock-scenario': 'quieter' } })),
    [],
  );
  t.equal((await findings(app, '?code=user-index-per-page')).length, 1, 'only the default-scenario call was recorded');

  writeFileSync(
    join(dir, 'typo.json'),
    JSON.stringify({ name: 'typo', description: 'bad code', findings: { off: ['retry-strom'] } }),
  );
  await t.rejects(
    buildApp({ scenarios: [dir] }),
    /typo\.json: at \/findings\/off\/0: unknown finding code "retry-strom"; known: set-user-list-not-json, /,
  );
});

t.test('end to end over a real socket: the header, the admin client, assertNone', async (t) => {
  const app = await build(t);
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const mock = adminClient({ baseUrl: base, sandbox: 'e2e' });
  const s = await signIn(app, accounts.admin, { sandbox: 'e2e' });
  await mock.findings.assertNone({ severity: 'warning' });
  const search = await fetch(`${base}/sandbox/e2e/user/search?q=a`, { headers: s.headers });
  t.same(codes(search), [], 'a clean call');

  const body = JSON.stringify({ type: 'user', id: accounts.noRights.userId, score: 5, text: 'Thanks' });
  const post = () =>
    fetch(`${base}/sandbox/e2e/feedback/add`, {
      method: 'POST',
      headers: { ...s.headers, 'content-type': 'application/json' },
      body,
    });
  t.same(codes(await post()), []);
  await mock.clock.set({ advanceMs: 400 });
  const retry = await post();
  t.equal(retry.status, 200);
  t.same(
    codes(retry).sort(),
    ['retry-created-duplicate', 'retry-storm'],
    'both, comma-separated, in the network inspector',
  );

  t.equal((await mock.findings.list({ severity: 'error' })).length, 1);
  t.equal((await mock.findings.list({ code: 'retry-storm' }))[0]!.severity, 'warning');
  t.equal((await mock.health()).findings?.error, 1);
  await t.rejects(
    mock.findings.assertNone(),
    /1 finding.*\n.*retry-created-duplicate \(error\) #\d+ POST \/feedback\/add: The same feedback/,
  );
  t.equal((await mock.findings.clear()).cleared, 2);
  await mock.findings.assertNone();
  await fetch(`${base}/sandbox/e2e/user/index?per-page=500`, { headers: s.headers });
  await fetch(`${base}/sandbox/e2e/notifications/mark-seen-all`, { method: 'POST', headers: s.headers });
  await fetch(`${base}/sandbox/e2e/notifications/mark-seen-all`, { method: 'POST', headers: s.headers });
  await t.rejects(mock.findings.assertNone(), /user-index-per-page/);
  await mock.findings.clear();
  await fetch(`${base}/sandbox/e2e/notifications/mark-seen-all`, { method: 'POST', headers: s.headers });
  await mock.findings.assertNone();
  await t.rejects(
    mock.findings.assertNone({ severity: 'warning' }),
    /retry-storm \(warning\)/,
    'stricter: warnings fail too',
  );
});

t.test('bounded like the journal: the last findings, the last 1000 remembered keys', async (t) => {
  const log = new FindingLog(100);
  const f = {
    at: '2026-03-02T09:00:00.000Z',
    code: 'retry-storm',
    severity: 'warning',
    requestId: 1,
    operationId: 'x',
    method: 'POST',
    path: '/x',
    message: 'm',
    docs: '/docs',
  } as const;
  for (let i = 0; i < 150; i++) log.add(f);
  t.equal(log.list().length, 100);
  t.equal(log.list()[0]!.id, 150, 'newest first; ids go on');
  t.same(log.counts(), { warning: 100, error: 0 });
  for (let i = 0; i < 1100; i++) log.set(`k${i}`, { n: i });
  t.equal(log.get('k99'), undefined, 'the oldest keys are forgotten');
  t.same(log.get('k1099'), { n: 1099 });
  t.equal([...log.entries('k')].length, 1000);
});
