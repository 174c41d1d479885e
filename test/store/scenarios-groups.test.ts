// Scenarios and admin actions as they reach the API groups.
import t from 'tap';
import { accounts, build, expectError, json, signIn } from '../helper.js';

t.test('no-rights: the category group answers 403 and /user/search an empty users list', async (t) => {
  const app = await build(t);
  const s = await signIn(app);
  t.equal((await app.inject({ url: '/article/category', headers: s.headers })).statusCode, 200);
  t.ok(json(await app.inject({ url: '/user/search?q=а', headers: s.headers })).users.length > 0);
  const noRights = { ...s.headers, 'x-mock-scenario': 'no-rights' };
  expectError(t, await app.inject({ url: '/article/category', headers: noRights }), 403);
  t.same(json(await app.inject({ url: '/user/search?q=а', headers: noRights })).users, []);
  expectError(t, await app.inject({ url: '/admin/wallet', headers: noRights }), 403);
});

t.test('new-employee: personal lists and widgets are empty, sign-in still works', async (t) => {
  const app = await build(t);
  const before = await signIn(app);
  const count = async (url: string, h: Record<string, string>) => json(await app.inject({ url, headers: h }));
  t.ok(
    (await count('/notifications/pushes', before.headers))._meta.totalCount > 0,
    'the demo account has notifications',
  );
  t.equal(
    (await app.inject({ method: 'PUT', url: '/__admin/scenario', payload: { name: 'new-employee' } })).statusCode,
    200,
  );
  const s = await signIn(app);
  t.equal((await count('/notifications/pushes', s.headers))._meta.totalCount, 0);
  t.equal((await count('/file/index', s.headers))._meta.totalCount, 0);
  const d = await count('/dashboard?widgets=myPostcards,myTeam,updNewbies&info=notificationsBadge', s.headers);
  t.equal(d.notificationsBadge, 0);
  t.equal(d.widgets.myPostcards?.count ?? 0, 0);
  t.ok(
    d.widgets.updNewbies.items.some((i: { id: string }) => i.id === accounts.admin.userId),
    'shows among the newbies',
  );
});

t.test('hold-tickets keeps workflow tickets still', async (t) => {
  const app = await build(t);
  const s = await signIn(app);
  const list = async (h: Record<string, string>) =>
    json(await app.inject({ url: '/api/v2/workflow-ticket/?per-page=100', headers: h })).data as Array<{
      id: string;
      wf_ticket_stage_id: string;
      wf_status_id: number;
    }>;
  const held = { ...s.headers, 'x-mock-scenario': 'hold-tickets' };
  const start = await list(held);
  app.sandboxes.get('default').clock.state = { mode: 'frozen', at: '2026-03-02T11:00:00.000Z' };
  t.same(await list(held), start, 'nothing moved while held');
  const moved = await list(s.headers);
  t.notSame(
    moved.map((x) => x.wf_ticket_stage_id + x.wf_status_id),
    start.map((x) => x.wf_ticket_stage_id + x.wf_status_id),
    'released: tickets catch up',
  );
});

t.test('POST /__admin/notifications: stored, pushed to the tokens, badge up by one', async (t) => {
  const app = await build(t);
  const s = await signIn(app);
  await app.inject({
    method: 'POST',
    url: '/mobile/save-push-token',
    headers: s.headers,
    payload: { token: 'fcm-x', deviceId: s.deviceId },
  });
  const badge = async () =>
    json(await app.inject({ url: '/dashboard?info=notificationsBadge', headers: s.headers }))
      .notificationsBadge as number;
  const before = await badge();
  const res = json(
    await app.inject({
      method: 'POST',
      url: '/__admin/notifications',
      payload: { email: accounts.admin.email, title: 'Hello', body: 'From QA', url: '/pages/article/x' },
    }),
  );
  t.match(res, { userId: accounts.admin.userId, pushes: 1 });
  t.equal(await badge(), before + 1);
  const push = json(await app.inject({ url: '/__admin/outbox?kind=push' }))[0];
  t.match(push, { to: 'fcm-x', payload: { notification: { title: 'Hello', body: 'From QA' } } });
  t.equal(json(await app.inject({ url: '/notifications/pushes', headers: s.headers })).data[0].title, 'Hello');
  expectError(
    t,
    await app.inject({
      method: 'POST',
      url: '/__admin/notifications',
      payload: { email: 'nobody@x.test', title: 'x' },
    }),
    404,
  );
  expectError(
    t,
    await app.inject({ method: 'POST', url: '/__admin/notifications', payload: { email: accounts.admin.email } }),
    400,
  );
});

t.test('POST /__admin/users/block: sessions answer 401 and personal tokens are revoked', async (t) => {
  const app = await build(t);
  const s = await signIn(app);
  const created = json(
    await app.inject({ method: 'POST', url: '/user-api-token/create', headers: s.headers, payload: { name: 'ci' } }),
  );
  const token = created.data.token;
  t.type(token, 'string');
  const bearer = { authorization: `Bearer ${token}` };
  t.equal((await app.inject({ url: '/mobile/tenant-info', headers: bearer })).statusCode, 200);
  t.match(
    json(await app.inject({ method: 'POST', url: '/__admin/users/block', payload: { userId: accounts.admin.userId } })),
    { state: 'blocked' },
  );
  expectError(t, await app.inject({ url: '/mobile/tenant-info', headers: bearer }), 401);
  expectError(t, await app.inject({ url: '/mobile/tenant-info', headers: s.headers }), 401);
  const tokens = app.sandboxes
    .get('default')
    .store.tenant(s.tenantId)!
    .personalTokens.filter((x) => x.userId === accounts.admin.userId);
  t.ok(tokens.length > 0 && tokens.every((x) => x.revokedAt !== null), 'revoked automatically');
});
