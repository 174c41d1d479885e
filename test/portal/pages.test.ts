// Web pages and images: every address the API hands out resolves; embed; escaping; 401/404 pages.
import t from 'tap';
import type { FastifyInstance } from 'fastify';
import { WidgetKeys } from '../../src/schemas/dashboard-widget.js';
import { accounts, json, signIn, type Session, sharedApp } from '../helper.js';

// one app for the file's tests, each in a sandbox of its own
const ownSandbox = sharedApp(t);

const htmlType = /^text\/html/;

/** Every string in a JSON answer. */
function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) strings(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) strings(v, out);
  return out;
}

/** The part of a page between the header and the footer. */
const inner = (body: string) => /<main id="content">[\s\S]*<\/main>/.exec(body)?.[0] ?? '';

/** Starts an application with `text` in every text field (valid values elsewhere); returns the ticket id. */
async function startTicket(t: { equal: Function }, app: FastifyInstance, s: Session, text: string): Promise<string> {
  const tenant = app.sandboxes.get(s.headers['x-mock-sandbox'] ?? 'default').store.tenant(s.tenantId)!;
  const process = tenant.wfProcesses.find(
    (p) =>
      !p.isHidden &&
      p.visibleGroupIds.length === 0 &&
      p.fields.some((f) => f.type === 'text' || f.type === 'textarea') &&
      !p.fields.some((f) => f.type === 'file' && f.required),
  );
  if (!process) throw new Error('no process with a text field');
  const fieldValues: Record<string, string> = {};
  for (const f of process.fields) {
    const v =
      f.type === 'text' || f.type === 'textarea'
        ? text
        : f.type === 'select'
          ? f.values[0]
          : f.type === 'date'
            ? '2026-04-01'
            : f.type === 'number'
              ? '1'
              : f.type === 'checkbox'
                ? 'true'
                : undefined;
    if (v !== undefined) fieldValues[f.id] = v;
  }
  const res = await app.inject({
    method: 'POST',
    url: `/workflow/start/${process.id}`,
    headers: s.headers,
    payload: { fieldValues },
  });
  t.equal(res.statusCode, 201, `application started: ${res.body.slice(0, 300)}`);
  return json(res).id;
}

