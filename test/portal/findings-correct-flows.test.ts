// Correct client flows, run with findings on: each must leave GET /__admin/findings empty (warnings included). A
// false finding teaches users to switch findings off, so every detector must stay silent on what the API description
// (api-spec.md) asks a client to do. The clock is frozen (test/helper.ts build): where a real app would take time
// (a person typing, a retry pause, a poll interval), the test advances the sandbox clock by that time.
import t from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { accounts, build, json, signIn, type Account, sharedApp, type InSandbox } from '../helper.js';
import type { Finding } from '../../src/schemas/control.js';

// one app for the file's tests, each in a sandbox of its own
const ownSandbox = sharedApp(t);

type Json = Record<string, any>;
type Headers = Record<string, string>;
/** what the helpers below use of a tap test (as test/helper.ts types it) */
type Test = { equal: Function; same: Function; teardown(fn: () => unknown): void };

/** The app's calls through inject, each checked for the status the flow expects; the answer parsed. */
function phone(t: Test, app: Pick<InSandbox, 'inject'>) {
  type Answer = { statusCode: number; body: string };
  const check = async (what: string, want: number, res: Promise<Answer>): Promise<Json> => {
    const { statusCode, body } = await res;
    t.equal(statusCode, want, statusCode === want ? what : `${what}: ${body.slice(0, 300)}`);
    return body ? (JSON.parse(body) as Json) : {};
  };
  return {
    get: (url: string, headers: Headers, want = 200) => check(`GET ${url}`, want, app.inject({ url, headers })),
    post: (url: string, headers: Headers, payload?: object, want = 200) =>
      check(`POST ${url}`, want, app.inject({ method: 'POST', url, headers, ...(payload ? { payload } : {}) })),
    /** time passing on the phone: the sandbox clock moves */
    wait: (ms: number) => app.inject({ method: 'PUT', url: '/__admin/clock', payload: { advanceMs: ms } }),
    /** manual-bind of an account without two-factor; answers the accountSecret */
    bind: async (account: Account, deviceId: string) =>
      (
        await check(
          'manual-bind',
          200,
          app.inject({
            method: 'POST',
            url: '/mobile/manual-bind',
            payload: {
              email: account.email,
              password: account.password,
              device: { id: deviceId, platform: 'android' },
            },
          }),
        )
      ).accountSecret as Json,
    /** POST /mobile/auth with the stored accountSecret; answers the four session headers */
    auth: async (secret: Json): Promise<Headers> => {
      const { sessionId, sessionSecret } = await check(
        'auth',
        200,
        app.inject({
          method: 'POST',
          url: '/mobile/auth',
          headers: { 'x-service-tenant-id': secret.tenantId },
          payload: { secret: secret.secret, userId: secret.userId, deviceId: secret.deviceId },
        }),
      );
      return {
        'x-service-tenant-id': secret.tenantId,
        'x-service-device-id': secret.deviceId,
        'x-service-session-id': sessionId,
        'x-service-session-code': sessionSecret,
      };
    },
    expectNoFindings: async () => {
      const found = json<Finding[]>(await app.inject({ url: '/__admin/findings' }));
      t.same(
        found.map((f) => `${f.code} (${f.severity}) ${f.method} ${f.path}: ${f.message}`),
        [],
        'no findings',
      );
    },
  };
}

/** Scenarios for the fault flows, applied to one request by x-mock-scenario: a 503, a reset before the handler. */
function faultScenarios(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'findings-flows-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const body = { statusCode: 503, error: 'Service Unavailable', code: 'UNAVAILABLE', message: 'try again' };
  writeFileSync(
    join(dir, 'unavailable.json'),
    JSON.stringify({
      name: 'unavailable',
      description: 'feedback and dashboard answer 503',
      stubs: [
        { operationId: 'feedbackAdd', status: 503, body },
        { operationId: 'dashboard', status: 503, body },
      ],
    }),
  );
  writeFileSync(
    join(dir, 'reset-before.json'),
    JSON.stringify({
      name: 'reset-before',
      description: 'the connection resets before the handler runs',
      faults: [{ operations: ['feedbackAdd', 'notificationsMarkSeenAll'], kind: 'reset', phase: 'before' }],
    }),
  );
  return dir;
}

t.test('sign in, use the app, sign out; a day later sign in again on the same phone', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const p = phone(t, { inject });
  const s = await signIn(app, accounts.admin, { sandbox, deviceId: 'phone-1' });
  await p.get('/mobile/tenant-info', s.headers);
  await p.get('/dashboard?widgets=myTeam&info=profileBrief,notificationsBadge', s.headers);
  const push = { token: 'fcm-token-1', deviceId: 'phone-1' };
  await p.post('/mobile/save-push-token', s.headers, push);
  await p.wait(10 * 60_000);
  await p.post('/mobile/unbind?deviceId=phone-1', s.headers);

  await p.wait(24 * 3600_000);
  const again = await signIn(app, accounts.admin, { sandbox, deviceId: 'phone-1' });
  // unbind removed the device with its token: the new binding has none until the app registers it again
  await p.post('/mobile/save-push-token', again.headers, push);
  await p.get('/mobile/tenant-info', again.headers);
  await p.expectNoFindings();
});

