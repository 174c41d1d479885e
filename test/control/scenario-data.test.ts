// Scenario files carry data (issue 33, part 4), through real HTTP: a data block applied when a scenario is applied to
// a sandbox, all or nothing with the entry named; not twice after a --data restart; a --scenario whose data does not
// apply stops the start; the scenario files' JSON Schema served and committed; a sandbox's changes exported as a data
// block that, replayed in another sandbox, gives the same records. Needs `npm run build` (dist/portal-mock.mjs).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppOptions } from '../../src/app.js';
import { generateScenarioSchema, scenarioSchemaFile } from '../../src/tools/openapi.js';
import { accounts, httpCaller, tenants } from '../helper.js';
import { startFails } from '../support/process.js';
import { tempDir } from '../support/temp-dir.js';

const now = '2026-03-02T09:00:00.000Z';
const admin = accounts.admin.userId;
const data = (collection: string) => `/__admin/data/${tenants.romashka}/${collection}`;

async function listening(t: Test, options: AppOptions = {}) {
  const app = await buildApp({ now, logLevel: 'silent', ...options });
  t.teardown(() => app.close());
  const call = httpCaller(await app.listen({ port: 0, host: '127.0.0.1' }));
  return { app, call };
}

type Call = ReturnType<typeof httpCaller>;

/** A notification of the demo admin as the seed made it: the template the scenarios below copy. */
const template = {
  userId: admin,
  title: 'Arranged',
  body: 'made by a scenario',
  kind: 'birthday',
  url: null,
  createdAt: '2026-03-02T08:00:00.000Z',
  seenAt: null,
};

/** Every record of a collection in a sandbox (paged by the records API). */
async function all(call: Call, collection: string, sandbox: string) {
  const out: unknown[] = [];
  for (let offset = 0; ; offset += 1000) {
    const { status, body } = await call('GET', `${data(collection)}?sandbox=${sandbox}&limit=1000&offset=${offset}`);
    if (status !== 200) throw new Error(`${collection}: ${status} ${JSON.stringify(body)}`);
    out.push(...body.records);
    if (out.length >= body.total) return out;
  }
}

const adminNotifications = async (call: Call, sandbox: string) =>
  (await call('GET', `${data('notifications')}?sandbox=${sandbox}&userId=${admin}&limit=1`)).body.total as number;

/** A scenario directory with one scenario "arranged": the admin's status, two notifications more, one less. */
async function arrangedDir(t: Test, removeId: string) {
  const dir = tempDir(t, 'scenario-data-');
  const scenario = {
    $schema: './scenario.schema.json',
    name: 'arranged',
    description: 'the admin is on leave, with two new notifications and one fewer old one',
    data: [
      { patch: 'users', id: admin, set: { statusText: 'On leave (arranged)' } },
      { create: 'notifications', tenant: tenants.romashka, count: 2, record: template },
      { remove: 'notifications', id: removeId },
    ],
  };
  writeFileSync(join(dir, 'arranged.json'), JSON.stringify(scenario, null, 2));
  return dir;
}

/** The first notification of the demo admin in the seeded world (nothing names it). */
async function firstNotification(): Promise<string> {
  const app = await buildApp({ now, logLevel: 'silent' });
  try {
    const res = await app.inject({ url: `${data('notifications')}?userId=${admin}&limit=1` });
    return res.json().records[0].id as string;
  } finally {
    await app.close();
  }
}

t.test('a scenario file with data: applied when a sandbox is made with it, not by the header', async (t) => {
  const removeId = await firstNotification();
  const { call } = await listening(t, { scenarios: [await arrangedDir(t, removeId)] });
  const before = await adminNotifications(call, 'default');

  t.equal((await call('PUT', '/__admin/sandboxes/arr-1', { scenario: 'arranged' })).status, 201);
  const user = (await call('GET', `${data('users')}/${admin}?sandbox=arr-1`)).body;
  t.equal(user.statusText, 'On leave (arranged)', 'the tenant an entry leaves out is the first of the fixtures');
  t.equal(await adminNotifications(call, 'arr-1'), before + 2 - 1, 'two made, one removed');
  t.equal((await call('GET', `${data('notifications')}/${removeId}?sandbox=arr-1`)).status, 404);
  const made = await call('GET', `${data('notifications')}?sandbox=arr-1&title=Arranged`);
  t.equal(made.body.total, 2);

  // the header applies the behaviour side only: the default sandbox's data stays as seeded
  await call('GET', '/tenants', undefined, { 'x-mock-scenario': 'arranged' });
  t.not((await call('GET', `${data('users')}/${admin}?sandbox=default`)).body.statusText, 'On leave (arranged)');
  t.equal(await adminNotifications(call, 'default'), before);

  // a reset goes back to the start scenario (default here): the arranged data is gone
  t.equal((await call('POST', '/__admin/reset?sandbox=arr-1', {})).status, 200);
  t.equal(await adminNotifications(call, 'arr-1'), before);
});