t.test('every address in the answers of the list operations resolves', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  // a ready employment document: request one and let the clock pass
  const employment = json(await inject({ url: '/employment/index', headers: s.headers })).data[0];
  await inject({
    method: 'POST',
    url: '/org-employment-file/request',
    headers: s.headers,
    payload: {
      org_employment_id: employment.id,
      org_employment_file_type_id: 'payroll-statement',
      date_from: '2026-02-01',
      date_to: '2026-02-28',
    },
  });
  await startTicket(t, app, s, 'a ticket of mine');
  app.sandboxes.get(sandbox).clock.state = { mode: 'frozen', at: '2026-03-02T09:10:00.000Z' };

  const info = json(await inject({ url: '/mobile/tenant-info', headers: s.headers }));
  const base = new URL(info.logoUrl as string).origin;
  const lists = [
    '/mobile/tenant-info',
    '/article/news',
    '/article/category',
    `/dashboard?widgets=${WidgetKeys.join(',')}&info=profileBrief,notificationsBadge`,
    '/workflow/catalog',
    '/workflow-ticket/',
    '/user/items',
    '/user/index',
    `/user/profile?id=${accounts.noRights.userId}`,
    '/idea/index',
    '/file/index',
    '/calendar-event?date_from=2026-02-01&date_to=2026-04-30',
    '/calendar?date_from=2026-02-01&date_to=2026-04-30',
    '/notifications/pushes',
    '/org-employment-file/index',
    '/user-group/items',
    '/department/search?q=a',
  ];
  const found = new Set<string>();
  for (const url of lists) {
    const res = await inject({ url, headers: s.headers });
    t.equal(res.statusCode, 200, `${url} answers: ${res.body.slice(0, 200)}`);
    // tenant-info's base_url is the endpoint itself, not an address to open
    for (const v of strings(json(res))) if (v.startsWith(base) && new URL(v).pathname !== '/') found.add(v);
  }
  const kinds = new Map<string, number>();
  let pages = 0,
    images = 0,
    files = 0,
    api = 0;
  for (const address of found) {
    const u = new URL(address);
    const path = `${u.pathname}${u.search}`;
    const kind = /^\/(pages|images|files)\/([^/]+)/.exec(u.pathname);
    const key = kind ? (kind[1] === 'files' ? 'files' : `${kind[1]}/${kind[2]}`) : 'api';
    kinds.set(key, (kinds.get(key) ?? 0) + 1);
    if (kind?.[1] === 'pages') {
      const res = await inject({ url: path, headers: s.headers });
      t.equal(res.statusCode, 200, `${path}: ${res.body.slice(0, 300)}`);
      t.match(res.headers['content-type'], htmlType, `${path} is HTML`);
      pages++;
    } else if (kind?.[1] === 'images') {
      const res = await inject({ url: path });
      t.equal(res.statusCode, 200, `${path} without a session`);
      t.match(res.headers['content-type'], /^image\/svg\+xml/, `${path} is an SVG`);
      images++;
    } else if (kind?.[1] === 'files') {
      const res = await inject({ url: path });
      t.equal(res.statusCode, 200, `${path}: ${res.body.slice(0, 200)}`);
      t.notMatch(res.headers['content-type'], /^application\/json/, `${path} answers the bytes`);
      files++;
    } else {
      const res = await inject({ url: path, headers: s.headers });
      t.equal(res.statusCode, 200, `API link ${path}`);
      api++;
    }
  }
  t.comment(`resolved ${found.size} addresses: ${JSON.stringify(Object.fromEntries([...kinds].sort()))}`);
  t.ok(pages > 20 && images > 20 && files > 0, `pages ${pages}, images ${images}, files ${files}, API links ${api}`);
  for (const k of [
    'pages/workflow-ticket',
    'pages/workflow',
    'pages/article',
    'pages/user',
    'pages/idea',
    'pages/calendar-event',
    'pages/org-employment-file',
    'images/avatar',
    'images/article',
    'images/tenant',
    'images/user-group',
    'images/postcard',
    'images/workflow',
  ]) {
    t.ok(kinds.has(k), `some answer hands out ${k}`);
  }
});

t.test('embed on and off differ exactly by the frame', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const ticket = await startTicket(t, app, s, 'embed check');
  for (const path of [
    `/pages/workflow-ticket/${ticket}`,
    `/pages/user/${accounts.noRights.userId}`,
    '/pages/article/latest',
  ]) {
    const framed = await inject({ url: path, headers: s.headers });
    const embedded = await inject({ url: path, headers: { ...s.headers, 'x-service-embed': 'true' } });
    t.equal(framed.statusCode, 200);
    t.equal(embedded.statusCode, 200);
    t.match(
      framed.body,
      /<header class="site-header">[\s\S]*Ромашка[\s\S]*<\/header>/,
      'framed: a header with the tenant name',
    );
    t.match(framed.body, /<footer class="site-footer">/, 'framed: a footer');
    t.notMatch(embedded.body, /<header|<footer/, 'embedded: neither header nor footer');
    t.ok(inner(framed.body).length > 100, 'the page has content');
    t.equal(inner(embedded.body), inner(framed.body), `${path}: the same content`);
    const strip = (b: string) =>
      b
        .replace(/<header class="site-header">[\s\S]*?<\/header>/, '')
        .replace(/<footer class="site-footer">[\s\S]*?<\/footer>/, '');
    t.equal(strip(framed.body), embedded.body, 'nothing else differs');
    t.match(framed.body, /<meta name="viewport" content="width=device-width, initial-scale=1">/);
  }
});

