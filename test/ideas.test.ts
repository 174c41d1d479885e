import t from 'tap';
import { accounts, build, expectError, json, signIn } from './helper.js';

t.test('smoke', async (t) => {
  const app = await build(t);
  const s = await signIn(app);
  for (const url of ['/idea/statuses', '/idea/purposes', '/idea/index', '/moderation', '/file/index', '/file/count']) {
    const r = await app.inject({ url, headers: s.headers });
    t.equal(r.statusCode, 200, `${url} ${r.body.slice(0, 500)}`);
  }
});