t.test('wrong password, then the right one', async (t) => {
  const { inject } = await ownSandbox();
  const p = phone(t, { inject });
  // manual bind straight away (the account has no two-factor): the user mistypes twice
  const wrong = { email: accounts.admin.email, password: 'demo12345', device: { id: 'phone-2', platform: 'ios' } };
  for (let i = 0; i < 2; i++) {
    await p.post('/mobile/manual-bind', {}, wrong, 403);
    await p.wait(4000);
  }
  await p.get('/mobile/tenant-info', await p.auth(await p.bind(accounts.admin, 'phone-2')));

  // through request-two-factor first, as a sign-in screen does that does not know whether the account needs a code
  const { email, password } = accounts.noRights;
  await p.post('/mobile/request-two-factor', {}, { email, password: 'wrong' }, 403);
  await p.wait(4000);
  t.equal((await p.post('/mobile/request-two-factor', {}, { email, password })).codeRequired, false);
  await p.get('/mobile/tenant-info', await p.auth(await p.bind(accounts.noRights, 'phone-3')));
  await p.expectNoFindings();
});

t.test('two-factor: request the code, read it from the outbox, bind with it (after one mistyped code)', async (t) => {
  const { inject } = await ownSandbox();
  const p = phone(t, { inject });
  const { email, password, userId } = accounts.twoFactor;
  t.equal((await p.post('/mobile/request-two-factor', {}, { email, password })).codeRequired, true);
  const outbox = await inject({ url: `/__admin/outbox?kind=two-factor-code&to=${encodeURIComponent(email)}` });
  const code = json<Json[]>(outbox)[0]!.code as string;
  t.match(code, /^\d{6}$/);
  const device = { id: 'phone-4', platform: 'ios' };
  await p.wait(20_000);
  const mistyped = code === '123456' ? '654321' : '123456';
  await p.post('/mobile/manual-bind', {}, { email, password, code: mistyped, device }, 403);
  await p.wait(5000);
  const { accountSecret } = await p.post('/mobile/manual-bind', {}, { email, password, code, device });
  await p.get(`/user/profile?id=${userId}`, await p.auth(accountSecret));
  await p.expectNoFindings();
});

t.test('retry after a 5xx, after a pause', async (t) => {
  const app = await build(t, { scenarios: [faultScenarios(t)] });
  const p = phone(t, app);
  const s = await signIn(app);
  const failing = { ...s.headers, 'x-mock-scenario': 'unavailable' };
  const feedback = { type: 'user', id: accounts.noRights.userId, score: 5, text: 'Thanks for the help' };
  await p.post('/feedback/add', failing, feedback, 503);
  await p.wait(1000);
  t.equal((await p.post('/feedback/add', s.headers, feedback)).success, true);

  await p.get('/dashboard?info=notificationsBadge', failing, 503);
  await p.wait(2000);
  await p.get('/dashboard?info=notificationsBadge', s.headers);
  await p.expectNoFindings();
});

t.test('retry after a connection reset before commit, over a real socket', async (t) => {
  const app = await build(t, { scenarios: [faultScenarios(t)] });
  const p = phone(t, app);
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const s = await signIn(app);
  const reset = { 'x-mock-scenario': 'reset-before' };
  const body = JSON.stringify({ type: 'user', id: accounts.noRights.userId, score: 4, text: 'Good onboarding' });
  const add = (extra: Headers = {}) =>
    fetch(`${base}/feedback/add`, {
      method: 'POST',
      headers: { ...s.headers, 'content-type': 'application/json', ...extra },
      body,
    });
  await t.rejects(add(reset), 'the connection was reset');
  const [dropped] = json<Json[]>(await app.inject({ url: '/__admin/requests?operationId=feedbackAdd' }));
  t.match(dropped, { status: 0, fault: 'reset', afterCommit: false }, 'the journal saw it dropped before the handler');
  await p.wait(1000);
  const retried = await add();
  t.equal(retried.status, 200);
  t.equal(((await retried.json()) as Json).success, true);

  const markAll = (extra: Headers = {}) =>
    fetch(`${base}/notifications/mark-seen-all`, {
      method: 'POST',
      headers: { ...s.headers, ...extra },
    });
  await t.rejects(markAll(reset));
  await p.wait(1500);
  t.equal((await markAll()).status, 200);
  await p.expectNoFindings();
});

