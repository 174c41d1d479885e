// Behind a reverse proxy that serves the mock below a path (X-Forwarded-Prefix), every address the mock hands out
// carries that path: page links, bind links and their QR images, the fixtures' bind links. Over a real socket.
import t from 'tap';
import { accounts, build, signIn } from './helper.js';

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
  t.equal(page._links.self, 'https://hr.example/portal/admin/wallet?per-page=5&page=1', 'page links: proxy host, scheme and path');

  const bind = await fetch(`${origin}/__admin/bind-links?sandbox=qa-fp`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-prefix': '/portal' },
    body: JSON.stringify({ email: accounts.admin.email }),
  });
  t.equal(bind.status, 200);
  const link = await bind.json() as { id: string; url: string; qr: string; link: string };
  t.match(link.url, new RegExp(`^${origin}/portal/sandbox/qa-fp/mobile/bind/${link.id}/`), 'the bind operation under the prefix');
  t.equal(link.qr, `${origin}/portal/__admin/bind-links/${link.id}/qr.svg?sandbox=qa-fp`, 'the QR image under the prefix');
  t.equal(link.link, `service://bind/?url=${encodeURIComponent(link.url)}`);
  const qr = await fetch(link.qr.replace('/portal', ''));
  t.equal(qr.status, 200, 'the QR image answers where the proxy sends it (prefix stripped)');
  t.match(qr.headers.get('content-type'), /image\/svg\+xml/);

  const fixtures = await get('/__admin/fixtures', { 'x-forwarded-prefix': '/portal' });
  t.ok(fixtures.bindLinks.length > 0);
  for (const b of fixtures.bindLinks) t.match(b.url, new RegExp(`^${origin}/portal/mobile/bind/`), `fixture bind link ${b.id}`);

  for (const bad of ['evil.example', '//evil.example', '/a b', 'https://evil.example/x']) {
    const answer = await get('/admin/wallet?per-page=5', { ...s.headers, 'x-forwarded-prefix': bad });
    t.equal(answer._links.self, `${origin}/admin/wallet?per-page=5&page=1`, `"${bad}" is not a path: ignored`);
  }
});
