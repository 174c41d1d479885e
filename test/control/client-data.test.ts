// The typed client's `data` (issue 33, part 5): every collection of a tenant, through real HTTP, in the client's
// sandbox; the default tenant is the first of the fixtures, `tenant(id)` another.
import t from 'tap';
import { startMock } from '../../src/start-mock.js';
import { AdminError } from '../../src/client/control.js';
import { accounts, tenants } from '../helper.js';

t.test('data.<collection> reads and writes the sandbox of the client, first tenant by default', async (t) => {
  const mock = await startMock({ logger: false });
  t.teardown(() => mock.close());
  const qa = mock.admin.sandbox('client-data');
  const { tenants: fixtures } = await mock.admin.fixtures();
  t.equal(fixtures[0]?.id, tenants.romashka, 'the first tenant of the fixtures is romashka');

  const missing = await qa.data.users.get(accounts.admin.userId).catch((e: unknown) => e);
  t.match(missing, { status: 404, message: /"client-data"/ }, 'a read never makes the sandbox (issue 46)');
  await qa.data.postcards.createMany(1);
  const me = await qa.data.users.get(accounts.admin.userId);
  t.equal(me.id, accounts.admin.userId, 'a read of the default tenant, once a create (a write) made the sandbox');
  const patched = await qa.data.users.patch(me.id, { statusText: 'Arranged by a test' });
  t.equal(patched.statusText, 'Arranged by a test');
  t.equal((await mock.admin.data.users.get(me.id)).statusText, me.statusText, 'the default sandbox is untouched');

  const { records: bosses } = await qa.data.users.list({ isBoss: true, limit: 3 });
  t.ok(bosses.length > 0 && bosses.every((u) => u.isBoss), 'a typed filter');

  const northwind = qa.data.tenant(tenants.northwind);
  const { records: theirs } = await northwind.users.list({ limit: 1 });
  t.ok(theirs[0] && theirs[0].id !== me.id, "tenant(id) reads that tenant's records");
  const err = await northwind.users.get(me.id).catch((e: unknown) => e);
  t.ok(err instanceof AdminError && err.status === 404, "one tenant never reads another's record");

  const [sample] = (await qa.data.notifications.list({ limit: 1 })).records;
  if (!sample) throw new Error('the seeded world has notifications');
  const { id: _id, ...fields } = sample;
  const made = await qa.data.notifications.createMany(2, fields);
  t.equal(made.records.length, 2, 'createMany');
  t.same(await qa.data.notifications.remove(made.records[0]!.id), { deleted: made.records[0]!.id });

  const misspelt = await (qa.data as unknown as Record<string, typeof qa.data.users>).userz!.list().catch((e) => e);
  t.ok(misspelt instanceof AdminError && misspelt.status === 404, 'a collection unknown at run time is a 404');
  t.match((misspelt as AdminError).message, /no records API route answers GET .*\/userz; collections: .*users/);
});

t.test('options.tenantId chooses the tenant of data', async (t) => {
  const mock = await startMock({ logger: false });
  t.teardown(() => mock.close());
  const { adminClient } = await import('../../src/client/control.js');
  const admin = adminClient({ baseUrl: mock.url, sandbox: 'nw', tenantId: tenants.northwind });
  await admin.sandboxCreate();
  const [user] = (await admin.data.users.list({ limit: 1 })).records;
  t.ok(user);
  const direct = await mock.admin.sandbox('nw').data.tenant(tenants.northwind).users.get(user!.id);
  t.equal(direct.id, user!.id);
});
