import t from 'tap';
import { Outbox, outboxMaxBytes } from '../../src/store/outbox.js';
import { accounts, build, expectError, json, signIn, tenants, sharedApp } from '../helper.js';
import { createNotification } from '../../src/domain/notifications.js';
import { noEffects } from '../../src/domain/effects.js';

// one app for the file's tests, each in a sandbox of its own
const ownSandbox = sharedApp(t);

t.test('pushes: newest first, paged by 10 for infinite scroll', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const first = json(await inject({ url: '/notifications/pushes', headers: s.headers }));
  t.equal(first.data.length, 10);
  t.match(first._meta, { totalCount: 25, pageCount: 3, currentPage: 1, perPage: 10 });
  t.match(first.data[0], { id: String, title: String, body: String, kind: String, isSeen: Boolean, createdAt: String });
  const third = json(await inject({ url: '/notifications/pushes?page=3', headers: s.headers }));
  t.equal(third.data.length, 5);
  t.notOk(third._links.next);
  const stamps = [
    ...first.data,
    ...json(await inject({ url: '/notifications/pushes?page=2', headers: s.headers })).data,
    ...third.data,
  ].map((n: { createdAt: string }) => n.createdAt);
  t.same(stamps, [...stamps].sort().reverse(), 'newest first across pages');
  t.equal(json(await inject({ url: '/notifications/pushes?page=4', headers: s.headers })).data.length, 0);
  expectError(t, await inject({ url: '/notifications/pushes?per-page=x', headers: s.headers }), 400);
  expectError(t, await inject({ url: '/notifications/pushes' }), 401);
});

t.test('mark-seen: badge is the real unseen count; twice changes nothing; 404 for foreign or unknown', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const list = json(await inject({ url: '/notifications/pushes?per-page=100', headers: s.headers })).data;
  const unseen = list.filter((n: { isSeen: boolean }) => !n.isSeen);
  t.ok(unseen.length > 1);
  const res = await inject({
    method: 'POST',
    url: `/notifications/mark-seen?notificationId=${unseen[0].id}`,
    headers: s.headers,
  });
  t.same(json(res), { badge: unseen.length - 1, date: '2026-03-02' });
  t.same(
    json(
      await inject({
        method: 'POST',
        url: `/notifications/mark-seen?notificationId=${unseen[0].id}`,
        headers: s.headers,
      }),
    ),
    { badge: unseen.length - 1, date: '2026-03-02' },
  );
  const again = json(await inject({ url: '/notifications/pushes?per-page=100', headers: s.headers })).data;
  t.equal(again.find((n: { id: string }) => n.id === unseen[0].id).isSeen, true);

  const foreign = app.sandboxes
    .get(sandbox)
    .store.tenant(tenants.romashka)!
    .notifications.find((n) => n.userId !== accounts.admin.userId)!;
  expectError(
    t,
    await inject({
      method: 'POST',
      url: `/notifications/mark-seen?notificationId=${foreign.id}`,
      headers: s.headers,
    }),
    404,
  );
  expectError(
    t,
    await inject({ method: 'POST', url: '/notifications/mark-seen?notificationId=nope', headers: s.headers }),
    404,
  );
  expectError(t, await inject({ method: 'POST', url: '/notifications/mark-seen', headers: s.headers }), 400);

  const all = await inject({ method: 'POST', url: '/notifications/mark-seen-all', headers: s.headers });
  t.same(json(all), { badge: 0, date: '2026-03-02' });
  t.equal(json(await inject({ url: '/dashboard?info=notificationsBadge', headers: s.headers })).notificationsBadge, 0);
  // date follows the sandbox clock in the tenant time zone (Moscow: already 3 March at 22:00 UTC)
  app.sandboxes.get(sandbox).clock.state = { mode: 'frozen', at: '2026-03-02T22:00:00.000Z' };
  t.equal(
    json(await inject({ method: 'POST', url: '/notifications/mark-seen-all', headers: s.headers })).date,
    '2026-03-03',
  );
});

