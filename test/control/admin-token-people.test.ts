// --admin-token and people (issue 34, part 6): a browser opens the console page and a phone downloads ca.pem
// without the token; a QR image carries a bind token, so it takes the admin token as ?token= (an <img> sends no
// header); every other control-plane route still needs the token in a header. Real HTTP, as a browser meets it.
import t from 'tap';
import { build } from '../helper.js';

const token = 's3cret-people';
const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

t.test('with --admin-token: what a person opens answers without it, the admin API does not', async (t) => {
  const app = await build(t, { adminToken: token, caCertificate: pem });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${base}${path}`, { headers });

  const page = await get('/__admin');
  t.equal(page.status, 200, 'the console page answers without the token');
  t.match(await page.text(), /id="token-form"/, 'and it is the page that asks for the token');

  const ca = await get('/__admin/ca.pem');
  t.equal(ca.status, 200, 'ca.pem answers without the token');
  t.equal(await ca.text(), pem);

  const qr = '/__admin/bind-links/bind-ivan/qr.svg';
  t.equal((await get(qr)).status, 401, 'a QR image carries a bind token: not without the admin token');
  t.equal((await get(`${qr}?token=wrong`)).status, 401, 'nor with a wrong one');
  const image = await get(`${qr}?token=${token}`);
  t.equal(image.status, 200, 'the QR image answers with ?token=');
  t.match(image.headers.get('content-type'), /image\/svg\+xml/);
  t.equal((await get(qr, { 'x-mock-admin-token': token })).status, 200, 'or with the header');

  for (const path of ['/__admin/health', '/__admin/sandboxes', '/__admin/fixtures', '/__admin/nothing-here']) {
    t.equal((await get(path)).status, 401, `${path}: 401 without the token`);
    t.equal((await get(`${path}?token=${token}`)).status, 401, `${path}: the query does not carry it here`);
  }
  t.equal((await get('/__admin/sandboxes', { 'x-mock-admin-token': token })).status, 200, '200 with the header');
  t.equal((await get('/__admin/health', { authorization: `Bearer ${token}` })).status, 200, 'or as a Bearer');
});

t.test('without --admin-token nothing changes: every route answers as before', async (t) => {
  const app = await build(t);
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  for (const path of ['/__admin', '/__admin/health', '/__admin/bind-links/bind-ivan/qr.svg']) {
    t.equal((await fetch(`${base}${path}`)).status, 200, path);
  }
  t.equal((await fetch(`${base}/__admin/ca.pem`)).status, 404, 'no CA without --https');
});
