// The records API (issue 33, part 1): any record of a tenant's data per sandbox, through real HTTP; writes are seen
// at once by the portal's operations, undone by a reset, kept with --data, refused whole when not valid.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppOptions } from '../../src/app.js';
import { adminClient } from '../../src/client/control.js';
import { accounts, build, httpCaller, signIn, tenants } from '../helper.js';

type Teardown = { teardown(fn: () => unknown): void };
const users = `/__admin/data/${tenants.romashka}/users`;

async function listening(t: Teardown, options: AppOptions = {}, app?: FastifyInstance) {
  const mock = app ?? (await build(t, options));
  const base = await mock.listen({ port: 0, host: '127.0.0.1' });
  const call = httpCaller(base);
  /** the portal's own search, as the signed-in demo admin of the sandbox */
  const search = async (sandbox: string, q: string) => {
    const s = await signIn(mock, accounts.admin, { sandbox });
    const res = await call('GET', `/user/search?q=${encodeURIComponent(q)}`, undefined, s.headers);
    return (res.body.users as { id: string; name: string }[]).map((u) => u.id);
  };
  return { app: mock, call, search };
}

/** A new employee made from an existing record: every field its schema asks for, a name nobody else has. */
async function newcomer(call: Awaited<ReturnType<typeof listening>>['call']) {
  const { body } = await call('GET', `${users}/${accounts.admin.userId}?sandbox=default`);
  const { id: _id, ...fields } = body;
  return {
    ...fields,
    email: 'zoe.quill@romashka.test',
    firstName: 'Zoe',
    lastName: 'Quillfeather',
    middleName: null,
    name: 'Zoe Quillfeather',
  };
}

/** What a created user brought (its employment, its place in user groups) taken away, so the user can go. */
async function releaseDependents(call: Awaited<ReturnType<typeof listening>>['call'], sandbox: string, id: string) {
  const base = `/__admin/data/${tenants.romashka}`;
  for (const e of (await call('GET', `${base}/employments?sandbox=${sandbox}&userId=${id}`)).body.records)
    await call('DELETE', `${base}/employments/${e.id}?sandbox=${sandbox}`);
  for (const g of (await call('GET', `${base}/userGroups?sandbox=${sandbox}&limit=100`)).body.records) {
    if (!g.memberIds.includes(id)) continue;
    const memberIds = g.memberIds.filter((m: string) => m !== id);
    await call('PATCH', `${base}/userGroups/${g.id}?sandbox=${sandbox}`, { memberIds });
  }
}

t.test('list, filter, page; unknown names are 4xx naming them', async (t) => {
  const { call } = await listening(t);
  await call('PUT', '/__admin/sandboxes/rec');
  const all = await call('GET', `${users}?sandbox=rec&limit=2`);
  t.equal(all.status, 200);
  t.equal(all.body.records.length, 2, 'paged');
  t.ok(all.body.total > 2, 'total counts them all');
  const bosses = await call('GET', `${users}?sandbox=rec&isBoss=true&limit=1000`);
  t.ok(bosses.body.total > 0 && bosses.body.total < all.body.total, 'a filter by field equality');
  t.ok(bosses.body.records.every((u: { isBoss: boolean }) => u.isBoss));

  const unknownFilter = await call('GET', `${users}?sandbox=rec&isBos=true`);
  t.equal(unknownFilter.status, 400);
  t.match(unknownFilter.body.message, /unknown filter "isBos"/);
  const unknownCollection = await call('GET', `/__admin/data/${tenants.romashka}/user?sandbox=rec`);
  t.equal(unknownCollection.status, 404);
  t.match(unknownCollection.body.message, /no records API route answers GET .*\/user; collections: .*users/);
  t.equal((await call('GET', `/__admin/data/nope/users?sandbox=rec`)).status, 404, 'unknown tenant');
  const ghost = await call('GET', `${users}?sandbox=ghost-sandbox`);
  t.equal(ghost.status, 404, 'a read never makes a sandbox');
  t.equal(ghost.body.code, 'SANDBOX_NOT_FOUND');
  t.equal((await call('GET', `${users}/nope?sandbox=rec`)).status, 404, 'unknown id');
});