t.test('createNotification stores the notification and pushes to every token of the user', async (t) => {
  const app = await build(t);
  const s = await signIn(app, accounts.admin, { deviceId: 'phone-a' });
  await app.inject({
    method: 'POST',
    url: '/mobile/save-push-token',
    headers: s.headers,
    payload: { token: 'fcm-a', deviceId: 'phone-a' },
  });
  const sandbox = app.sandboxes.get('default');
  const tenant = sandbox.store.tenant(tenants.romashka)!;
  const before = json(
    await app.inject({ url: '/dashboard?info=notificationsBadge', headers: s.headers }),
  ).notificationsBadge;
  const ctx = {
    store: sandbox.store,
    now: sandbox.clock.now(),
    outbox: sandbox.outbox,
    baseUrl: 'http://localhost:80',
    effects: noEffects,
  };
  const record = createNotification(ctx, tenant, accounts.admin.userId, {
    title: 'Привет',
    body: 'Тест',
    url: '/pages/article/1',
  });
  t.match(record, { kind: 'system', seenAt: null, userId: accounts.admin.userId });
  const pushes = sandbox.outbox.list().filter((m) => m.kind === 'push');
  t.equal(pushes.length, 1);
  t.match(pushes[0], {
    to: 'fcm-a',
    userId: accounts.admin.userId,
    payload: {
      notification: { title: 'Привет', body: 'Тест' },
      data: { notificationId: record.id, url: 'http://localhost:80/pages/article/1' },
    },
  });
  const first = json(await app.inject({ url: '/notifications/pushes', headers: s.headers })).data[0];
  t.match(first, { id: record.id, title: 'Привет', isSeen: false, url: 'http://localhost:80/pages/article/1' });
  t.equal(
    json(await app.inject({ url: '/dashboard?info=notificationsBadge', headers: s.headers })).notificationsBadge,
    before + 1,
  );
  t.throws(() => createNotification(ctx, tenant, '00000000-0000-4000-8000-00000000dead', { title: 'x', body: 'y' }));
});

t.test('badge and list agree at every clock: before, inside and after the seeded dates', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  type Item = { id: string; isSeen: boolean; createdAt: string };
  const list = async (): Promise<Item[]> => {
    const items: Item[] = [];
    for (let page = 1; ; page++) {
      const res = json(await inject({ url: `/notifications/pushes?per-page=50&page=${page}`, headers: s.headers }));
      items.push(...res.data);
      if (!res._links.next) return items;
    }
  };
  const badge = async () =>
    json(await inject({ url: '/dashboard?info=notificationsBadge', headers: s.headers })).notificationsBadge;
  const freeze = (at: string) => inject({ method: 'PUT', url: '/__admin/clock', payload: { freeze: at } });
  const seeded = (await list()).map((n) => n.createdAt).sort();
  const first = Date.parse(seeded[0]!);
  const last = Date.parse(seeded.at(-1)!);
  const middle = seeded[Math.floor(seeded.length / 2)]!;
  const clocks = {
    'before the seeded dates': new Date(first - 86_400_000).toISOString(),
    'inside them': middle,
    'after them': new Date(last + 86_400_000).toISOString(),
  };
  for (const [what, at] of Object.entries(clocks)) {
    t.equal((await freeze(at)).statusCode, 200, what);
    const shown = await list();
    const unseen = shown.filter((n) => !n.isSeen);
    t.equal(await badge(), unseen.length, `${what}: the dashboard badge counts the listed unseen (${unseen.length})`);
    if (unseen.length > 0) {
      const seen = await inject({
        method: 'POST',
        url: `/notifications/mark-seen?notificationId=${unseen[0]!.id}`,
        headers: s.headers,
      });
      t.equal(json(seen).badge, unseen.length - 1, `${what}: mark-seen answers the listed unseen less one`);
    }
  }
  t.equal((await list()).length, seeded.length, 'after them: every seeded notification is listed');

  // mark-seen-all before the later ones are delivered leaves them unseen: they show up unseen when their time comes
  await freeze(middle);
  const all = await inject({ method: 'POST', url: '/notifications/mark-seen-all', headers: s.headers });
  t.equal(json(all).badge, 0);
  t.equal(await badge(), 0, 'inside them, after mark-seen-all');
  await freeze(clocks['after them']);
  const later = (await list()).filter((n) => !n.isSeen);
  t.ok(later.length > 0 && later.every((n) => n.createdAt > middle), 'only the ones delivered after it are unseen');
  t.equal(await badge(), later.length);
});

t.test('the outbox keeps at most its bytes: oldest pushes dropped first, the newest always kept', async (t) => {
  // 500 pushes, each carrying a notification's title and body as long as --body-limit lets them be, held gigabytes
  const outbox = new Outbox(1024 * 1024);
  const push = (n: number, chars: number) =>
    outbox.add({
      at: '2026-03-02T09:00:00.000Z',
      kind: 'push',
      tenantId: 't',
      userId: 'u',
      to: 'token',
      payload: { notification: { title: `#${n}`, body: 'ж'.repeat(chars) } },
    });
  for (let n = 1; n <= 10; n++) push(n, 100_000); // about 200 KB of UTF-8 each
  const ids = outbox.list().map((m) => m.id);
  t.ok(outbox.heldBytes <= outbox.maxBytes, `${outbox.heldBytes} bytes held`);
  t.same(ids, [6, 7, 8, 9, 10], 'the newest that fit, in order; the oldest dropped');
  t.equal(
    outbox.heldBytes,
    Buffer.byteLength(JSON.stringify(outbox.list())) - 2 - (ids.length - 1),
    'counted as their JSON',
  );
  push(11, 1_000_000);
  t.same(
    outbox.list().map((m) => m.id),
    [11],
    'one past the bound alone is kept alone',
  );
  outbox.clear();
  t.equal(outbox.heldBytes, 0, 'a clear frees the count');
  t.equal(new Outbox().maxBytes, outboxMaxBytes, 'the default bound');
});
