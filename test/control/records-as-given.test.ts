// Issue 46, finding 3: the records API keeps what it is given. No coercion of the body (null stays null where the
// schema allows it, a 400 where it does not; "true" is no boolean), only JSON bodies (415 naming the content type),
// unknown filter fields refused whatever their name, and writes make the sandbox they name, as docs/data.md says.
import t from 'tap';
import { build, httpCaller, tenants } from '../helper.js';

type Teardown = { teardown(fn: () => unknown): void };
const base = `/__admin/data/${tenants.romashka}`;

async function listening(t: Teardown) {
  const app = await build(t);
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, url, call: httpCaller(url) };
}

t.test('null stays null on a nullable field, and is a 400 where null is not allowed', async (t) => {
  const { call } = await listening(t);
  const user = await call('POST', `${base}/users?sandbox=given`, { middleName: null });
  t.equal(user.status, 201);
  t.equal(user.body.records[0].middleName, null, 'users.middleName: null as given, not ""');
  const stored = await call('GET', `${base}/users/${user.body.records[0].id}?sandbox=given`);
  t.equal(stored.body.middleName, null, 'stored as given');

  const note = await call('POST', `${base}/notifications?sandbox=given`, { url: null });
  t.equal(note.status, 201);
  t.equal(note.body.records[0].url, null, 'notifications.url: null as given');

  const patched = await call('PATCH', `${base}/notifications/${note.body.records[0].id}?sandbox=given`, {
    url: '/news/1',
  });
  t.equal(patched.body.url, '/news/1');
  const back = await call('PATCH', `${base}/notifications/${note.body.records[0].id}?sandbox=given`, { url: null });
  t.equal(back.status, 200);
  t.equal(back.body.url, null, 'a patch to null keeps null');
});

t.test('values of another JSON type are refused, not converted; nothing is written', async (t) => {
  const { call } = await listening(t);
  await call('PUT', '/__admin/sandboxes/typed');
  const before = (await call('GET', `${base}/users?sandbox=typed&limit=1`)).body.total;
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ isBoss: 'true' }, 'body.isBoss'],
    [{ rights: 'user-edit' }, 'body.rights'],
    [{ twoFactor: 0 }, 'body.twoFactor'],
    [{ name: null }, 'body.name'],
    [{ regStatusId: '2' }, 'body.regStatusId'],
  ];
  for (const [body, field] of cases) {
    const res = await call('POST', `${base}/users?sandbox=typed`, body);
    t.equal(res.status, 400, `${JSON.stringify(body)}: 400`);
    t.equal(res.body.code, 'VALIDATION_FAILED');
    t.ok(
      res.body.details.some((d: { field: string }) => d.field === field),
      `${JSON.stringify(body)}: names ${field}`,
    );
  }
  t.equal((await call('GET', `${base}/users?sandbox=typed&limit=1`)).body.total, before, 'nothing was created');

  const id = (await call('GET', `${base}/users?sandbox=typed&limit=1`)).body.records[0].id;
  const patch = await call('PATCH', `${base}/users/${id}?sandbox=typed`, { isBoss: 'false' });
  t.equal(patch.status, 400, 'a patch is checked as given too');
  const list = await call('GET', `${base}/users?sandbox=typed&limit=1&offset=0`);
  t.equal(list.status, 200, 'the query string is still text read as numbers');
});

