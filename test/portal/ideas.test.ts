import t from 'tap';
import { accounts, build, expectError, json, signIn, tenants, sharedApp } from '../helper.js';
import { ideasWidget } from '../../src/domain/ideas.js';
import { noEffects } from '../../src/domain/effects.js';

// one app for the file's tests, each in a sandbox of its own
const ownSandbox = sharedApp(t);

const uuidZero = '00000000-0000-4000-8000-000000000000';

t.test('statuses and purposes in the tenant language', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const ru = await signIn(app, accounts.admin, { sandbox });
  const en = await signIn(app, accounts.nwAdmin, { sandbox });
  const st = json(await inject({ url: '/idea/statuses', headers: ru.headers }));
  t.equal(st.data.length, 7);
  t.match(st.data[0], { id: 1, name: 'На модерации', color: /^#/, isFinal: false });
  t.match(json(await inject({ url: '/idea/statuses', headers: en.headers })).data[6], {
    id: 7,
    name: 'Rejected',
    isFinal: true,
  });
  const pu = json(await inject({ url: '/idea/purposes', headers: en.headers }));
  t.match(pu.data[0], { id: 1, name: 'Process improvement', description: String });
  t.match(json(await inject({ url: '/idea/purposes', headers: ru.headers })).data[1].name, /Экономия/);
  expectError(t, await inject({ url: '/idea/statuses' }), 401);
});

t.test('index: paging, filters, errors', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.noRights, { sandbox });
  const all = json(await inject({ url: '/idea/index', headers: s.headers }));
  t.equal(all._meta.totalCount, 21, 'the 24 seeded ideas less the three on moderation of other users');
  t.equal(all._meta.perPage, 20);
  t.ok(all._links.next);
  t.ok(all.data.every((i: { idea_status_id: number }) => i.idea_status_id !== 1));
  const dates = all.data.map((i: { created_at: string }) => i.created_at);
  t.same(dates, [...dates].sort().reverse(), 'newest first');
  const p2 = json(await inject({ url: '/idea/index?per-page=5&page=2', headers: s.headers }));
  t.match(p2._meta, { currentPage: 2, perPage: 5, pageCount: 5 });
  t.equal(p2.data.length, 5);

  const byStatus = json(await inject({ url: '/idea/index?idea_status_id=2,7&per-page=100', headers: s.headers }));
  t.ok(
    byStatus.data.length > 0 &&
      byStatus.data.every((i: { idea_status_id: number }) => [2, 7].includes(i.idea_status_id)),
  );
  const first = all.data[0];
  const byAuthor = json(
    await inject({
      url: `/idea/index?created_user_id=${first.created_user_id},${uuidZero}&per-page=100`,
      headers: s.headers,
    }),
  );
  t.ok(
    byAuthor.data.length > 0 &&
      byAuthor.data.every((i: { created_user_id: string }) => i.created_user_id === first.created_user_id),
  );
  const byPurpose = json(await inject({ url: '/idea/index?idea_purpose_id=1&per-page=100', headers: s.headers }));
  t.ok(byPurpose.data.every((i: { idea_purpose_id: number }) => i.idea_purpose_id === 1));
  const withPerformer = all.data.find((i: { performer_id: string | null }) => i.performer_id);
  const byPerformer = json(
    await inject({ url: `/idea/index?performer_id=${withPerformer.performer_id}`, headers: s.headers }),
  );
  t.ok(
    byPerformer.data.length > 0 &&
      byPerformer.data.every((i: { performer_id: string }) => i.performer_id === withPerformer.performer_id),
  );
  const day = first.created_at.slice(0, 10);
  const byDay = json(await inject({ url: `/idea/index?created_at=${day}|${day}`, headers: s.headers }));
  t.ok(byDay.data.length > 0 && byDay.data.every((i: { created_at: string }) => i.created_at.startsWith(day)));
  t.equal(
    json(await inject({ url: '/idea/index?created_at=2000-01-01|2000-12-31', headers: s.headers }))._meta.totalCount,
    0,
  );

  expectError(t, await inject({ url: '/idea/index?created_at=yesterday', headers: s.headers }), 400);
  expectError(t, await inject({ url: '/idea/index?created_at=2026-01-01T10:00|2026-01-02', headers: s.headers }), 422);
  expectError(t, await inject({ url: '/idea/index?per-page=x', headers: s.headers }), 400);
  expectError(t, await inject({ url: '/idea/index' }), 401);
});

