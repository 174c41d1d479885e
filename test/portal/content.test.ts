import t from 'tap';
import { accounts, type build, expectError, json, signIn, tenants, sharedApp } from '../helper.js';
import { newsWidget, postcardsWidget } from '../../src/domain/content.js';
import { noEffects } from '../../src/domain/effects.js';

// one app for the file's tests, each in a sandbox of its own
const ownSandbox = sharedApp(t);

type App = Awaited<ReturnType<typeof build>>;
const store = (app: App, sandbox: string, tenant: string = tenants.romashka) =>
  app.sandboxes.get(sandbox).store.tenant(tenant)!;

t.test("postcard/user-view: a received postcard; 400, 401, 404 (unknown and someone else's)", async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const data = store(app, sandbox);
  const mine = data.postcards.filter((p) => p.recipientId === accounts.admin.userId);
  t.equal(mine.length, 5, 'the first demo account received five postcards');
  const p = mine[0]!;
  const res = await inject({ url: `/postcard/user-view?id=${p.id}`, headers: s.headers });
  t.equal(res.statusCode, 200);
  t.match(json(res), {
    id: p.id,
    title: p.title,
    text: p.text,
    date: p.sentAt,
    imageUrl: `http://localhost:80/images/postcard/${p.id}.svg`,
    sender: { id: p.senderId, name: String, faceUrl: /^http:\/\/localhost:80\/images\/avatar\// },
    recipient: { id: accounts.admin.userId, name: 'Петров Иван Сергеевич' },
  });
  const bad = expectError(t, await inject({ url: '/postcard/user-view?id=nope', headers: s.headers }), 400);
  t.equal(bad.details?.[0]?.field, 'query.id');
  expectError(t, await inject({ url: '/postcard/user-view', headers: s.headers }), 400);
  expectError(
    t,
    await inject({ url: '/postcard/user-view?id=00000000-0000-4000-8000-000000000000', headers: s.headers }),
    404,
  );
  const foreign = data.postcards.find((x) => x.recipientId !== accounts.admin.userId)!;
  expectError(t, await inject({ url: `/postcard/user-view?id=${foreign.id}`, headers: s.headers }), 404);
  expectError(t, await inject({ url: `/postcard/user-view?id=${p.id}` }), 401);
  // another tenant's user does not see it either
  const nw = await signIn(app, accounts.nwAdmin, { sandbox });
  expectError(t, await inject({ url: `/postcard/user-view?id=${p.id}`, headers: nw.headers }), 404);
});

t.test(
  'article/news: newest first, 10 per page, _meta, tag filter, scheduled news appear with the clock',
  async (t) => {
    const { app, sandbox, inject } = await ownSandbox();
    const s = await signIn(app, accounts.admin, { sandbox });
    const res = await inject({ url: '/article/news', headers: s.headers });
    t.equal(res.statusCode, 200);
    const body = json(res);
    t.equal(body.data.length, 10);
    t.same(body._meta, { totalCount: 28, pageCount: 3, currentPage: 1, perPage: 10 });
    t.match(body._links, { self: /page=1&per-page=10/, next: /page=2/ });
    const dates = body.data.map((a: { publishedAt: string }) => a.publishedAt);
    t.same(dates, [...dates].sort().reverse(), 'newest first');
    t.ok(
      dates.every((d: string) => d <= '2026-03-02T09:00:00.000Z'),
      'nothing after the clock',
    );
    const a = body.data[0];
    t.match(a, {
      id: String,
      title: String,
      lead: String,
      body: /^<p>/,
      imageUrl: `http://localhost:80/images/article/${a.id}.svg`,
      url: `http://localhost:80/pages/article/${a.id}`,
      tags: Array,
      author: { id: String, name: String, faceUrl: String },
      categoryId: null,
      views: Number,
      likes: Number,
      comments: Number,
    });
    t.match(a.title, /[а-яё]/i, 'Russian tenant: Russian texts');

    const page3 = json(await inject({ url: '/article/news?page=3&per-page=10', headers: s.headers }));
    t.equal(page3.data.length, 8);
    t.equal(json(await inject({ url: '/article/news?per-page=5', headers: s.headers })).data.length, 5);

    const [tag1, tag2] = store(app, sandbox).articleTags;
    const news = store(app, sandbox).articles.filter(
      (x) => x.kind === 'news' && x.publishedAt <= '2026-03-02T09:00:00.000Z',
    );
    const with1 = news.filter((x) => x.tagIds.includes(tag1!.id)).length;
    const withEither = news.filter((x) => x.tagIds.includes(tag1!.id) || x.tagIds.includes(tag2!.id)).length;
    t.equal(
      json(await inject({ url: `/article/news?tag_id=${tag1!.id}`, headers: s.headers }))._meta.totalCount,
      with1,
    );
    t.equal(
      json(await inject({ url: `/article/news?tag_id=${tag1!.id}&tag_id=${tag2!.id}`, headers: s.headers }))._meta
        .totalCount,
      withEither,
    );
    t.equal(
      json(await inject({ url: `/article/news?tag_id[]=${tag1!.id}&tag_id[]=${tag2!.id}`, headers: s.headers }))._meta
        .totalCount,
      withEither,
    );
    t.ok(withEither > with1 || withEither === with1);
    expectError(t, await inject({ url: '/article/news?tag_id=zzz', headers: s.headers }), 400);
    expectError(t, await inject({ url: '/article/news?per-page=abc', headers: s.headers }), 400);
    expectError(t, await inject({ url: '/article/news' }), 401);

    app.sandboxes.get(sandbox).clock.state = { mode: 'frozen', at: '2026-03-05T09:00:00.000Z' };
    const later = await signIn(app, accounts.admin, { sandbox });
    t.equal(
      json(await inject({ url: '/article/news', headers: later.headers }))._meta.totalCount,
      29,
      'a scheduled news item is published',
    );

    const nw = await signIn(app, accounts.nwAdmin, { sandbox });
    const en = json(await inject({ url: '/article/news', headers: nw.headers }));
    t.notMatch(en.data[0].title, /[а-яё]/i, 'English tenant: English texts');
    t.notOk(
      en.data.some((x: { id: string }) => news.some((n) => n.id === x.id)),
      "only the caller's tenant",
    );
  },
);