t.test('the shipped unread-notifications scenario gives the demo admin 50 unread notifications more', async (t) => {
  const { call } = await listening(t);
  const before = await adminNotifications(call, 'default');
  t.equal((await call('PUT', '/__admin/sandboxes/unread', { scenario: 'unread-notifications' })).status, 201);
  t.equal(await adminNotifications(call, 'unread'), before + 50);
  const made = await call('GET', `${data('notifications')}?sandbox=unread&title=Unread%20notification&limit=1000`);
  t.equal(made.body.total, 50);
  t.ok(
    made.body.records.every((n: { seenAt: unknown }) => n.seenAt === null),
    'all unread',
  );
});

t.test('a data entry that does not apply: the scenario is refused whole, naming the entry', async (t) => {
  const { call } = await listening(t);
  t.equal((await call('PUT', '/__admin/scenario?sandbox=bad-1', { name: 'hold-tickets' })).status, 200);
  const statusBefore = (await call('GET', `${data('users')}/${admin}?sandbox=bad-1`)).body.statusText;
  const before = await adminNotifications(call, 'bad-1');

  const inline = {
    name: 'bad-data',
    description: 'the second entry names a record that does not exist',
    data: [
      { patch: 'users', id: admin, set: { statusText: 'half applied?' } },
      { create: 'notifications', record: template },
      { remove: 'notifications', id: 'no-such-notification' },
    ],
  };
  const res = await call('PUT', '/__admin/scenario?sandbox=bad-1', { scenario: inline });
  t.equal(res.status, 422, JSON.stringify(res.body));
  t.match(res.body, { statusCode: 422, code: 'UNPROCESSABLE' });
  t.match(res.body.message, /data\[2\] \(remove notifications no-such-notification\): no notifications record/);
  t.equal((await call('GET', '/__admin/scenario?sandbox=bad-1')).body.name, 'hold-tickets', 'the scenario stays');
  t.equal((await call('GET', `${data('users')}/${admin}?sandbox=bad-1`)).body.statusText, statusBefore);
  t.equal(await adminNotifications(call, 'bad-1'), before, 'nothing of the first two entries remains');
  t.equal((await call('GET', '/__admin/scenarios/bad-data')).status, 404, 'the inline definition is undone too');

  // defined, then a sandbox made with it: 422, and no sandbox
  t.equal((await call('PUT', '/__admin/scenarios/bad-data', inline)).status, 201);
  const made = await call('PUT', '/__admin/sandboxes/bad-2', { scenario: 'bad-data' });
  t.equal(made.status, 422);
  t.match(made.body.message, /data\[2\]/);
  t.equal((await call('GET', '/__admin/sandboxes/bad-2')).status, 404, 'nothing is made');

  // a record that fails its schema: the field is named, under the entry
  const badRecord = { ...inline, name: 'bad-record', data: [{ create: 'notifications', record: { title: 3 } }] };
  const schema = await call('PUT', '/__admin/scenario?sandbox=bad-1', { scenario: badRecord });
  t.equal(schema.status, 422);
  t.match(schema.body.message, /data\[0\] \(create notifications\)/);

  // a malformed block: a 400 naming the JSON path when it is defined, as for any definition
  const malformed = [
    [{ patch: 'users', id: admin, set: 3 }, /at \/data\/0\/set: Expected object/],
    [{ create: 'userz', record: {} }, /at \/data\/0\/create: unknown collection "userz"; known: .*users/],
    [{ remove: 'users' }, /at \/data\/0\/id: Expected required property/],
    [{ create: 'users', remove: 'users', record: {} }, /at \/data\/0: expected exactly one of/],
    [{ create: 'users', record: {}, count: 0 }, /at \/data\/0\/count/],
  ] as const;
  for (const [entry, message] of malformed) {
    const r = await call('PUT', '/__admin/scenarios/malformed', { ...inline, name: 'malformed', data: [entry] });
    t.equal(r.status, 400, JSON.stringify(entry));
    t.match(r.body.message, message);
  }
});

