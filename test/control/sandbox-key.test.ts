// The sandbox key is one rule (x-mock-sandbox, else /sandbox/NAME/, else ?sandbox= of /__admin, else default), the
// same one deploy/haproxy.cfg routes by; every answer names its instance; --peers gives one listing.
import t from 'tap';
import { createServer } from 'node:net';
import { build, json } from '../helper.js';

const names = async (app: Awaited<ReturnType<typeof build>>) =>
  json(await app.inject({ url: '/__admin/sandboxes' }))
    .map((s: { name: string }) => s.name)
    .sort();

t.test('header, else path prefix, else admin query, else default', async (t) => {
  const app = await build(t, { instanceName: 'unit-1' });
  await app.inject({ url: '/sandbox/by-prefix/mobile/tenant-info', headers: { 'x-mock-sandbox': 'by-header' } });
  t.same(await names(app), ['by-header', 'default'], 'the header wins over the path prefix');
  const scenario = (url: string, headers: Record<string, string> = {}) =>
    app.inject({ url, headers }).then((r) => json(r).sandbox);
  // admin reads never make a sandbox: the 404 names the sandbox the key picked
  const missing = (url: string, headers: Record<string, string> = {}) =>
    app.inject({ url, headers }).then((r) => `${r.statusCode} ${json(r).code} ${json(r).message}`);
  t.match(
    await missing('/__admin/scenario?sandbox=q', { 'x-mock-sandbox': 'h' }),
    /^404 SANDBOX_NOT_FOUND sandbox "h"/,
  );
  t.match(await missing('/sandbox/p/__admin/scenario?sandbox=q'), /^404 SANDBOX_NOT_FOUND sandbox "p"/);
  t.match(await missing('/__admin/scenario?sandbox=q'), /^404 SANDBOX_NOT_FOUND sandbox "q"/);
  for (const n of ['h', 'p', 'q']) await app.inject({ method: 'PUT', url: `/__admin/sandboxes/${n}?sandbox=${n}` });
  t.equal(
    await scenario('/__admin/scenario?sandbox=q', { 'x-mock-sandbox': 'h' }),
    'h',
    'the header wins over the admin query',
  );
  t.equal(await scenario('/sandbox/p/__admin/scenario?sandbox=q'), 'p', 'the prefix wins over the admin query');
  t.equal(await scenario('/__admin/scenario?sandbox=q'), 'q');
  t.equal(await scenario('/__admin/scenario'), 'default');
  const put = json(
    await app.inject({ method: 'PUT', url: '/__admin/scenario', payload: { name: 'default', sandbox: 'in-body' } }),
  );
  t.equal(put.sandbox, 'in-body', 'a body field still names it when no query parameter does');
  t.equal(
    (await app.inject({ url: '/__admin/health?sandbox=nowhere' })).statusCode,
    404,
    'health names no new sandbox into being',
  );
  t.equal((await app.inject({ url: '/__admin/health', headers: { 'x-mock-sandbox': 'nowhere' } })).statusCode, 404);
  t.notOk((await names(app)).includes('nowhere'));
});

t.test('every answer names the instance; health and sandbox records too', async (t) => {
  const app = await build(t, { instanceName: 'unit-1' });
  for (const url of ['/mobile/tenant-info', '/no/such/route', '/__admin/health']) {
    t.equal((await app.inject({ url })).headers['x-mock-instance'], 'unit-1', url);
  }
  t.equal(json(await app.inject({ url: '/__admin/health' })).instance, 'unit-1');
  t.same(
    json(await app.inject({ url: '/__admin/sandboxes' })).map((s: { instance: string }) => s.instance),
    ['unit-1'],
  );
});

t.test('--peers: URL and dns:NAME:PORT forms, a peer that does not answer is named, not waited for', async (t) => {
  const other = await build(t, { instanceName: 'other' });
  await other.inject({ url: '/mobile/tenant-info', headers: { 'x-mock-sandbox': 'lives-there' } });
  const address = await other.listen({ port: 0, host: '127.0.0.1' });
  const otherPort = new URL(address).port;
  const closed = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
  const app = await build(t, {
    instanceName: 'here',
    peers: [`dns:localhost:${otherPort},http://127.0.0.1:${closed}`],
  });
  const res = await app.inject({ url: '/__admin/sandboxes' });
  t.same(
    json(res)
      .map((s: { name: string; instance: string }) => `${s.name}@${s.instance}`)
      .sort(),
    ['default@here', 'default@other', 'lives-there@other'],
  );
  t.match(res.headers['x-mock-unreachable-peers'], `http://127.0.0.1:${closed}: ECONNREFUSED`);
  t.same(
    json(await app.inject({ url: '/__admin/sandboxes?scope=local' })).map((s: { name: string }) => s.name),
    ['default'],
  );
  const one = await app.inject({ url: '/__admin/sandboxes/lives-there' });
  t.same(
    [one.statusCode, json(one).instance, one.headers['x-mock-instance']],
    [200, 'other', 'other'],
    'one sandbox is asked of the peer that holds it',
  );
  const nowhere = await app.inject({ url: '/__admin/sandboxes/nowhere' });
  t.match(
    [nowhere.statusCode, json(nowhere).code, json(nowhere).message],
    [503, 'INSTANCE_DOWN', `http://127.0.0.1:${closed}: ECONNREFUSED`],
    'a name no peer that answered holds, while one peer cannot be asked: 503 naming that peer, not 404',
  );
});
