import t from 'tap';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { accounts, build, expectError, json, signIn, tenants, sharedApp } from '../helper.js';
import { WidgetKeys } from '../../src/schemas/dashboard-widget.js';

// one app for the file's tests, each in a sandbox of its own
const ownSandbox = sharedApp(t);

const allWidgets = WidgetKeys.join(',');

t.test('dashboard: only requested keys; every widget from the store', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const empty = json(await inject({ url: '/dashboard', headers: s.headers }));
  t.same(empty, { notificationsBadge: 0, widgets: {} });

  const res = await inject({
    url: `/dashboard?widgets=${allWidgets}&info=profileBrief,notificationsBadge`,
    headers: s.headers,
  });
  t.equal(res.statusCode, 200);
  const d = json(res);
  t.same(Object.keys(d.widgets).sort(), [...WidgetKeys].sort());
  t.match(d.profileBrief, {
    id: accounts.admin.userId,
    name: 'Петров Иван Сергеевич',
    departmentName: 'Дирекция по персоналу',
    faceUrl: `http://localhost:80/images/avatar/${accounts.admin.userId}.svg`,
  });
  const tenant = app.sandboxes.get(sandbox).store.tenant(tenants.romashka)!;
  const me = tenant.users.find((u) => u.id === accounts.admin.userId)!;
  t.equal(d.notificationsBadge, tenant.notifications.filter((n) => n.userId === me.id && n.seenAt === null).length);
  t.ok(d.notificationsBadge > 0);

  for (const key of ['myPostcards', 'updNews', 'updIdeas']) {
    t.match(d.widgets[key], { key, count: Number, items: Array }, `${key} comes from its own group`);
    t.ok(d.widgets[key].items.length > 0, `${key} has items`);
  }
  t.match(d.widgets.myFavorites, { key: 'myFavorites', feed: 'personal', count: 0, items: [] });
  for (const key of [
    'myLms',
    'mySurvey',
    'myAchievements',
    'myTeam',
    'updVoting',
    'updAchievements',
    'updBirthday',
    'updNewbies',
    'updBooks',
  ]) {
    const w = d.widgets[key];
    t.match(w, { key, title: String, feed: key.startsWith('my') ? 'personal' : 'company' }, key);
    t.ok(w.count > 0 && w.items.length > 0 && w.items.length <= 5, `${key} has entries`);
  }
  const own = tenant.departments.find((d) => d.id === me.departmentId)!;
  const heads = new Set(tenant.departments.filter((x) => x.parentId === own.id).map((x) => x.headId));
  const teammates = tenant.users.filter(
    (u) => u.state === 'active' && u.id !== me.id && (u.departmentId === me.departmentId || heads.has(u.id)),
  );
  t.ok(teammates.length > 0);
  t.equal(d.widgets.myTeam.count, teammates.length);
  t.ok(d.widgets.myTeam.items.every((i: { id: string }) => teammates.some((u) => u.id === i.id)));
  const birthdays = tenant.users.filter((u) => u.state === 'active' && u.birthday.slice(5) === '03-02');
  t.equal(d.widgets.updBirthday.count, birthdays.length);
  t.ok(d.widgets.updNewbies.items.every((i: { date: string }) => i.date >= '2026-01-31' && i.date <= '2026-03-02'));
  // the same person looks the same everywhere
  const mate = d.widgets.myTeam.items[0];
  const profile = json(await inject({ url: `/user/profile?id=${mate.id}`, headers: s.headers }));
  t.equal(profile.name, mate.title);
  t.equal(profile.faceUrl, mate.imageUrl);

  const only = json(await inject({ url: '/dashboard?widgets=myTeam', headers: s.headers }));
  t.same(Object.keys(only.widgets), ['myTeam']);
  t.notOk('profileBrief' in only);
});

t.test('dashboard: birthdays follow the sandbox clock; myTeam follows set-main', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  let s = await signIn(app, accounts.admin, { sandbox });
  const tenant = app.sandboxes.get(sandbox).store.tenant(tenants.romashka)!;
  const someone = tenant.users.find(
    (u) => u.state === 'active' && u.birthday.slice(5) !== '03-02' && u.birthday.slice(5) !== '02-29',
  )!;
  app.sandboxes.get(sandbox).clock.state = { mode: 'frozen', at: `2026-${someone.birthday.slice(5)}T09:00:00.000Z` };
  const later = await signIn(app, accounts.admin, { sandbox });
  const bd = json(await inject({ url: '/dashboard?widgets=updBirthday', headers: later.headers })).widgets.updBirthday;
  t.equal(
    bd.count,
    tenant.users.filter((u) => u.state === 'active' && u.birthday.slice(5) === someone.birthday.slice(5)).length,
  );
  app.sandboxes.get(sandbox).clock.state = { mode: 'frozen', at: '2026-03-02T09:00:00.000Z' };
  s = await signIn(app, accounts.admin, { sandbox });

  const second = json(await inject({ url: '/employment/index', headers: s.headers })).data.find(
    (e: { is_main: boolean }) => !e.is_main,
  );
  await inject({
    method: 'POST',
    url: '/employment/set-main',
    headers: s.headers,
    payload: { employment_id: second.id },
  });
  const team = json(await inject({ url: '/dashboard?widgets=myTeam', headers: s.headers })).widgets.myTeam;
  const expected = tenant.users.filter(
    (u) => u.state === 'active' && u.departmentId === second.department.id && u.id !== accounts.admin.userId,
  );
  t.equal(team.count, expected.length);
});

