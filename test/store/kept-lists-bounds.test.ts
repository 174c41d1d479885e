// The lists the mock keeps per sandbox or per app and that a client grows: each one is pushed past its bound here
// (docs/reliability.md, "Bounds: every resource a client can grow"). Compare reports were kept by sandbox name, so a
// deleted sandbox's reports stayed in memory for good and a new sandbox of the same name read them; they now go
// with their sandbox.
import Fastify, { type FastifyInstance } from 'fastify';
import t, { type Test } from 'tap';
import { rememberedHostCount } from '../../src/http/context.js';
import { FindingLog } from '../../src/store/findings.js';
import { outboxMaxBytes } from '../../src/store/outbox.js';
import { accounts, build, json, signIn } from '../helper.js';

/** The admin signed in on `deviceId` (in `sandbox`) with a push token saved: the notifications push to it. */
async function withPushToken(t: Test, app: FastifyInstance, deviceId: string, sandbox?: string) {
  const s = await signIn(app, accounts.admin, { deviceId, ...(sandbox ? { sandbox } : {}) });
  const token = await app.inject({
    method: 'POST',
    url: '/mobile/save-push-token',
    headers: s.headers,
    payload: { token: `fcm-${deviceId}`, deviceId },
  });
  t.equal(token.statusCode, 200, token.body);
}

t.test('the outbox keeps the last 500 messages of a sandbox, oldest dropped first', async (t) => {
  const app = await build(t);
  await withPushToken(t, app, 'phone-a');
  const sentBefore = json(await app.inject({ url: '/__admin/outbox' })).length;
  for (let i = 0; i < 520; i++) {
    const res = await app.inject({
      method: 'POST',
      url: '/__admin/notifications',
      payload: { email: accounts.admin.email, title: `message ${i}` },
    });
    if (res.statusCode !== 200) t.fail(`notification ${i}: ${res.statusCode} ${res.body}`);
  }
  const outbox: Array<{ id: number; kind: string; payload?: { notification?: { title: string } } }> = json(
    await app.inject({ url: '/__admin/outbox' }),
  );
  t.equal(outbox.length, 500, `${sentBefore} + 520 sent, 500 kept`);
  t.equal(outbox[0]!.payload?.notification?.title, 'message 519', 'newest first');
  t.equal(
    outbox.at(-1)!.payload?.notification?.title,
    'message 20',
    'the 20 oldest pushes (and the earlier mail) went',
  );
  t.equal(outbox[0]!.id - outbox.at(-1)!.id, 499, 'numbers go on');
});

t.test('--outbox-sandbox-kb: a sandbox past its outbox bytes keeps its newest pushes within them', async (t) => {
  const app = await build(t, { outboxSandboxKb: 16 });
  await withPushToken(t, app, 'phone-a');
  const body = 'ж'.repeat(3000); // about 6.4 KB of UTF-8 a push: two fit in 16 KiB, three do not
  for (let i = 0; i < 10; i++) {
    const res = await app.inject({
      method: 'POST',
      url: '/__admin/notifications',
      payload: { email: accounts.admin.email, title: `message ${i}`, body },
    });
    t.equal(res.statusCode, 200, res.body, { diagnostic: false });
    t.equal(json(res).pushes, 1, 'the answer counts the push even when an older one went', { diagnostic: false });
  }
  const outbox = app.sandboxes.find('default')!.outbox;
  t.equal(outbox.maxBytes, 16 * 1024, 'the flag reaches the sandbox');
  t.ok(outbox.heldBytes <= 16 * 1024, `${outbox.heldBytes} bytes held`);
  const kept: Array<{ payload?: { notification?: { title: string } } }> = json(
    await app.inject({ url: '/__admin/outbox' }),
  );
  t.same(
    kept.map((m) => m.payload?.notification?.title),
    ['message 9', 'message 8'],
    'the newest two that fit, newest first; the mail and older pushes dropped',
  );
  // a sandbox made on first use gets the same bound
  const other = await app.inject({ method: 'PUT', url: '/__admin/sandboxes/other' });
  t.ok(other.statusCode < 300, other.body);
  t.equal(app.sandboxes.find('other')!.outbox.maxBytes, 16 * 1024);
});

t.test('--outbox-sandbox-kb defaults to the outbox bound of 4 MiB', async (t) => {
  const app = await build(t);
  t.equal(app.sandboxes.find('default')!.outbox.maxBytes, outboxMaxBytes);
});