t.test('create, patch, delete: the portal sees each at once; other sandboxes never', async (t) => {
  const { call, search } = await listening(t);
  const record = await newcomer(call);
  const made = await call('POST', `${users}?sandbox=arrange`, record);
  t.equal(made.status, 201);
  t.match(made.body, { records: [{ id: /^[0-9a-f-]{36}$/, lastName: 'Quillfeather' }], dependents: {} });
  const id = made.body.records[0].id as string;
  t.same(await search('arrange', 'Quillfeather'), [id], 'the portal finds the new employee');
  t.same(await search('elsewhere', 'Quillfeather'), [], 'another sandbox does not');
  t.equal((await call('POST', `${users}?sandbox=arrange`, { ...record, id })).status, 409, 'an id that exists');

  const patched = await call('PATCH', `${users}/${id}?sandbox=arrange`, { lastName: 'Inkwell', name: 'Zoe Inkwell' });
  t.equal(patched.status, 200);
  t.equal(patched.body.lastName, 'Inkwell');
  t.same(await search('arrange', 'Inkwell'), [id], 'the index follows the patch');
  t.same(await search('arrange', 'Quillfeather'), [], 'and forgets the old name');

  const named = await call('DELETE', `${users}/${id}?sandbox=arrange`);
  t.equal(named.status, 409, 'its employment and groups name it');
  t.match(named.body.message, /employments\/[^ ]+\.userId.*userGroups\/[^ ]+\.memberIds\[\]/);
  await releaseDependents(call, 'arrange', id);
  t.same((await call('DELETE', `${users}/${id}?sandbox=arrange`)).body, { deleted: id });
  t.same(await search('arrange', 'Inkwell'), [], 'deleted');
  t.equal((await call('GET', `${users}/${id}?sandbox=arrange`)).status, 404);
});

t.test('refused whole: the schema, unknown fields, immutable fields', async (t) => {
  const { call } = await listening(t);
  const record = await newcomer(call);
  await call('PUT', '/__admin/sandboxes/bad');
  const before = (await call('GET', `${users}?sandbox=bad&limit=1`)).body.total;
  const refused: Array<[string, string, string, unknown, RegExp]> = [
    ['a bad email', 'POST', users, { ...record, email: 'not-an-email' }, /email/],
    ['a misspelt field', 'POST', users, { ...record, lastname: 'x' }, /no field "lastname"; closest: lastName, /],
    [
      'a misspelt field in a patch',
      'PATCH',
      `${users}/${accounts.admin.userId}`,
      { frstName: 'x' },
      /^users records have no field "frstName"; closest: firstName, /,
    ],
    ['another tenant', 'POST', users, { ...record, tenantId: tenants.northwind }, /./],
    [
      'an id',
      'PATCH',
      `${users}/${accounts.admin.userId}`,
      { id: 'a1000000-0000-4000-8000-000000000099' },
      /id of a record cannot change/,
    ],
    // a user record has no tenantId field: the message names the tenant it lives in, not "undefined"
    [
      'a tenantId',
      'PATCH',
      `${users}/${accounts.admin.userId}`,
      { tenantId: tenants.northwind },
      new RegExp(`^tenantId of a record cannot change \\(it is "${tenants.romashka}"\\)$`),
    ],
    [
      'a dangling reference',
      'POST',
      users,
      { ...record, departmentId: 'dead0000-0000-4000-8000-000000000000' },
      /^departmentId: no departments record "dead0000-0000-4000-8000-000000000000" in tenant /,
    ],
    [
      'a patch to a dangling reference',
      'PATCH',
      `${users}/${accounts.admin.userId}`,
      { departmentId: 'dead0000-0000-4000-8000-000000000000', isBoss: !record.isBoss },
      /^departmentId: no departments record/,
    ],
    ['a wrong type', 'PATCH', `${users}/${accounts.admin.userId}`, { isBoss: 'yes' }, /isBoss/],
  ];
  for (const [what, method, path, body, message] of refused) {
    const res = await call(method, `${path}?sandbox=bad`, body);
    t.equal(res.status, 400, what);
    t.match(res.body.message, message, what);
  }
  t.equal((await call('GET', `${users}?sandbox=bad&limit=1`)).body.total, before, 'nothing was created');
  const admin = await call('GET', `${users}/${accounts.admin.userId}?sandbox=bad`);
  t.equal(admin.body.isBoss, record.isBoss, 'nothing was patched');
});