t.test('a reset whose start scenario data no longer applies is refused, the sandbox as it was', async (t) => {
  const removeId = await firstNotification();
  const { call } = await listening(t, { scenario: 'arranged', scenarios: [await arrangedDir(t, removeId)] });
  t.equal((await call('GET', `${data('users')}/${admin}?sandbox=default`)).body.statusText, 'On leave (arranged)');
  // the start scenario replaced by one whose data names a record that does not exist
  const broken = {
    name: 'arranged',
    description: 'broken',
    data: [{ patch: 'users', id: 'nobody', set: { statusText: 'x' } }],
  };
  t.equal((await call('PUT', '/__admin/scenarios/arranged', broken)).status, 200);
  await call('PATCH', `${data('users')}/${admin}?sandbox=default`, { statusText: 'changed since' });
  const res = await call('POST', '/__admin/reset?sandbox=default', {});
  t.equal(res.status, 422);
  t.match(res.body.message, /data\[0\] \(patch users nobody\)/);
  t.equal((await call('GET', `${data('users')}/${admin}?sandbox=default`)).body.statusText, 'changed since');
  // a new sandbox (made with the start scenario) is refused and not made
  const made = await call('PUT', '/__admin/sandboxes/after-broken');
  t.equal(made.status, 422);
  t.equal((await call('GET', '/__admin/sandboxes/after-broken')).status, 404);
});

t.test('--data: activation and its data are one log line; a restart does not apply the data twice', async (t) => {
  const removeId = await firstNotification();
  const scenarios = [await arrangedDir(t, removeId)];
  const dir = tempDir(t, 'scenario-data-store-');
  const first = await listening(t, { scenarios, data: dir });
  t.equal((await first.call('PUT', '/__admin/sandboxes/kept', { scenario: 'arranged' })).status, 201);
  const count = await adminNotifications(first.call, 'kept');
  const users = await all(first.call, 'users', 'kept');
  await first.app.close();

  const second = await listening(t, { scenarios, data: dir });
  t.equal((await second.call('GET', '/__admin/scenario?sandbox=kept')).body.name, 'arranged');
  t.equal(await adminNotifications(second.call, 'kept'), count, 'the two notifications are there once');
  t.same(await all(second.call, 'users', 'kept'), users);
  const made = await second.call('GET', `${data('notifications')}?sandbox=kept&title=Arranged`);
  t.equal(made.body.total, 2);
});

t.test('--scenario whose data does not apply stops the start, naming the entry', async (t) => {
  const dir = tempDir(t, 'scenario-data-bad-');
  const broken = {
    name: 'broken',
    description: 'removes a user nobody has',
    data: [{ remove: 'users', id: 'nobody' }],
  };
  writeFileSync(join(dir, 'broken.json'), JSON.stringify(broken));
  await t.rejects(
    buildApp({ now, logLevel: 'silent', scenario: 'broken', scenarios: [dir] }),
    /--scenario broken: scenario "broken": data\[0\] \(remove users nobody\): no users record "nobody"/,
  );
  const { code, out } = await startFails(['--port', '0', '--scenarios', dir, '--scenario', 'broken']);
  t.equal(code, 2, 'a bad start-up input');
  t.match(out, /data\[0\] \(remove users nobody\)/);
});

t.test('the JSON Schema of scenario files: served, committed, named by the shipped files', async (t) => {
  const { call } = await listening(t);
  const served = await call('GET', '/__admin/scenario.schema.json');
  t.equal(served.status, 200);
  t.match(served.body, { $schema: 'http://json-schema.org/draft-07/schema#', $id: 'urn:portal-mock:scenario-file' });
  t.ok(served.body.properties.data, 'the data block is in it');
  t.ok(served.body.properties.$schema, 'a file may name it');

  const committed = readFileSync(scenarioSchemaFile, 'utf8');
  t.equal(
    committed,
    await generateScenarioSchema(),
    'scenarios/scenario.schema.json is stale: run `npm run openapi` and commit it',
  );
  t.same(JSON.parse(committed), served.body, 'the file is what the route serves');

  const dir = join(scenarioSchemaFile, '..');
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json') && f !== 'scenario.schema.json')) {
    const scenario = JSON.parse(readFileSync(join(dir, file), 'utf8'));
    t.equal(scenario.$schema, './scenario.schema.json', `${file} names the schema`);
  }
});