t.test('view', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const first = json(await inject({ url: '/idea/index', headers: s.headers })).data[0];
  const view = await inject({ url: `/idea/view?id=${first.id}`, headers: s.headers });
  t.equal(view.statusCode, 200);
  t.match(json(view), {
    id: first.id,
    title: first.title,
    voters: Array,
    participants: Array,
    comments: Array,
    url: `http://localhost:80/pages/idea/${first.id}`,
  });
  t.equal(json(view).voters.length, json(view).votesCount);
  expectError(t, await inject({ url: '/idea/view?id=nope', headers: s.headers }), 400);
  expectError(t, await inject({ url: '/idea/view', headers: s.headers }), 400);
  expectError(t, await inject({ url: `/idea/view?id=${uuidZero}`, headers: s.headers }), 404);
  const other = await signIn(app, accounts.nwAdmin, { sandbox });
  expectError(t, await inject({ url: `/idea/view?id=${first.id}`, headers: other.headers }), 404); // another tenant never sees it
});

t.test('create and edit', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const admin = await signIn(app, accounts.admin, { sandbox });
  const petr = await signIn(app, accounts.noRights, { sandbox });
  const body = {
    title: 'Кофемашина на 5 этаже',
    description: 'Очередь к единственной кофемашине отнимает время',
    idea_purpose_id: 4,
  };

  const created = await inject({ method: 'POST', url: '/idea/edit', headers: admin.headers, payload: body });
  t.equal(created.statusCode, 200);
  const idea = json(created);
  t.match(idea, {
    title: body.title,
    idea_status_id: 2,
    idea_purpose_id: 4,
    created_user_id: accounts.admin.userId,
    votesCount: 0,
    purpose: { id: 4 },
  });
  const seen = json(await inject({ url: '/idea/index', headers: petr.headers })).data[0];
  t.equal(seen.id, idea.id, "a moderator's idea is published at once and heads the list");

  const pending = json(
    await inject({
      method: 'POST',
      url: '/idea/edit',
      headers: petr.headers,
      payload: { ...body, title: 'Идея Петра' },
    }),
  );
  t.equal(pending.idea_status_id, 1, "an ordinary user's idea goes to moderation");
  t.equal(
    json(await inject({ url: '/idea/index', headers: petr.headers })).data[0].id,
    pending.id,
    'the author sees it',
  );
  t.notOk(
    json(await inject({ url: '/idea/index?per-page=100', headers: admin.headers })).data.some(
      (i: { id: string }) => i.id === pending.id,
    ),
    'others do not',
  );
  expectError(t, await inject({ url: `/idea/view?id=${pending.id}`, headers: admin.headers }), 404);

  const edited = await inject({
    method: 'POST',
    url: `/idea/edit?id=${idea.id}`,
    headers: admin.headers,
    payload: { title: 'Вторая кофемашина', performer_id: accounts.noRights.userId },
  });
  t.equal(edited.statusCode, 200);
  t.match(json(edited), {
    id: idea.id,
    title: 'Вторая кофемашина',
    description: body.description,
    performer_id: accounts.noRights.userId,
    performer: { id: accounts.noRights.userId },
  });
  t.equal(json(await inject({ url: `/idea/view?id=${idea.id}`, headers: petr.headers })).title, 'Вторая кофемашина');

  expectError(
    t,
    await inject({
      method: 'POST',
      url: `/idea/edit?id=${idea.id}`,
      headers: petr.headers,
      payload: { title: 'Моя!' },
    }),
    403,
  );
  expectError(
    t,
    await inject({
      method: 'POST',
      url: `/idea/edit?id=${uuidZero}`,
      headers: admin.headers,
      payload: { title: 'x' },
    }),
    404,
  );
  expectError(
    t,
    await inject({ method: 'POST', url: '/idea/edit?id=bad', headers: admin.headers, payload: { title: 'x' } }),
    400,
  );

  const missing = expectError(
    t,
    await inject({ method: 'POST', url: '/idea/edit', headers: admin.headers, payload: { title: '  ' } }),
    400,
  );
  t.same(missing.details?.map((d) => d.field).sort(), ['body.description', 'body.idea_purpose_id', 'body.title']);
  const badRefs = expectError(
    t,
    await inject({
      method: 'POST',
      url: '/idea/edit',
      headers: admin.headers,
      payload: { ...body, idea_purpose_id: 99, performer_id: uuidZero },
    }),
    400,
  );
  t.same(badRefs.details?.map((d) => d.field).sort(), ['body.idea_purpose_id', 'body.performer_id']);
  const tooLong = expectError(
    t,
    await inject({
      method: 'POST',
      url: '/idea/edit',
      headers: admin.headers,
      payload: { ...body, title: 'x'.repeat(201) },
    }),
    400,
  );
  t.same(
    tooLong.details?.map((d) => d.field),
    ['body.title'],
  );
});