t.test('the same calls give the same ids; a reset undoes them', async (t) => {
  const { call } = await listening(t);
  const record = await newcomer(call);
  await call('POST', `${users}?sandbox=one`, { ...record, email: 'bad' }); // refused: mints nothing
  const a = (await call('POST', `${users}?sandbox=one`, record)).body.records[0].id;
  const b = (await call('POST', `${users}?sandbox=two`, record)).body.records[0].id;
  t.ok(a && b);
  const again = (await call('POST', `${users}?sandbox=one`, { ...record, email: 'zoe2@romashka.test' })).body.records[0]
    .id;
  t.not(again, a, 'a second create mints another id');
  await call('POST', '/__admin/reset?sandbox=one', {});
  t.equal((await call('GET', `${users}/${a}?sandbox=one`)).status, 404, 'reset undoes it');
  t.equal(
    (await call('POST', `${users}?sandbox=one`, record)).body.records[0].id,
    a,
    'after a reset the same id again',
  );
});

t.test('with --data, a created record survives a restart', async (t) => {
  const data = mkdtempSync(join(tmpdir(), 'records-api-'));
  const first = await buildApp({ now: '2026-03-02T09:00:00.000Z', data });
  const { call } = await listening(t, {}, first);
  const made = await call('POST', `${users}?sandbox=kept`, await newcomer(call));
  t.equal(made.status, 201);
  await first.close();
  const second = await listening(t, { data });
  const back = await second.call('GET', `${users}/${made.body.records[0].id}?sandbox=kept`);
  t.equal(back.status, 200, 'back after the restart');
  t.equal(back.body.lastName, 'Quillfeather');
});

t.test('the typed client: records(tenantId, collection)', async (t) => {
  const { app, search } = await listening(t);
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  const typed = adminClient({ baseUrl: base, sandbox: 'typed' });
  const users = typed.records(tenants.romashka, 'users');
  t.match(await users.get(accounts.admin.userId).catch((e: unknown) => e), { status: 404 }, 'a read makes nothing');
  await typed.sandboxCreate();
  const me = await users.get(accounts.admin.userId);
  t.equal(me.id, accounts.admin.userId, 'a read of the sandbox made');
  const { id: _id, ...fields } = me;
  const who = { firstName: 'Zoe', lastName: 'Quillfeather', name: 'Zoe Quillfeather', middleName: null };
  const { records } = await users.create({ ...fields, ...who, email: 'zoe.quill@romashka.test' });
  const made = records[0];
  if (!made) throw new Error('the create answered no record');
  t.same(await search('typed', 'Quillfeather'), [made.id]);
  t.equal((await users.patch(made.id, { statusText: 'Hi' })).statusText, 'Hi');
  t.ok(
    (await users.list({ isBoss: true })).records.every((u) => u.isBoss),
    'a typed filter',
  );
  await releaseDependents(httpCaller(base), 'typed', made.id);
  t.same(await users.remove(made.id), { deleted: made.id });
});

t.test('a record other records name cannot be deleted (409 naming them); nothing cascades', async (t) => {
  const { call } = await listening(t);
  await call('PUT', '/__admin/sandboxes/refs');
  const res = await call('DELETE', `${users}/${accounts.admin.userId}?sandbox=refs`);
  t.equal(res.status, 409);
  t.match(res.body.message, /is named by .*employments\/[^ ]+\.userId/, 'names who points to it');
  t.equal((await call('GET', `${users}/${accounts.admin.userId}?sandbox=refs`)).status, 200, 'still there');
});

t.test('?count=N creates several alike; a bad count is a 400 and makes nothing', async (t) => {
  const { call } = await listening(t);
  const notifications = `/__admin/data/${tenants.romashka}/notifications`;
  await call('PUT', '/__admin/sandboxes/many');
  const [sample] = (await call('GET', `${notifications}?sandbox=many&limit=1`)).body.records;
  const { id: _id, ...record } = sample;
  const before = (await call('GET', `${notifications}?sandbox=many&limit=1`)).body.total;
  const made = await call('POST', `${notifications}?sandbox=many&count=3`, record);
  t.equal(made.status, 201);
  t.equal(made.body.records.length, 3);
  t.equal(new Set(made.body.records.map((r: { id: string }) => r.id)).size, 3, 'each its own id');
  t.equal((await call('GET', `${notifications}?sandbox=many&limit=1`)).body.total, before + 3);
  for (const count of ['0', '1001', '1.5', 'two']) {
    const res = await call('POST', `${notifications}?sandbox=many&count=${count}`, record);
    t.equal(res.status, 400, `count ${count}`);
    t.match(res.body.details, [{ field: 'query.count' }]);
  }
  t.equal((await call('GET', `${notifications}?sandbox=many&limit=1`)).body.total, before + 3, 'nothing more');
});