t.test('values from data are escaped; stored HTML is sanitized', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const evil = '<script>alert(1)</script>';
  const ticket = await startTicket(t, app, s, evil);
  const page = await inject({ url: `/pages/workflow-ticket/${ticket}`, headers: s.headers });
  t.equal(page.statusCode, 200);
  t.notMatch(page.body, /<script/i, 'no script element');
  t.match(page.body, '&lt;script&gt;alert(1)&lt;/script&gt;', 'the field value shows as text');

  const idea = json(
    await inject({
      method: 'POST',
      url: '/idea/edit',
      headers: s.headers,
      payload: { title: `Idea ${evil}`, description: `"><img src=x onerror=alert(2)>`, idea_purpose_id: 4 },
    }),
  );
  const ideaPage = await inject({ url: `/pages/idea/${idea.id}`, headers: s.headers });
  t.equal(ideaPage.statusCode, 200, ideaPage.body.slice(0, 300));
  t.notMatch(ideaPage.body, /<script|<img src=x/i);
  t.match(ideaPage.body, 'Idea &lt;script&gt;alert(1)&lt;/script&gt;');
  t.match(ideaPage.body, '&quot;&gt;&lt;img src=x onerror=alert(2)&gt;');

  // an article body with markup an editor should not have stored
  const tenant = app.sandboxes.get(sandbox).store.tenant(s.tenantId)!;
  const article = tenant.articles.find((a) => a.kind === 'news' && a.publishedAt <= '2026-03-02T09:00:00.000Z')!;
  app.sandboxes.get(sandbox).store.update(tenant, 'articles', article, {
    body: '<p onclick="x()">Hello <b>world</b></p><script>alert(3)</script><a href="javascript:alert(4)">link</a><a href="https://example.com/x?a=1&b=2">ok</a><img src="x" onerror="alert(5)"><style>body{display:none}</style><p>a < b && c</p><div><em>unclosed',
  });
  const res = await inject({ url: `/pages/article/${article.id}`, headers: s.headers });
  t.equal(res.statusCode, 200);
  const body = /<div class="body">([\s\S]*?)<\/article>/.exec(res.body)?.[1] ?? '';
  t.equal(
    body,
    '<p>Hello <b>world</b></p><a rel="noopener noreferrer nofollow">link</a><a href="https://example.com/x?a=1&amp;b=2" rel="noopener noreferrer nofollow">ok</a><img src="x" /><p>a &lt; b &amp;&amp; c</p><div><em>unclosed</em></div></div>',
    'allowed tags kept, attributes and scripts dropped, text escaped, tags closed',
  );
  // what browsers forgive: blanks inside a scheme, markup in data URLs, foreign content
  const { sanitizeHtml } = await import('../../src/pages/sanitize.js');
  t.equal(
    String(
      sanitizeHtml(
        '<a href="java\tscript:alert(1)">x</a><img src="data:image/svg+xml,<svg onload=alert(1)>"><svg><script>x</script></svg>t<math>m</math><iframe src=x></iframe><!-- c -->',
      ),
    ),
    '<a rel="noopener noreferrer nofollow">x</a><img />t',
  );
  t.match(res.body, /<img class="cover" src="http:\/\/localhost(:80)?\/images\/article\/[0-9a-f-]+\.svg"/, 'the cover');
});