t.test('vote and participate toggle; counts follow in view', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const admin = await signIn(app, accounts.admin, { sandbox });
  const petr = await signIn(app, accounts.noRights, { sandbox });
  const idea = json(
    await inject({
      method: 'POST',
      url: '/idea/edit',
      headers: admin.headers,
      payload: { title: 'T', description: 'D', idea_purpose_id: 1 },
    }),
  );
  const vote = await inject({ method: 'POST', url: `/idea/vote?id=${idea.id}`, headers: petr.headers });
  t.match(json(vote), { success: true, status: true, message: 'Ваш голос учтён', count: 1 });
  let view = json(await inject({ url: `/idea/view?id=${idea.id}`, headers: petr.headers }));
  t.match(view, { votesCount: 1, isVoted: true, voters: [{ id: accounts.noRights.userId }] });
  t.equal(json(await inject({ url: `/idea/view?id=${idea.id}`, headers: admin.headers })).isVoted, false);
  t.match(json(await inject({ method: 'POST', url: `/idea/vote?id=${idea.id}`, headers: petr.headers })), {
    success: true,
    status: false,
    message: 'Ваш голос отозван',
  });
  t.equal(json(await inject({ url: `/idea/view?id=${idea.id}`, headers: petr.headers })).votesCount, 0);

  t.match(json(await inject({ method: 'POST', url: `/idea/participate?id=${idea.id}`, headers: petr.headers })), {
    success: true,
    status: true,
  });
  view = json(await inject({ url: `/idea/view?id=${idea.id}`, headers: admin.headers }));
  t.match(view, { participantsCount: 1, participants: [{ id: accounts.noRights.userId }] });
  t.match(json(await inject({ method: 'POST', url: `/idea/participate?id=${idea.id}`, headers: petr.headers })), {
    success: true,
    status: false,
  });

  const pending = json(
    await inject({
      method: 'POST',
      url: '/idea/edit',
      headers: petr.headers,
      payload: { title: 'P', description: 'D', idea_purpose_id: 1 },
    }),
  );
  t.match(json(await inject({ method: 'POST', url: `/idea/vote?id=${pending.id}`, headers: petr.headers })), {
    success: false,
    status: false,
  });
  expectError(t, await inject({ method: 'POST', url: `/idea/vote?id=${pending.id}`, headers: admin.headers }), 404);
  expectError(
    t,
    await inject({ method: 'POST', url: `/idea/participate?id=${uuidZero}`, headers: admin.headers }),
    404,
  );
  expectError(t, await inject({ method: 'POST', url: '/idea/vote?id=1', headers: admin.headers }), 400);
  expectError(t, await inject({ method: 'POST', url: '/idea/participate', headers: admin.headers }), 400);
  expectError(t, await inject({ method: 'POST', url: `/idea/vote?id=${idea.id}` }), 401);
});

t.test('ideas switched off for the tenant answer 403', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const sb = app.sandboxes.get(sandbox);
  const data = sb.store.toData();
  const romashka = data.tenants[tenants.romashka]!;
  romashka.tenant = { ...romashka.tenant, options: { ...romashka.tenant.options, enableIdeas: false } };
  app.sandboxes.replaceData(sb, data);
  expectError(t, await inject({ url: '/idea/index', headers: s.headers }), 403);
});

t.test('updIdeas widget', async (t) => {
  const { app, sandbox } = await ownSandbox();
  const sb = app.sandboxes.get(sandbox);
  const tenant = sb.store.tenant(tenants.northwind)!;
  const ctx = { store: sb.store, now: sb.clock.now(), outbox: sb.outbox, baseUrl: 'http://h', effects: noEffects };
  const w = ideasWidget(ctx, tenant, tenant.users[0]!);
  t.match(w, { key: 'updIdeas', feed: 'company', title: 'New ideas', count: 18 });
  t.equal(w.items.length, 5);
  t.match(w.items[0], {
    id: String,
    title: String,
    url: /^http:\/\/h\/pages\/idea\//,
    imageUrl: /^http:\/\/h\/images\/avatar\//,
  });
  const dates = w.items.map((i) => i.date ?? '');
  t.same(dates, [...dates].sort().reverse());
});

t.test('end to end over a socket: create, vote from another account, count in view', async (t) => {
  const app = await build(t);
  const admin = await signIn(app);
  const petr = await signIn(app, accounts.noRights);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const base = typeof address === 'object' && address ? `http://127.0.0.1:${address.port}/api/v2` : '';
  const post = (url: string, headers: Record<string, string>, body?: unknown) =>
    fetch(`${base}${url}`, {
      method: 'POST',
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      body: body === undefined ? null : JSON.stringify(body),
    });
  const created = await post('/idea/edit', admin.headers, {
    title: 'Socket idea',
    description: 'over HTTP',
    idea_purpose_id: 2,
  });
  t.equal(created.status, 200);
  const idea = (await created.json()) as { id: string };
  const vote = await post(`/idea/vote?id=${idea.id}`, petr.headers);
  t.match(await vote.json(), { success: true, status: true });
  const view = await fetch(`${base}/idea/view?id=${idea.id}`, { headers: admin.headers });
  t.match(await view.json(), { id: idea.id, votesCount: 1, voters: [{ id: accounts.noRights.userId }] });
});