t.test('only JSON bodies: 415 naming the content type, 400 for an empty one; nothing is written', async (t) => {
  const { call, url } = await listening(t);
  await call('PUT', '/__admin/sandboxes/media');
  const total = async () => (await call('GET', `${base}/notifications?sandbox=media&limit=1`)).body.total;
  const before = await total();
  const send = async (headers: Record<string, string>, body?: string, method = 'POST', path = 'notifications') => {
    const res = await fetch(`${url}${base}/${path}?sandbox=media`, { method, headers, body });
    return { status: res.status, body: await res.json() };
  };
  const plain = await send({ 'content-type': 'text/plain' }, '{}');
  t.equal(plain.status, 415);
  t.equal(plain.body.code, 'UNSUPPORTED_MEDIA_TYPE');
  t.match(plain.body.message, /content-type text\/plain/);
  const form = await send({ 'content-type': 'application/x-www-form-urlencoded' }, '{"title":"x"}');
  t.equal(form.status, 415);
  t.match(form.body.message, /application\/x-www-form-urlencoded/, 'names the form type, never calls it JSON');
  const none = await send({});
  t.equal(none.status, 415, 'no body and no content type');
  t.match(none.body.message, /no content-type/);
  const empty = await send({ 'content-type': 'application/json' }, '');
  t.equal(empty.status, 400, 'an empty JSON body');
  t.match(empty.body.message, /empty/);
  const notJson = await send({ 'content-type': 'application/json' }, 'title=x');
  t.equal(notJson.status, 400);
  t.equal(await total(), before, 'nothing was created');
  const ok = await send({ 'content-type': 'application/json; charset=utf-8' }, '{}');
  t.equal(ok.status, 201, 'JSON with a charset is JSON');

  const id = ok.body.records[0].id;
  const patch = await send({ 'content-type': 'text/plain' }, '{"title":"x"}', 'PATCH', `notifications/${id}`);
  t.equal(patch.status, 415, 'a patch too');
  const remove = await send({}, undefined, 'DELETE', `notifications/${id}`);
  t.equal(remove.status, 200, 'a delete takes no body and needs no content type');
});

t.test('a filter field the records do not have is a 400 whatever its name', async (t) => {
  const { call } = await listening(t);
  await call('PUT', '/__admin/sandboxes/filters');
  for (const field of ['constructor', 'toString', 'hasOwnProperty', 'valueOf', '__proto__', 'isBos']) {
    const res = await call('GET', `${base}/users?sandbox=filters&${field}=x`);
    t.equal(res.status, 400, `${field}: 400`);
    t.match(res.body.message, /unknown filter/, `${field}: says so`);
  }
  const body = await call('POST', `${base}/notifications?sandbox=filters`, { constructor: 'x' });
  t.equal(body.status, 400, 'a body field named constructor is no field of the record either');
});

t.test('PATCH and DELETE make the sandbox they name, as POST does; a refused one leaves none', async (t) => {
  const { call } = await listening(t);
  const id = (await call('GET', `${base}/users?sandbox=default&limit=1`)).body.records[0].id;
  const patched = await call('PATCH', `${base}/users/${id}?sandbox=fresh-patch`, { statusText: 'On leave' });
  t.equal(patched.status, 200, 'a patch in a sandbox that does not exist yet makes it');
  t.equal(patched.body.statusText, 'On leave');
  t.equal((await call('GET', '/__admin/sandboxes/fresh-patch')).status, 200);
  t.equal((await call('GET', `${base}/users/${id}?sandbox=default`)).body.statusText === 'On leave', false);

  const note = (await call('GET', `${base}/notifications?sandbox=default&limit=1`)).body.records[0].id;
  const deleted = await call('DELETE', `${base}/notifications/${note}?sandbox=fresh-delete`);
  t.equal(deleted.status, 200, 'a delete in a sandbox that does not exist yet makes it');
  t.equal((await call('GET', `${base}/notifications/${note}?sandbox=fresh-delete`)).status, 404, 'and deletes');

  const refused = await call('PATCH', `${base}/users/nope?sandbox=fresh-refused`, { statusText: 'x' });
  t.equal(refused.status, 404, 'an unknown record');
  const badPatch = await call('PATCH', `${base}/users/${id}?sandbox=fresh-refused`, { isBoss: 'yes' });
  t.equal(badPatch.status, 400);
  const badCreate = await call('POST', `${base}/users?sandbox=fresh-refused`, { nope: 1 });
  t.equal(badCreate.status, 400);
  t.equal((await call('GET', '/__admin/sandboxes/fresh-refused')).status, 404, 'refused writes made no sandbox');
});