t.test('paging to the end by _links.next and by _meta.pageCount', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const p = phone(t, { inject });
  const s = await signIn(app, accounts.admin, { sandbox });
  const local = (link: string) => {
    const u = new URL(link);
    return u.pathname + u.search;
  };
  for (const first of ['/notifications/pushes?per-page=3', '/user/index?per-page=20', '/article/news?per-page=4']) {
    let page = await p.get(first, s.headers);
    const seen = [...page.data];
    while (page._links?.next) {
      page = await p.get(local(page._links.next), s.headers);
      seen.push(...page.data);
    }
    t.equal(seen.length, page._meta.totalCount, `${first}: every item once`);
  }
  for (const list of ['/workflow-ticket?per-page=4', '/admin/employment?per-page=100', '/file/index?per-page=2']) {
    const { _meta } = await p.get(`${list}&page=1`, s.headers);
    t.ok(_meta.pageCount > 1, `${list}: more than one page`);
    for (let n = 2; n <= _meta.pageCount; n++) t.ok((await p.get(`${list}&page=${n}`, s.headers)).data.length > 0);
  }
  await p.expectNoFindings();
});

t.test('polling by the sandbox clock: the badge every 30 s, a file processing at 1 s, 2 s, 4 s …', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const p = phone(t, { inject });
  const s = await signIn(app, accounts.admin, { sandbox });
  for (let i = 0; i < 4; i++) {
    t.type((await p.get('/dashboard?info=notificationsBadge', s.headers)).notificationsBadge, 'number');
    await p.wait(30_000);
  }

  const csv = Buffer.from(`email,amount\n${accounts.noRights.email},10\n`);
  const id = '0b7e3c1a-4d2f-4a6b-9c8d-1e2f3a4b5c6d';
  const file = { id, name: 'bonus.csv', size: csv.length, is_public: false };
  const upload = new URL((await p.post('/file/prepare-upload', s.headers, file)).uploadUrl);
  const put = await inject({
    method: 'PUT',
    url: upload.pathname + upload.search,
    payload: csv,
    headers: { 'content-type': 'text/csv' },
  });
  t.equal(put.statusCode, 200, 'upload');
  await p.post(`/file/finish-upload?id=${id}`, s.headers);
  const mapping = { email: 'A', amount: 'B' };
  const queued = await p.post('/admin/wallet-transaction/excel-processing', s.headers, { file_id: id, mapping });
  t.equal(queued.success, true, JSON.stringify(queued));

  let view: Json = {};
  let interval = 1000;
  for (let polls = 0; polls < 200 && !view.finished; polls++) {
    if (polls > 0) {
      await p.wait(interval);
      interval = Math.min(interval * 2, 8000);
      // the parse runs in the background of the server: give it a turn of the event loop between polls
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    view = await p.get(`/file-processing/view?id=${queued.data.id}`, s.headers);
    // the imports screen shows the list too and refreshes it with the record
    await p.get('/file-processing?per-page=20', s.headers);
  }
  t.equal(view.status, 'finished');
  await p.expectNoFindings();
});

t.test('expired session: the calls in flight get 401, one /mobile/auth, then the app carries on', async (t) => {
  const { inject } = await ownSandbox();
  const p = phone(t, { inject });
  const secret = await p.bind(accounts.admin, 'phone-5');
  const first = await p.auth(secret);
  const calls = ['/mobile/tenant-info', '/dashboard?info=notificationsBadge', '/notifications/pushes?per-page=10'];
  for (const url of calls) await p.get(url, first);

  await p.wait(20 * 60_000);
  t.ok(json(await inject({ method: 'POST', url: '/__admin/sessions/expire' })).expired >= 1);
  // the start screen's calls go out together: all answer 401 before the app can react to the first one
  await Promise.all(calls.map((url) => p.get(url, first, 401)));
  const fresh = await p.auth(secret);
  for (const url of calls) await p.get(url, fresh);

  // once more later, one call at a time: the 401, authorize, repeat that call
  await p.wait(60 * 60_000);
  await inject({ method: 'POST', url: '/__admin/sessions/expire' });
  await p.get(calls[1]!, fresh, 401);
  await p.get(calls[1]!, await p.auth(secret));
  await p.expectNoFindings();
});

t.test('a 401 right after sign-in: authorize again at once (a re-auth after a 401 is no retry storm)', async (t) => {
  const { inject } = await ownSandbox();
  const p = phone(t, { inject });
  const secret = await p.bind(accounts.admin, 'phone-6');
  const first = await p.auth(secret);
  // the session ends before the app's first call (the clock is frozen: the re-auth comes 0 ms after the first auth)
  await inject({ method: 'POST', url: '/__admin/sessions/expire' });
  await p.get('/mobile/tenant-info', first, 401);
  await p.get('/mobile/tenant-info', await p.auth(secret));
  await p.expectNoFindings();
});