t.test('dashboard: unknown widget or info key is a 400 naming it', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const w = expectError(t, await inject({ url: '/dashboard?widgets=myTeam,myCats', headers: s.headers }), 400);
  t.match(w.message, /myCats/);
  const i = expectError(t, await inject({ url: '/dashboard?info=weather', headers: s.headers }), 400);
  t.match(i.message, /weather/);
  expectError(t, await inject({ url: '/dashboard' }), 401);
});

t.test('dashboard: English tenant', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.nwAdmin, { sandbox });
  const d = json(await inject({ url: '/dashboard?widgets=myTeam,updBooks&info=profileBrief', headers: s.headers }));
  t.equal(d.widgets.myTeam.title, 'My team');
  t.equal(d.widgets.updBooks.title, 'New in the library');
  t.equal(d.profileBrief.id, accounts.nwAdmin.userId);
});

t.test('end to end over a real socket: sign in, badge, mark seen, badge drops by one', async (t) => {
  const app = await build(t);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

  const bind = await post('/api/v2/mobile/manual-bind', {
    email: 'ivan.petrov@romashka.test',
    password: 'demo1234',
    device: { id: 'e2e-phone', platform: 'android' },
  });
  t.equal(bind.status, 200);
  const { accountSecret, tenantInfo } = (await bind.json()) as {
    accountSecret: { secret: string; userId: string; deviceId: string; tenantId: string };
    tenantInfo: { base_url: string };
  };
  t.equal(tenantInfo.base_url, base);
  const auth = await post(
    '/mobile/auth',
    { secret: accountSecret.secret, userId: accountSecret.userId, deviceId: accountSecret.deviceId },
    { 'x-service-tenant-id': accountSecret.tenantId },
  );
  t.equal(auth.status, 200);
  const { sessionId, sessionSecret } = (await auth.json()) as { sessionId: string; sessionSecret: string };
  const headers = {
    'x-service-tenant-id': accountSecret.tenantId,
    'x-service-device-id': accountSecret.deviceId,
    'x-service-session-id': sessionId,
    'x-service-session-code': sessionSecret,
  };
  const badge = async () =>
    (
      (await (await fetch(`${base}/dashboard?info=notificationsBadge`, { headers })).json()) as {
        notificationsBadge: number;
      }
    ).notificationsBadge;
  const before = await badge();
  t.ok(before > 0, `badge ${before}`);
  const pushes = (await (await fetch(`${base}/notifications/pushes?per-page=25`, { headers })).json()) as {
    data: Array<{ id: string; isSeen: boolean }>;
  };
  const unseen = pushes.data.find((n) => !n.isSeen)!;
  const marked = await fetch(`${base}/notifications/mark-seen?notificationId=${unseen.id}`, {
    method: 'POST',
    headers,
  });
  t.equal(marked.status, 200);
  t.same(await marked.json(), { badge: before - 1, date: '2026-03-02' });
  t.equal(await badge(), before - 1, 'the dashboard badge dropped by one');
});

