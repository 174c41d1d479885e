import t from 'tap';
import { build, json, signIn } from '../helper.js';

const posts = [
  '/user-api-token/create',
  '/user-api-token/revoke',
  '/admin/user-api-token/revoke',
  '/user-list-cache/set-user-list',
  '/admin/wallet-transaction/create',
  '/admin/wallet-transaction/excel-processing',
  '/admin/wallet-transaction/create-from-excel',
  '/admin/wallet/export-excel',
  '/admin/wallet-transaction/export-excel',
];

t.test('bad input never answers 500', async (t) => {
  const app = await build(t);
  const s = await signIn(app);
  for (const url of posts) {
    for (const variant of [
      { headers: s.headers },
      { headers: { ...s.headers, 'content-type': 'application/json' }, payload: '[]' },
      {
        headers: { ...s.headers, 'content-type': 'application/json' },
        payload: '{"amount":{},"mapping":"x","userList":7,"id":5}',
      },
      { headers: { ...s.headers, 'content-type': 'application/json' }, payload: 'not json' },
      { headers: { ...s.headers, 'content-type': 'text/plain' }, payload: 'hello' },
    ]) {
      const res = await app.inject({ method: 'POST', url, ...variant });
      const shown = String(res.headers['content-type']).includes('json')
        ? res.body.slice(0, 120)
        : String(res.headers['content-type']);
      t.ok(res.statusCode < 500, `${url} ${JSON.stringify(variant.payload ?? null)} → ${res.statusCode} ${shown}`);
    }
  }
  for (const url of [
    '/admin/wallet?page=x',
    '/admin/wallet?per-page=0',
    '/admin/wallet-transaction?created_at=%7C',
    '/admin/employment?origin_id[]=&user_id=,,',
    '/file-processing?page=0',
    '/user-list-cache/user-list-data?key=',
  ]) {
    const res = await app.inject({ url, headers: s.headers });
    t.ok(res.statusCode < 500, `${url} → ${res.statusCode} ${res.body.slice(0, 120)}`);
  }
  const empty = json(await app.inject({ url: '/admin/employment?origin_id[]=', headers: s.headers }));
  t.ok(empty._meta.totalCount > 0, 'an empty origin_id[] is no filter');
  const ok = await app.inject({ url: '/admin/wallet-transaction?created_at=%7C', headers: s.headers });
  t.equal(json(ok)._meta.totalCount > 0, true, 'an open range on both sides filters nothing');
});

t.test('page links under /sandbox/NAME and /api/v2 are the address as called, the sandbox prefix once', async (t) => {
  const app = await build(t);
  const s = await signIn(app, undefined, { sandbox: 'qa-links' });
  const { 'x-mock-sandbox': _sandbox, ...headers } = s.headers;
  const res = await app.inject({ url: '/sandbox/qa-links/api/v2/admin/wallet?per-page=5', headers });
  t.equal(res.statusCode, 200, res.body.slice(0, 200));
  t.equal(json(res)._links.self, 'http://localhost/sandbox/qa-links/api/v2/admin/wallet?per-page=5&page=1');
});