t.test('401 page without a session, 404 page for unknown and foreign records', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const nw = await signIn(app, accounts.nwAdmin, { sandbox });
  const ticket = await startTicket(t, app, s, 'mine');

  const anonymous = await inject({ url: `/pages/workflow-ticket/${ticket}` });
  t.equal(anonymous.statusCode, 401);
  t.match(anonymous.headers['content-type'], htmlType, 'the 401 is a page, not JSON');
  t.match(anonymous.body, /<h1>Sign in to the app to open this page<\/h1>/);
  const badCode = await inject({
    url: `/pages/workflow-ticket/${ticket}`,
    headers: { ...s.headers, 'x-service-session-code': 'wrong' },
  });
  t.equal(badCode.statusCode, 401);
  t.match(badCode.headers['content-type'], htmlType);

  for (const url of [
    '/pages/workflow-ticket/00000000-0000-4000-8000-000000000000',
    '/pages/article/nope',
    '/pages/user/00000000-0000-4000-8000-000000000000',
    `/pages/workflow-ticket/${'x'.repeat(100)}`,
  ]) {
    const res = await inject({ url, headers: s.headers });
    t.equal(res.statusCode, 404, url);
    t.match(res.headers['content-type'], htmlType);
    t.match(res.body, /Страница не найдена/, 'in the tenant language, framed');
  }
  // another tenant's records
  const foreignUser = await inject({ url: `/pages/user/${accounts.admin.userId}`, headers: nw.headers });
  t.equal(foreignUser.statusCode, 404, 'a user of another tenant');
  t.match(foreignUser.body, /Page not found/);
  t.equal(
    (await inject({ url: `/pages/workflow-ticket/${ticket}`, headers: nw.headers })).statusCode,
    404,
    'a ticket of another tenant',
  );
  const article = json(await inject({ url: '/article/news', headers: s.headers })).data[0];
  t.equal(
    (await inject({ url: new URL(article.url).pathname, headers: nw.headers })).statusCode,
    404,
    'an article of another tenant',
  );
  t.equal((await inject({ url: new URL(article.url).pathname, headers: s.headers })).statusCode, 200);

  // images: public, deterministic, 404 placeholder for unknown ids
  const a1 = await inject({ url: `/images/avatar/${accounts.admin.userId}.svg` });
  const a2 = await inject({ url: `/images/avatar/${accounts.admin.userId}.svg` });
  t.equal(a1.statusCode, 200);
  t.equal(a1.body, a2.body, 'deterministic');
  t.match(a1.body, />ПИ<\/text>/, 'initials of Петров Иван');
  const other = await inject({ url: `/images/avatar/${accounts.noRights.userId}.svg` });
  t.not(other.body, a1.body);
  const unknown = await inject({ url: '/images/avatar/00000000-0000-4000-8000-000000000000.svg' });
  t.equal(unknown.statusCode, 404);
  t.match(unknown.headers['content-type'], /^image\/svg\+xml/);
  t.equal((await inject({ url: '/images/avatar/x.png' })).statusCode, 400, 'only .svg');
  t.equal(
    (await inject({ url: `/sandbox/other/images/avatar/${accounts.admin.userId}.svg` })).statusCode,
    200,
    'the same seed in another sandbox',
  );
});

t.test('addresses carry the sandbox prefix and resolve under it', async (t) => {
  const { app, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox: 'pages' });
  const res = json(await inject({ url: '/sandbox/pages/workflow/catalog', headers: s.headers }));
  const entry = res.workflows[0];
  t.match(entry.url, /^http:\/\/localhost(:80)?\/sandbox\/pages\/pages\/workflow\//);
  const u = new URL(entry.url);
  const page = await inject({ url: u.pathname, headers: s.headers });
  t.equal(page.statusCode, 200, page.body.slice(0, 300));
  t.match(page.body, '/sandbox/pages/images/workflow/', 'images on the page keep the prefix');
  t.equal((await inject({ url: new URL(entry.imageUrl).pathname })).statusCode, 200);
});

t.test('the OpenAPI document lists page and image operations with their content types', async (t) => {
  const { inject } = await ownSandbox();
  const doc = json(await inject({ url: '/docs/json' }));
  const ops = Object.values(
    doc.paths as Record<
      string,
      Record<
        string,
        { operationId: string; tags: string[]; responses: Record<string, { content?: Record<string, unknown> }> }
      >
    >,
  ).flatMap((p) => Object.values(p));
  const byId = new Map(ops.map((o) => [o.operationId, o]));
  for (const id of [
    'pagesWorkflowTicket',
    'pagesWorkflow',
    'pagesArticle',
    'pagesUser',
    'pagesIdea',
    'pagesCalendarEvent',
    'pagesOrgEmploymentFile',
  ]) {
    const op = byId.get(id);
    t.same(op?.tags, ['pages'], `${id} tagged pages`);
    t.same(Object.keys(op?.responses['200']?.content ?? {}), ['text/html'], `${id} answers text/html`);
    t.same(Object.keys(op?.responses['401']?.content ?? {}), ['text/html'], `${id} 401 is text/html`);
    t.same(Object.keys(op?.responses['404']?.content ?? {}), ['text/html'], `${id} 404 is text/html`);
  }
  for (const id of ['imageAvatar', 'imageArticle', 'imageTenant', 'imageUserGroup', 'imageWorkflow', 'imagePostcard']) {
    const op = byId.get(id);
    t.same(op?.tags, ['images'], `${id} tagged images`);
    t.same(Object.keys(op?.responses['200']?.content ?? {}), ['image/svg+xml'], `${id} answers image/svg+xml`);
  }
  const tagNames = (doc.tags as Array<{ name: string }>).map((x) => x.name);
  t.ok(tagNames.includes('pages') && tagNames.includes('images'), 'both tags are described');
});
