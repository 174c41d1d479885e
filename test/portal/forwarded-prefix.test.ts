// Behind a reverse proxy that serves the mock below a path (X-Forwarded-Prefix), every address the mock hands out
// carries that path: page links, bind links and their QR images, the fixtures' bind links. Over a real socket.
import t from 'tap';
import { accounts, build, signIn } from '../helper.js';
import { exchange } from '../support/raw-http.js';

t.test('addresses handed out carry X-Forwarded-Prefix; a value that is not a path is ignored', async (t) => {
  const app = await build(t);
  const origin = await app.listen({ port: 0, host: '127.0.0.1' });
  const s = await signIn(app, accounts.admin, { sandbox: 'qa-fp' });
  const get = async (path: string, headers: Record<string, string>) => {
    const res = await fetch(`${origin}${path}`, { headers });
    t.equal(res.status, 200, `GET ${path}`);
    return res.json() as Promise<any>;
  };

  const proxied = { 'x-forwarded-prefix': '/portal/', 'x-forwarded-host': 'hr.example', 'x-forwarded-proto': 'https' };
  const page = await get('/admin/wallet?per-page=5', { ...s.headers, ...proxied });
  t.equal(
    page._links.self,
    'https://hr.example/portal/admin/wallet?per-page=5&page=1',
    'page links: proxy host, scheme and path',
  );

  const bind = await fetch(`${origin}/__admin/bind-links?sandbox=qa-fp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-prefix': '/portal' },
    body: JSON.stringify({ email: accounts.admin.email }),
  });
  t.equal(bind.status, 200);
  const link = (await bind.json()) as { id: string; url: string; qr: string; link: string };
  t.match(
    link.url,
    new RegExp(`^${origin}/portal/sandbox/qa-fp/mobile/bind/${link.id}/`),
    'the bind operation under the prefix',
  );
  t.equal(
    link.qr,
    `${origin}/portal/__admin/bind-links/${link.id}/qr.svg?sandbox=qa-fp`,
    'the QR image under the prefix',
  );
  t.equal(link.link, `service://bind/?url=${encodeURIComponent(link.url)}`);
  const qr = await fetch(link.qr.replace('/portal', ''));
  t.equal(qr.status, 200, 'the QR image answers where the proxy sends it (prefix stripped)');
  t.match(qr.headers.get('content-type'), /image\/svg\+xml/);

  const fixtures = await get('/__admin/fixtures', { 'x-forwarded-prefix': '/portal' });
  t.ok(fixtures.bindLinks.length > 0);
  for (const b of fixtures.bindLinks)
    t.match(b.url, new RegExp(`^${origin}/portal/mobile/bind/`), `fixture bind link ${b.id}`);

  for (const bad of ['evil.example', '//evil.example', '/a b', 'https://evil.example/x']) {
    const answer = await get('/admin/wallet?per-page=5', { ...s.headers, 'x-forwarded-prefix': bad });
    t.equal(answer._links.self, `${origin}/admin/wallet?per-page=5&page=1`, `"${bad}" is not a path: ignored`);
  }
});

// Issue 31: a page link was built with new URL() from these, and a value it refused answered 500 (and the HAR export
// of such a request too). Raw bytes, as a client can send them.
t.test('a forwarded scheme or host that is not one is ignored; a Host that is not host[:port] is 400', async (t) => {
  const app = await build(t);
  const origin = await app.listen({ port: 0, host: '127.0.0.1' });
  const port = Number(new URL(origin).port);
  const s = await signIn(app);
  const self = `${origin}/admin/wallet?per-page=5&page=1`;
  const page = async (headers: Array<[string, string | Buffer]>) => {
    const answer = await exchange(port, {
      method: 'GET',
      target: '/admin/wallet?per-page=5',
      headers: [...Object.entries(s.headers), ...headers],
    });
    return { status: answer.status, body: JSON.parse(answer.body.toString('utf8')) as Record<string, any> };
  };
  for (const proto of ['a b', 'ht%tp', 'javascript', Buffer.from([0x61, 0xc0, 0xaf])]) {
    const answer = await page([['x-forwarded-proto', proto]]);
    t.equal(answer.status, 200, `X-Forwarded-Proto ${String(proto)}: answered`);
    t.equal(answer.body._links?.self, self, `X-Forwarded-Proto ${String(proto)}: ignored`);
  }
  for (const host of ['a b', '%zz', 'evil.test:99999', 'user@evil.test', '1.2.3.999', 'x/y']) {
    const answer = await page([['x-forwarded-host', host]]);
    t.equal(answer.body._links?.self, self, `X-Forwarded-Host ${host}: ignored`);
    const refused = await page([['Host', host]]);
    t.equal(refused.status, 400, `Host ${host}: refused`);
    t.match(refused.body, { statusCode: 400, code: 'BAD_REQUEST', message: /Host header/ });
  }
  const har = await fetch(`${origin}/__admin/requests?format=har`);
  t.equal(har.status, 200, 'the HAR export of those requests reads');
});
