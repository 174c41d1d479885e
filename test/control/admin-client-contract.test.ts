// The typed client (portal-mock/admin) against the control plane's own document (/__admin/openapi.json): every
// method of the client is called here against a real server, and every request it sends names an operation of that
// document, with a method the document declares. A new client method without an entry in the table fails.
import t from 'tap';
import { adminClient, type AdminClient } from '../../src/client/control.js';
import { build } from '../helper.js';

type Call = (c: AdminClient) => Promise<unknown>;

/** One call of each method, by its place in the client (`requests.count`); `data` stands for any collection. */
const calls: Record<string, Call> = {
  sandbox: async (c) => c.sandbox('contract').fixtures(),
  sandboxCreate: (c) => c.sandboxCreate(),
  health: (c) => c.health(),
  fixtures: (c) => c.fixtures(),
  scenarios: (c) => c.scenarios(),
  'scenario.get': (c) => c.scenario.get(),
  'scenario.set': (c) => c.scenario.set('default'),
  'scenario.setInline': (c) => c.scenario.setInline({ name: 'contract-inline', description: 'inline' }),
  'scenarioDefinitions.get': (c) => c.scenarioDefinitions.get('default'),
  'scenarioDefinitions.put': (c) => c.scenarioDefinitions.put({ name: 'contract-defined', description: 'defined' }),
  'scenarioDefinitions.delete': (c) => c.scenarioDefinitions.delete('contract-defined'),
  reset: (c) => c.reset(),
  'state.export': (c) => c.state.export(),
  'state.import': async (c) => c.state.import(await c.state.export()),
  'requests.list': (c) => c.requests.list({ limit: 5 }),
  'requests.count': (c) => c.requests.count({}),
  'requests.assert': (c) => c.requests.assert({ atLeast: 0 }),
  'requests.clear': (c) => c.requests.clear(),
  'requests.har': (c) => c.requests.har(),
  'outbox.list': (c) => c.outbox.list(),
  'outbox.lastTwoFactorCode': (c) => c.outbox.lastTwoFactorCode('olga.smirnova@romashka.test'),
  'clock.get': (c) => c.clock.get(),
  'clock.set': (c) => c.clock.set({ freeze: '2026-03-02T09:00:00.000Z' }),
  'sandboxes.list': (c) => c.sandboxes.list(),
  'sandboxes.listAll': (c) => c.sandboxes.listAll(),
  'sandboxes.get': (c) => c.sandboxes.get('contract'),
  'sandboxes.create': (c) => c.sandboxes.create('contract-made'),
  'sandboxes.delete': (c) => c.sandboxes.delete('contract-made'),
  'sandboxes.deleteAll': (c) => c.sandboxes.deleteAll({ prefix: 'contract-none-' }),
  'sandboxes.resetAll': (c) => c.sandboxes.resetAll({ prefix: 'contract-none-' }),
  'sessions.expire': (c) => c.sessions.expire(),
  'notifications.send': (c) => c.notifications.send({ email: 'ivan.petrov@romashka.test', title: 'hello' }),
  'users.block': (c) => c.users.block({ email: 'petr.ivanov@romashka.test' }),
  'bindLinks.create': (c) => c.bindLinks.create({ email: 'ivan.petrov@romashka.test' }),
  'findings.list': (c) => c.findings.list(),
  'findings.clear': (c) => c.findings.clear(),
  'findings.assertNone': (c) => c.findings.assertNone(),
  data: async (c) => {
    const { records } = await c.data.notifications.create({ title: 'contract' });
    const id = records[0]!.id;
    await c.data.notifications.list({ limit: 1 });
    await c.data.notifications.get(id);
    await c.data.notifications.patch(id, { title: 'patched' });
    await c.data.notifications.createMany(2);
    return c.data.notifications.remove(id);
  },
  records: async (c) => c.records('7d3f9a2e-5b1c-4e8a-9f60-2c4b8d1e0a01', 'users').list({ limit: 1 }),
  caCertificate: (c) => c.caCertificate(),
  capture: (c) => c.capture(),
};

/** The client's methods by place: functions, and the functions of its plain objects; `data` is one entry. */
function methodsOf(client: AdminClient): string[] {
  const names: string[] = [];
  for (const [key, value] of Object.entries(client)) {
    if (key === 'options') continue;
    if (typeof value === 'function' || key === 'data') names.push(key);
    else if (typeof value === 'object' && value !== null)
      for (const [inner, fn] of Object.entries(value)) if (typeof fn === 'function') names.push(`${key}.${inner}`);
  }
  return names;
}

t.test('every request of the typed client is an operation of /__admin/openapi.json', async (t) => {
  const app = await build(t, { caCertificate: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n' });
  const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' });
  const doc = (await app.inject({ url: '/__admin/openapi.json' })).json() as {
    paths: Record<string, Record<string, unknown>>;
  };
  const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.keys(item).map((method) => ({
      method: method.toUpperCase(),
      path: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
    })),
  );
  const sent: string[] = [];
  const recording: typeof fetch = (input, init) => {
    sent.push(`${init?.method ?? 'GET'} ${new URL(String(input)).pathname}`);
    return fetch(input, init);
  };
  const client = adminClient({ baseUrl, sandbox: 'contract', fetch: recording });
  await client.sandboxCreate();

  t.same(
    methodsOf(client).filter((name) => !(name in calls)),
    [],
    'every method of the client has a call in this test',
  );
  for (const [name, call] of Object.entries(calls)) {
    const before = sent.length;
    await call(client).catch((err: Error) => t.fail(`${name}: ${err.message}`));
    t.ok(sent.length > before, `${name} sends a request`);
    for (const request of sent.slice(before)) {
      const [method, path] = request.split(' ') as [string, string];
      t.ok(
        operations.some((op) => op.method === method && op.path.test(path)),
        `${name}: ${request} is an operation of the control plane's document`,
      );
    }
  }
});