t.test('article/category: root, descend, search, 400 malformed and unknown, 403 without the right', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const root = json(await inject({ url: '/article/category', headers: s.headers }));
  const rootRecord = store(app, sandbox).contentCategories.find((c) => c.parentId === null)!;
  t.same(root.category, { id: rootRecord.id, title: 'База знаний' });
  t.equal(root.q, '');
  const cats = root.items.filter((i: { entity: string }) => i.entity === 'category');
  t.equal(cats.length, 4);
  t.ok(root.items.some((i: { entity: string }) => i.entity === 'article'));

  const first = cats[0];
  const level = json(await inject({ url: `/article/category?id=${first.id}`, headers: s.headers }));
  t.same(level.category, { id: first.id, title: first.title });
  t.equal(level.items.length, first.itemsCount);
  const art = level.items.find((i: { entity: string }) => i.entity === 'article');
  t.match(art, {
    entity: 'article',
    itemsCount: null,
    article: { id: art.id, title: art.title, categoryId: first.id },
  });
  const sub = level.items.find((i: { entity: string }) => i.entity === 'category');
  const subLevel = json(await inject({ url: `/article/category?id=${sub.id}`, headers: s.headers }));
  t.ok(subLevel.items.length >= 2);
  t.ok(subLevel.items.every((i: { entity: string }) => i.entity === 'article'));

  const found = json(await inject({ url: `/article/category?q=${encodeURIComponent('ПОРЯДОК')}`, headers: s.headers }));
  t.equal(found.q, 'ПОРЯДОК');
  t.ok(found.items.length > 0);
  t.ok(
    found.items.every((i: { title: string; description: string; article: { body: string } | null }) =>
      /порядок/i.test(`${i.title} ${i.description} ${i.article?.body ?? ''}`),
    ),
  );
  t.same(json(await inject({ url: '/article/category?q=zzzqqq', headers: s.headers })).items, []);

  expectError(t, await inject({ url: '/article/category?id=123', headers: s.headers }), 400);
  const unknown = expectError(
    t,
    await inject({ url: '/article/category?id=00000000-0000-4000-8000-000000000000', headers: s.headers }),
    400,
  );
  t.match(unknown.message, /not found/);
  const noRights = await signIn(app, accounts.noRights, { sandbox });
  expectError(t, await inject({ url: '/article/category', headers: noRights.headers }), 403);
  expectError(t, await inject({ url: '/article/category' }), 401);
  const nw = await signIn(app, accounts.nwAdmin, { sandbox });
  expectError(t, await inject({ url: `/article/category?id=${first.id}`, headers: nw.headers }), 400);
});

t.test('widgets for the dashboard: myPostcards and updNews', async (t) => {
  const { app, sandbox } = await ownSandbox();
  const sb = app.sandboxes.get(sandbox);
  const tenant = store(app, sandbox);
  const user = tenant.users[0]!;
  const ctx = {
    store: sb.store,
    now: new Date('2026-03-02T09:00:00.000Z'),
    outbox: sb.outbox,
    baseUrl: 'http://h:1',
    effects: noEffects,
  };
  const postcards = postcardsWidget(ctx, tenant, user);
  t.match(postcards, { key: 'myPostcards', feed: 'personal', title: 'Мои открытки', count: 5 });
  t.equal(postcards.items.length, 5);
  t.match(postcards.items[0], {
    id: String,
    title: String,
    subtitle: String,
    imageUrl: /^http:\/\/h:1\/images\/postcard\//,
    url: /^http:\/\/h:1\/postcard\/user-view\?id=/,
    date: String,
  });
  const news = newsWidget(ctx, tenant, user);
  t.match(news, { key: 'updNews', feed: 'company', title: 'Новости', count: 28 });
  t.equal(news.items.length, 5);
  t.equal(
    news.items[0]!.date,
    tenant.articles
      .filter((a) => a.kind === 'news' && a.publishedAt <= ctx.now.toISOString())
      .map((a) => a.publishedAt)
      .sort()
      .at(-1),
  );
  const nw = sb.store.tenant(tenants.northwind)!;
  t.equal(newsWidget(ctx, nw, nw.users[0]!).title, 'News');
});