t.test('kept answers: reused while nothing changes; a write or a clock move shows at once', async (t) => {
  const app = await build(t);
  const s = await signIn(app);
  const url = `/dashboard?widgets=${allWidgets}&info=profileBrief,notificationsBadge`;
  const first = await app.inject({ url, headers: s.headers });
  const again = await app.inject({ url, headers: s.headers });
  t.equal(again.body, first.body, 'the same text while nothing changed');
  t.match(again.headers['content-type'], /^application\/json/);
  const before = json(first);

  // a write through the API: the badge follows at once
  const pushes = json(await app.inject({ url: '/notifications/pushes', headers: s.headers }));
  const unseen = pushes.data.find((n: { isSeen: boolean }) => !n.isSeen);
  t.equal(
    (
      await app.inject({
        method: 'POST',
        url: `/notifications/mark-seen?notificationId=${unseen.id}`,
        headers: s.headers,
      })
    ).statusCode,
    200,
  );
  t.equal(json(await app.inject({ url, headers: s.headers })).notificationsBadge, before.notificationsBadge - 1);

  // another base URL (sandbox prefix) is another answer, not the kept one
  const prefixed = json(await app.inject({ url: `/sandbox/default${url}`, headers: s.headers }));
  t.match(prefixed.profileBrief.faceUrl, /^http:\/\/localhost:80\/sandbox\/default\/images\/avatar\//);

  // the frozen clock moved (no request): the answer is built for the new time
  const sandbox = app.sandboxes.get('default');
  const later = new Date(Date.parse('2026-03-02T09:00:00.000Z') + 400 * 86400_000).toISOString();
  sandbox.clock.state = { mode: 'frozen', at: later };
  const s2 = await signIn(app); // the first session has expired by then
  const moved = json(await app.inject({ url, headers: s2.headers }));
  t.not(
    JSON.stringify(moved.widgets.myLms),
    JSON.stringify(before.widgets.myLms),
    'courses due before the new time are gone',
  );
  t.equal(moved.widgets.myLms.count, 0);
});

t.test(
  'answers over 1 KiB go out compressed to clients that accept it; the journal keeps JSON; faulted answers go out plain',
  async (t) => {
    const dir = t.testdir({
      'broken-json.json': JSON.stringify({
        name: 'broken-json',
        description: 'b',
        faults: [{ kind: 'malformed', operations: ['dashboard'] }],
      }),
    });
    const app = await build(t, { scenarios: [dir] });
    const s = await signIn(app);
    const url = `/dashboard?widgets=${allWidgets}&info=profileBrief,notificationsBadge`;
    const plain = await app.inject({ url, headers: s.headers });
    t.notOk(plain.headers['content-encoding'], 'no Accept-Encoding: plain JSON');
    for (const accept of ['gzip', 'gzip, deflate, br', 'br;q=1.0, gzip;q=0.8, *;q=0.1']) {
      const packed = await app.inject({ url, headers: { ...s.headers, 'accept-encoding': accept } });
      t.equal(packed.headers['content-encoding'], 'gzip', accept);
      t.match(packed.headers.vary, /accept-encoding/i);
      t.ok(
        packed.rawPayload.length < plain.rawPayload.length / 2,
        `${packed.rawPayload.length} bytes instead of ${plain.rawPayload.length}`,
      );
      t.equal(gunzipSync(packed.rawPayload).toString('utf8'), plain.body, 'the same JSON once unpacked');
    }
    t.notOk(
      (await app.inject({ url, headers: { ...s.headers, 'accept-encoding': 'gzip;q=0, identity' } })).headers[
        'content-encoding'
      ],
      'gzip;q=0 refuses it',
    );

    const [entry] = json(await app.inject({ url: '/__admin/requests?limit=1&operationId=dashboard' }));
    t.equal(entry.responseBody, undefined, 'the dashboard (over 8 KiB) is not kept in the journal, compressed or not');

    // a small answer (tenant info) is not compressed, and the journal keeps its JSON
    const info = await app.inject({ url: '/mobile/tenant-info', headers: { ...s.headers, 'accept-encoding': 'gzip' } });
    t.notOk(info.headers['content-encoding']);
    t.equal(json(info).id, s.tenantId);
    const [infoEntry] = json(await app.inject({ url: '/__admin/requests?limit=1&operationId=mobileTenantInfo' }));
    t.same(infoEntry.responseBody, json(info), 'the journal keeps the answer as JSON');

    // a body fault breaks the JSON, which goes out uncompressed
    const broken = await app.inject({
      url,
      headers: { ...s.headers, 'accept-encoding': 'gzip', 'x-mock-scenario': 'broken-json' },
    });
    t.notOk(broken.headers['content-encoding'], 'a faulted answer goes out plain');
    const text = broken.body;
    t.ok(text.includes('\u0000<<not json'), 'garbage after the JSON');
    t.ok(plain.body.startsWith(text.split('\u0000')[0]!), 'the first half of the JSON');
  },
);

t.test('compressed answers over a real socket: fetch unpacks them; the journal keeps the JSON', async (t) => {
  const app = await build(t);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const s = await signIn(app);
  const url = `${base}/dashboard?widgets=myTeam,updNews,updBirthday&info=profileBrief`;
  const res = await fetch(url, { headers: { ...s.headers, 'accept-encoding': 'gzip' } });
  t.equal(res.headers.get('content-encoding'), 'gzip');
  const body = (await res.json()) as { widgets: Record<string, unknown> };
  t.same(Object.keys(body.widgets).sort(), ['myTeam', 'updBirthday', 'updNews']);
  const journal = (await (await fetch(`${base}/__admin/requests?limit=1`)).json()) as Array<{ responseBody?: unknown }>;
  t.same(journal[0]?.responseBody, body, 'the journal has the JSON the client read, not gzip bytes');
});
