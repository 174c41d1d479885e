// Admin reads never make a sandbox (a misspelt name is a 404 naming it, not an empty sandbox), PUT /__admin/sandboxes/NAME
// makes one explicitly, DELETE /__admin/sandboxes deletes many; all through real HTTP (docs/sandboxes.md).
import t from 'tap';
import { adminClient, AdminError } from '../../src/client/control.js';
import { build } from '../helper.js';
import type { AppOptions } from '../../src/app.js';

type Teardown = { teardown(fn: () => unknown): void };

async function listening(t: Teardown, options: AppOptions = {}) {
  const app = await build(t, options);
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const call = async (
    method: string,
    path: string,
    init: { headers?: Record<string, string>; body?: unknown } = {},
  ) => {
    const res = await fetch(base + path, {
      method,
      headers: { ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
    const text = await res.text();
    return {
      status: res.status,
      body: text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text,
    };
  };
  const names = async () => ((await call('GET', '/__admin/sandboxes')).body as { name: string }[]).map((s) => s.name);
  return { app, base, call, names };
}

/** Every admin GET that is about the sandbox of its key. */
const reads = [
  '/__admin/requests',
  '/__admin/requests?format=har',
  '/__admin/requests/count',
  '/__admin/findings',
  '/__admin/outbox',
  '/__admin/clock',
  '/__admin/scenario',
  '/__admin/state',
  '/__admin/fixtures',
  '/__admin/proxy',
  '/__admin/compare',
  '/__admin/health',
  '/__admin/bind-links/bind-x/qr.svg',
];

const notFound = (name: string) => ({
  statusCode: 404,
  error: 'Not Found',
  code: 'SANDBOX_NOT_FOUND',
  message: new RegExp(`^sandbox "${name}" does not exist .*PUT /__admin/sandboxes/${name}`),
});

t.test('an admin read of a sandbox that does not exist: 404 naming it, and nothing is made', async (t) => {
  const { app, call, names } = await listening(t);
  for (const path of reads) {
    const res = await call('GET', path, { headers: { 'x-mock-sandbox': 'ghost2' } });
    t.match(res, { status: 404, body: notFound('ghost2') }, `GET ${path} with x-mock-sandbox`);
    const sep = path.includes('?') ? '&' : '?';
    const byQuery = await call('GET', `${path}${sep}sandbox=ghost3`);
    t.match(byQuery, { status: 404, body: notFound('ghost3') }, `GET ${path}?sandbox=`);
  }
  for (const path of ['/__admin/requests', '/__admin/clock', '/__admin/state']) {
    const res = await call('GET', `/sandbox/ghost4${path}`);
    t.match(res, { status: 404, body: notFound('ghost4') }, `GET /sandbox/ghost4${path}`);
  }
  t.match(await call('GET', '/__admin/sandboxes/ghost2'), { status: 404, body: notFound('ghost2') }, 'GET one');
  t.match(await call('DELETE', '/__admin/sandboxes/ghost2'), { status: 404, body: notFound('ghost2') }, 'DELETE one');
  t.same(await names(), ['default'], 'no sandbox was made');
  t.equal(app.sandboxes.size, 1);
  t.match(
    await call('GET', '/__admin/requests', { headers: { 'x-mock-sandbox': 'bad name!' } }),
    { status: 400, body: { code: 'BAD_REQUEST' } },
    'an invalid name is still a 400',
  );

  // the same reads of a sandbox that exists answer as before
  await call('GET', '/mobile/oauth-list', { headers: { 'x-mock-sandbox': 'real-1' } });
  for (const path of reads.filter((p) => !p.includes('qr.svg'))) {
    const res = await call('GET', path, { headers: { 'x-mock-sandbox': 'real-1' } });
    t.equal(res.status, 200, `GET ${path} of an existing sandbox`);
  }
  t.same((await call('GET', '/__admin/requests/count?sandbox=real-1')).body, { count: 1 });
});

t.test('PUT /__admin/sandboxes/NAME makes a sandbox: 201, then 200; with a scenario; errors', async (t) => {
  const { app, call, names } = await listening(t);
  const made = await call('PUT', '/__admin/sandboxes/qa-1');
  t.match(made, { status: 201, body: { name: 'qa-1', scenario: 'default', journalEntries: 0 } }, 'made: 201');
  t.equal(typeof made.body.instance, 'string');
  t.match(await call('PUT', '/__admin/sandboxes/qa-1', { body: {} }), { status: 200, body: { name: 'qa-1' } }, '200');
  t.same((await call('GET', '/__admin/requests?sandbox=qa-1')).body, [], 'its journal reads empty: it exists');

  const withScenario = await call('PUT', '/__admin/sandboxes/qa-2', { body: { scenario: 'new-employee' } });
  t.match(withScenario, { status: 201, body: { name: 'qa-2', scenario: 'new-employee' } }, 'made with a scenario');
  t.match((await call('GET', '/__admin/scenario?sandbox=qa-2')).body, { name: 'new-employee' });
  t.equal(
    (await call('PUT', '/__admin/sandboxes/qa-2', { body: { scenario: 'new-employee' } })).status,
    200,
    'the same scenario again: 200',
  );
  t.match(
    await call('PUT', '/__admin/sandboxes/qa-2', { body: { scenario: 'flaky' } }),
    { status: 409, body: { code: 'CONFLICT', message: /"new-employee".*PUT \/__admin\/scenario/ } },
    'another scenario than its own: 409, nothing changes',
  );
  t.match((await call('GET', '/__admin/scenario?sandbox=qa-2')).body, { name: 'new-employee' });
  t.match(
    await call('PUT', '/__admin/sandboxes/qa-3', { body: { scenario: 'no-such' } }),
    { status: 422, body: { code: 'UNPROCESSABLE', message: /unknown scenario "no-such"/ } },
    'an unknown scenario: 422',
  );
  t.match(await call('PUT', '/__admin/sandboxes/bad%20name'), { status: 400, body: { code: 'BAD_REQUEST' } });
  t.match(
    await call('PUT', '/__admin/sandboxes/qa-4', { headers: { 'x-mock-sandbox': 'qa-5' } }),
    { status: 400, body: { message: /"qa-4".*"qa-5"/ } },
    'the path and the key name different sandboxes: 400',
  );
  t.equal((await call('PUT', '/__admin/sandboxes/default')).status, 200, 'default exists');
  t.same((await names()).sort(), ['default', 'qa-1', 'qa-2'], 'only what was made');
  t.ok(app.sandboxes.find('qa-1'));
});

t.test('PUT /__admin/sandboxes/NAME past --max-sandboxes: 429', async (t) => {
  const { call } = await listening(t, { maxSandboxes: 2 });
  t.equal((await call('PUT', '/__admin/sandboxes/one')).status, 201);
  t.match(await call('PUT', '/__admin/sandboxes/two'), { status: 429, body: { code: 'TOO_MANY_REQUESTS' } });
});

t.test('DELETE /__admin/sandboxes: all but default, or those with a prefix; answers what it deleted', async (t) => {
  const { call, names } = await listening(t);
  for (const n of ['ci-1', 'ci-2', 'tester', 'ci3'])
    t.equal((await call('PUT', `/__admin/sandboxes/${n}`)).status, 201);
  const some = await call('DELETE', '/__admin/sandboxes?prefix=ci-');
  t.match(some, { status: 200, body: { deleted: ['ci-1', 'ci-2'] } }, 'the prefix');
  t.equal(typeof some.body.instance, 'string');
  t.same((await names()).sort(), ['ci3', 'default', 'tester']);
  t.match(await call('DELETE', '/__admin/sandboxes?prefix=none-'), { status: 200, body: { deleted: [] } });
  t.match(await call('DELETE', '/__admin/sandboxes'), { status: 200, body: { deleted: ['ci3', 'tester'] } }, 'all');
  t.same(await names(), ['default'], 'default stays');
  t.match(await call('DELETE', '/__admin/sandboxes?prefix=default'), { status: 200, body: { deleted: [] } });
});

t.test('POST /__admin/sandboxes/reset: every sandbox (or a prefix) back to its seeded state', async (t) => {
  const { call } = await listening(t);
  const scenarioOf = async (name: string) => (await call('GET', `/__admin/scenario?sandbox=${name}`)).body.name;
  for (const n of ['ci-1', 'ci-2', 'tester']) {
    const res = await call('PUT', `/__admin/scenario?sandbox=${n}`, { body: { name: 'flaky' } });
    t.equal(res.status, 200, `${n} set to flaky`);
  }
  const some = await call('POST', '/__admin/sandboxes/reset?prefix=ci-');
  t.match(some, { status: 200, body: { reset: ['ci-1', 'ci-2'] } }, 'the prefix');
  t.same(
    [await scenarioOf('ci-1'), await scenarioOf('ci-2'), await scenarioOf('tester')],
    ['default', 'default', 'flaky'],
  );
  const all = await call('POST', '/__admin/sandboxes/reset');
  t.same(all.body.reset, ['ci-1', 'ci-2', 'default', 'tester'], 'all, default included');
  t.equal(await scenarioOf('tester'), 'default');
  t.equal((await call('GET', '/__admin/sandboxes')).body.length, 4, 'none deleted');
});

t.test('admin writes still make the sandbox they name (docs/sandboxes.md)', async (t) => {
  const { call, names } = await listening(t);
  const writes: Array<[string, string, unknown]> = [
    ['PUT', '/__admin/scenario?sandbox=w-1', { name: 'flaky' }],
    ['PUT', '/__admin/clock?sandbox=w-2', { freeze: '2026-01-01T00:00:00Z' }],
    ['POST', '/__admin/reset?sandbox=w-3', {}],
    ['DELETE', '/__admin/requests?sandbox=w-4', undefined],
  ];
  for (const [method, path, body] of writes) {
    const res = await call(method, path, body === undefined ? {} : { body });
    t.equal(res.status, 200, `${method} ${path}`);
  }
  t.same((await names()).sort(), ['default', 'w-1', 'w-2', 'w-3', 'w-4']);
});

t.test('the typed client never makes its sandbox on a read; writes and create make it', async (t) => {
  const { base, names } = await listening(t);
  const admin = adminClient({ baseUrl: base });
  const err = await admin
    .sandbox('typo-1')
    .clock.get()
    .catch((e: unknown) => e);
  t.ok(err instanceof AdminError, 'a read of a missing sandbox throws');
  t.match(err, { status: 404, body: { code: 'SANDBOX_NOT_FOUND', message: /"typo-1"/ } });
  t.notOk((await names()).includes('typo-1'), 'and nothing is made');
  await admin.sandbox('pipeline-9').clock.set({ freeze: '2026-01-01T00:00:00Z' });
  t.same(await admin.sandbox('pipeline-9').requests.list(), [], 'a write made it: reads answer');
  await admin.sandbox('pipeline-10').sandboxCreate();
  t.equal(await admin.sandbox('pipeline-10').requests.count(), 0);
  t.match(await admin.sandboxes.create('made-1', { scenario: 'flaky' }), { name: 'made-1', scenario: 'flaky' });
  t.match(await admin.sandboxes.create('made-1'), { name: 'made-1' }, 'create is idempotent');
  t.same(await admin.sandboxes.deleteAll({ prefix: 'pipeline-' }), {
    instance: (await admin.health()).instance,
    deleted: ['pipeline-10', 'pipeline-9'],
  });
});

t.test(
  'with --peers, a read of a sandbox here not held is a 503 while a peer cannot be asked, never a 404',
  async (t) => {
    const { call, names } = await listening(t, { instanceName: 'alone', peers: ['dns:no-such-peer.invalid:8080'] });
    for (const path of ['/__admin/requests', '/__admin/clock', '/__admin/state', '/__admin/findings']) {
      const res = await call('GET', `${path}?sandbox=elsewhere`);
      t.match(
        res,
        { status: 503, body: { code: 'INSTANCE_DOWN', message: /dns:no-such-peer\.invalid:8080: does not resolve/ } },
        `GET ${path}`,
      );
    }
    t.match(await call('PUT', '/__admin/sandboxes/elsewhere'), { status: 503, body: { code: 'INSTANCE_DOWN' } });
    t.same(await names(), ['default'], 'nothing was made');
  },
);