t.test('export: the changes of sandbox A, replayed by a scenario in sandbox B, give the same records', async (t) => {
  const { call } = await listening(t);
  const A = 'export-a';
  const root = (await call('GET', `${data('departments')}?level=0&limit=1`)).body.records[0];
  const department = (name: string) => ({
    name,
    parentId: root.id,
    path: `Компания / ${name}`,
    level: 1,
    headId: null,
  });
  // made first, it names the one made after it: the export must create that one first
  const child = (await call('POST', `${data('departments')}?sandbox=${A}`, department('Child'))).body.records[0];
  const parent = (await call('POST', `${data('departments')}?sandbox=${A}`, department('Parent'))).body.records[0];
  t.equal(
    (await call('PATCH', `${data('departments')}/${child.id}?sandbox=${A}`, { parentId: parent.id, level: 2 })).status,
    200,
  );
  t.equal((await call('PATCH', `${data('users')}/${admin}?sandbox=${A}`, { statusText: 'exported' })).status, 200);
  const gone = (await call('GET', `${data('notifications')}?sandbox=${A}&userId=${admin}&limit=1`)).body.records[0];
  t.equal((await call('DELETE', `${data('notifications')}/${gone.id}?sandbox=${A}`)).status, 200);
  t.equal((await call('POST', `${data('notifications')}?sandbox=${A}&count=3`, template)).status, 201);
  // a made user brings its employment and joins groups: the export lists those, and the replay must not make them twice
  const made = await call('POST', `${data('users')}?sandbox=${A}`, { firstName: 'Exported' });
  t.equal(made.body.dependents.employments.length, 1);

  const collections = 'departments,users,notifications,employments,userGroups';
  const exported = await call('GET', `/__admin/data/changes?sandbox=${A}&collections=${collections}`);
  t.equal(exported.status, 200);
  const block = exported.body.data as Array<Record<string, any>>;
  const kinds = block.map((e) => ('create' in e ? 'create' : 'patch' in e ? 'patch' : 'remove'));
  const order = { create: 0, patch: 1, remove: 2 };
  t.same(
    kinds,
    [...kinds].sort((a, b) => order[a] - order[b]),
    'creates, then patches, then removes',
  );
  t.equal(
    kinds.filter((k) => k === 'create').length,
    7,
    'two departments, three notifications, a user, its employment',
  );
  t.ok(
    block.filter((e) => 'create' in e).every((e) => e.dependents === false),
    'each create replays alone: its dependents are in the block',
  );
  const departmentsMade = block.filter((e) => e.create === 'departments').map((e) => e.record.id);
  t.same(departmentsMade, [parent.id, child.id], 'the department named by the other is created first');
  t.same(
    block.find((e) => e.patch === 'users'),
    {
      patch: 'users',
      tenant: tenants.romashka,
      id: admin,
      set: { statusText: 'exported' },
    },
  );
  t.same(block.at(-1), { remove: 'notifications', tenant: tenants.romashka, id: gone.id });

  const scenario = { name: 'exported-a', description: 'what sandbox A arranged', data: block };
  t.equal((await call('PUT', '/__admin/scenarios/exported-a', scenario)).status, 201);
  const viewed = await call('GET', '/__admin/scenarios/exported-a');
  t.same(viewed.body.definition.data, block, 'the definition answers its data block as given');
  t.equal((await call('PUT', '/__admin/sandboxes/export-b', { scenario: 'exported-a' })).status, 201);
  // the same records; made ones in replay order (referenced first), so compared by id
  const byId = (records: unknown[]) => (records as { id: string }[]).sort((a, b) => (a.id < b.id ? -1 : 1));
  for (const collection of collections.split(','))
    t.same(byId(await all(call, collection, 'export-b')), byId(await all(call, collection, A)), `${collection}: B = A`);
  const again = await call('GET', `/__admin/data/changes?sandbox=export-b&collections=${collections}`);
  t.same(again.body.data, block, "B's changes export as A's did");

  // without a filter, everything the sandbox changed; an unknown collection or sandbox is named
  t.equal((await call('GET', '/__admin/data/changes?sandbox=default')).body.data.length, 0, 'default is as seeded');
  const unknown = await call('GET', '/__admin/data/changes?sandbox=default&collections=users,userz');
  t.equal(unknown.status, 400);
  t.match(unknown.body.message, /unknown collection "userz"/);
  t.equal((await call('GET', '/__admin/data/changes?sandbox=nowhere')).status, 404);
});

t.test('the export route does not shadow the records API', async (t) => {
  const app: FastifyInstance = await buildApp({ now, logLevel: 'silent' });
  t.teardown(() => app.close());
  const list = await app.inject({ url: `${data('departments')}?limit=1` });
  t.equal(list.statusCode, 200);
  const changes = await app.inject({ url: '/__admin/data/changes' });
  t.equal(changes.statusCode, 200);
  t.same(changes.json().data, []);
});
