import t from 'tap';
import type { AddressInfo } from 'node:net';
import { build, expectError, signIn } from '../helper.js';

t.test(
  'CORS (@fastify/cors): any origin with credentials; errors carry the headers too; no Origin, no allow-origin',
  async (t) => {
    const app = await build(t);
    const s = await signIn(app);
    const origin = 'http://localhost:8081';
    const ok = await app.inject({ url: '/mobile/tenant-info', headers: { ...s.headers, origin } });
    t.equal(ok.statusCode, 200);
    t.equal(ok.headers['access-control-allow-origin'], origin);
    t.equal(ok.headers['access-control-allow-credentials'], 'true');
    t.match(ok.headers.vary, /Origin/);

    const denied = await app.inject({ url: '/mobile/tenant-info', headers: { origin } });
    expectError(t, denied, 401);
    t.equal(denied.headers['access-control-allow-origin'], origin, 'a browser app can read the 401');

    const none = await app.inject({ url: '/mobile/tenant-info', headers: s.headers });
    t.notOk(none.headers['access-control-allow-origin']);
    t.match(none.headers.vary, /Origin/, 'caches key on Origin even when there is none');
  },
);

t.test(
  'CORS preflight: 204 with the methods and the asked headers, for any path and sandbox; any OPTIONS is a preflight',
  async (t) => {
    const app = await build(t);
    const origin = 'https://app.example.test';
    for (const url of ['/mobile/tenant-info', '/sandbox/qa-1/api/v2/dashboard', '/no/such/path']) {
      const res = await app.inject({
        method: 'OPTIONS',
        url,
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'x-service-session-id,content-type',
        },
      });
      t.equal(res.statusCode, 204, url);
      t.equal(res.headers['access-control-allow-origin'], origin);
      t.equal(res.headers['access-control-allow-credentials'], 'true');
      t.equal(res.headers['access-control-allow-methods'], 'GET,HEAD,PUT,PATCH,POST,DELETE');
      t.equal(res.headers['access-control-allow-headers'], 'x-service-session-id,content-type');
      t.match(res.headers.vary, /Access-Control-Request-Headers/);
      t.equal(res.body, '');
    }
    // an incomplete preflight gets the same empty 204 (browsers never send one; a text 400 would break the one error shape)
    for (const headers of [{ origin }, { 'access-control-request-method': 'GET' }]) {
      const res = await app.inject({ method: 'OPTIONS', url: '/mobile/tenant-info', headers });
      t.equal(res.statusCode, 204);
      t.equal(res.body, '');
    }
  },
);

t.test('CORS over a real socket: the preflight and the request a browser would send', async (t) => {
  const app = await build(t);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const s = await signIn(app);
  const origin = 'http://localhost:19006';
  const pre = await fetch(`${base}/mobile/tenant-info`, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'GET',
      'access-control-request-headers': Object.keys(s.headers).join(','),
    },
  });
  t.equal(pre.status, 204);
  t.equal(pre.headers.get('access-control-allow-headers'), Object.keys(s.headers).join(','));
  const res = await fetch(`${base}/mobile/tenant-info`, { headers: { ...s.headers, origin } });
  t.equal(res.status, 200);
  t.equal(res.headers.get('access-control-allow-origin'), origin);
});