t.test(
  '--outbox-mb: the outboxes of every sandbox share one budget; the one written longest ago gives first',
  async (t) => {
    const app = await build(t, { outboxMb: 1 });
    const body = 'ж'.repeat(4000); // about 8 KB of UTF-8 a push: 50 a sandbox, three sandboxes pass 1 MiB
    const pushes = 50;
    for (const sandbox of ['a', 'b', 'c']) await withPushToken(t, app, `phone-${sandbox}`, sandbox);
    for (const sandbox of ['a', 'b', 'c'])
      for (let i = 0; i < pushes; i++) {
        const res = await app.inject({
          method: 'POST',
          url: '/__admin/notifications',
          headers: { 'x-mock-sandbox': sandbox },
          payload: { email: accounts.admin.email, title: `${sandbox} ${i}`, body },
        });
        t.equal(res.statusCode, 200, res.body, { diagnostic: false });
      }
    const outboxOf = (name: string) => app.sandboxes.find(name)!.outbox;
    const held = () => ['default', 'a', 'b', 'c'].reduce((n, name) => n + outboxOf(name).heldBytes, 0);
    const titles = (name: string) =>
      outboxOf(name)
        .list()
        .flatMap((m) =>
          m.kind === 'push' ? [(m.payload as { notification: { title: string } }).notification.title] : [],
        );
    const newest = (name: string, n: number) => Array.from({ length: n }, (_, i) => `${name} ${pushes - n + i}`);
    const budget = app.sandboxes.outboxBudget;
    t.equal(budget.maxBytes, 1024 * 1024, 'the flag reaches the budget');
    t.equal(budget.usedBytes, held(), 'the budget counts what the outboxes hold');
    t.ok(budget.usedBytes <= 1024 * 1024, `${budget.usedBytes} bytes held by all`);
    t.ok(budget.usedBytes > 1024 * 1024 - 16 * 1024, 'and it is full');
    const keptOfA = titles('a').length;
    t.ok(keptOfA < pushes, `a, written longest ago, gave up its oldest (${keptOfA} kept)`);
    t.same(titles('a'), newest('a', keptOfA), 'what a kept is its newest');
    t.same(titles('c'), newest('c', pushes), 'c, written last, kept every push');
    t.same(titles('b'), newest('b', pushes), 'b too: a had enough to give');
    const health = json(await app.inject({ url: '/__admin/health' }));
    t.same(health.outboxes, { bytes: budget.usedBytes, sandboxes: budget.listCount, budgetBytes: 1024 * 1024 });
    t.equal(budget.listCount, 3);
    // a deleted sandbox gives its bytes back; so does a reset
    const cHeld = outboxOf('c').heldBytes;
    const before = budget.usedBytes;
    t.equal((await app.inject({ method: 'DELETE', url: '/__admin/sandboxes/c' })).statusCode, 200);
    t.equal(budget.usedBytes, before - cHeld, 'deleting c gave back what its outbox held');
    t.equal((await app.inject({ method: 'POST', url: '/__admin/reset?sandbox=b' })).statusCode, 200);
    t.equal(outboxOf('b').heldBytes, 0);
    t.equal(budget.usedBytes, outboxOf('a').heldBytes, 'only a holds messages now');
    t.equal(budget.listCount, 1);
  },
);

t.test('the findings detectors remember the last 1000 keys; the findings themselves the last `limit`', (t) => {
  const log = new FindingLog(100);
  for (let i = 0; i < 1500; i++) log.set(`key:${i}`, { n: i });
  t.equal([...log.entries('key:')].length, 1000);
  t.equal(log.get('key:499'), undefined, 'the oldest keys went');
  t.same(log.get('key:500'), { n: 500 });
  log.set('key:500', { n: -1 }); // a key set again is the newest: the next one past the bound drops key:501
  log.set('key:1500', { n: 1500 });
  t.same(log.get('key:500'), { n: -1 });
  t.equal(log.get('key:501'), undefined);

  const finding = {
    code: 'poll-too-often',
    severity: 'warning',
    at: '2026-03-02T09:00:00.000Z',
  } as unknown as Parameters<FindingLog['add']>[0];
  for (let i = 0; i < 130; i++) log.add(finding);
  t.equal(log.list().length, 100);
  t.equal(log.list()[0]!.id, 130, 'newest first, numbered on');
  t.end();
});

t.test('Host values: at most 64 remembered, and every answer still built from its own Host', async (t) => {
  const app = await build(t);
  const s = await signIn(app);
  let highest = 0;
  for (let i = 0; i < 150; i++) {
    const host = `phone-${i}.test:8080`;
    const res = await app.inject({ url: '/mobile/tenant-info', headers: { ...s.headers, host } });
    if (json(res).base_url !== `http://${host}`) t.fail(`${host}: ${res.statusCode} ${json(res).base_url}`);
    highest = Math.max(highest, rememberedHostCount());
  }
  t.ok(highest <= 64, `at most 64 remembered (saw ${highest})`);
  t.ok(highest > 1, 'they are remembered');
});

t.test('compare reports: the last 200 of a sandbox, gone with the sandbox', async (t) => {
  const up = Fastify();
  up.get('/*', async () => ({ id: 'upstream', settings: {} }));
  t.teardown(() => up.close());
  const upstream = await up.listen({ port: 0, host: '127.0.0.1' });
  const app = await build(t, { proxy: upstream });
  const define = await app.inject({
    method: 'PUT',
    url: '/__admin/scenarios/cmp',
    payload: { name: 'cmp', description: 'compare tenant-info', compare: ['mobileTenantInfo'] },
  });
  t.equal(define.statusCode, 201, define.body);
  t.equal((await app.inject({ method: 'PUT', url: '/__admin/sandboxes/cmp' })).statusCode, 201);
  const s = await signIn(app, accounts.admin, { sandbox: 'cmp' });
  const headers = { ...s.headers, 'x-mock-scenario': 'cmp' };
  for (let i = 0; i < 210; i++) await app.inject({ url: '/mobile/tenant-info', headers });
  const report = json(await app.inject({ url: '/__admin/compare?sandbox=cmp' }));
  t.equal(report.comparisons.length, 200, '210 compared, 200 kept');

  t.equal((await app.inject({ method: 'DELETE', url: '/__admin/sandboxes/cmp' })).statusCode, 200);
  t.equal((await app.inject({ method: 'PUT', url: '/__admin/sandboxes/cmp' })).statusCode, 201);
  t.same(
    json(await app.inject({ url: '/__admin/compare?sandbox=cmp' })).comparisons,
    [],
    "a new sandbox of the same name starts without the deleted one's reports",
  );
});
