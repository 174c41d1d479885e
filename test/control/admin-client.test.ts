// The typed admin client (portal-mock/admin) against a real listening mock, and the journal as HAR 1.2.
import t from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { Value } from '@sinclair/typebox/value';
import { adminClient, AdminError, maxCreateMany } from '../../src/client/control.js';
import { Har } from '../../src/schemas/control.js';
import { accounts, build, json, signIn } from '../helper.js';

t.test('QA code drives the mock through the typed client', async (t) => {
  const app = await build(t, { adminToken: 'qa-token' });
  const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' });
  const mock = adminClient({ baseUrl, adminToken: 'qa-token' });

  t.match(await mock.health(), { status: 'ok', sandbox: 'default', scenario: 'default' });
  // typed from the route's schema: a field the client type lacked (memory, sandboxLimit) would not compile here
  const health = await mock.health();
  t.ok(health.memory.rssBytes > 0 && health.sandboxLimit > 0, 'health: memory and sandbox limit');
  const noToken = await adminClient({ baseUrl })
    .health()
    .then(
      () => null,
      (e: unknown) => e,
    );
  t.ok(noToken instanceof AdminError && noToken.status === 401, 'the admin token is sent when given');

  const fixtures = await mock.fixtures();
  t.equal(fixtures.accounts.length, 6);
  t.ok((await mock.scenarios()).some((s) => s.name === 'two-factor-required'));

  // one sandbox per suite
  const suite = mock.sandbox('suite-42');
  t.match(await suite.scenario.set('two-factor-required'), { sandbox: 'suite-42', name: 'two-factor-required' });
  t.equal((await suite.scenario.get()).name, 'two-factor-required');
  t.equal((await mock.scenario.get()).name, 'default', 'the default sandbox is untouched');

  const email = accounts.admin.email;
  const headers = { 'content-type': 'application/json', 'x-mock-sandbox': 'suite-42' };
  const asked = await fetch(`${baseUrl}/mobile/request-two-factor`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ email, password: 'demo1234' }),
  });
  t.equal(asked.status, 200);
  const code = await suite.outbox.lastTwoFactorCode(email);
  t.match(code, /^\d+$/, 'QA code reads the two-factor code');
  t.equal(await mock.outbox.lastTwoFactorCode(email), null, 'not in another sandbox');
  const bind = await fetch(`${baseUrl}/mobile/manual-bind`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ email, password: 'demo1234', code, device: { id: 'qa-phone' } }),
  });
  t.equal(bind.status, 200);

  t.equal(await suite.requests.count({ operationId: 'mobileManualBind' }), 1, 'called exactly once');
  const [last] = await suite.requests.list({ limit: 1 });
  t.match(last, { operationId: 'mobileManualBind', status: 200, requestBody: { password: '[redacted]' } });
  const har = await suite.requests.har();
  t.ok(Value.Check(Har, har), 'a HAR 1.2 log');
  t.equal(har.log.entries.length, 2);
  t.match(await suite.requests.clear(), { cleared: true });
  t.equal(await suite.requests.count(), 0);

  t.match(await suite.clock.set({ freeze: '2026-05-01T10:00:00Z' }), {
    now: '2026-05-01T10:00:00.000Z',
    state: { mode: 'frozen' },
  });
  t.match(await suite.clock.set({ advanceMs: 60_000 }), { now: '2026-05-01T10:01:00.000Z' });
  t.match(await suite.clock.get(), { state: { mode: 'frozen' } });

  const exported = await suite.state.export();
  t.equal(exported.format, 'portal-mock-state');
  t.match(await mock.sandbox('suite-43').state.import(exported), { name: 'suite-43' });

  t.match(await suite.notifications.send({ email, title: 'Hello' }), { userId: accounts.admin.userId });
  t.match(await suite.bindLinks.create({ email }), { userId: accounts.admin.userId, link: /^service:\/\/bind\// });
  t.type(await suite.sessions.expire(), 'number');
  t.match(await suite.users.block({ email: accounts.noRights.email }), { userId: accounts.noRights.userId });
  t.match(await suite.reset(), { name: 'suite-42', scenario: 'default' });

  t.ok((await mock.sandboxes.list()).some((s) => s.name === 'suite-42'));
  t.match(await mock.sandboxes.get('suite-42'), { name: 'suite-42' });
  t.match(await mock.sandboxes.delete('suite-42'), { deleted: 'suite-42' });
  const gone = await mock.sandboxes.get('suite-42').then(
    () => null,
    (e: unknown) => e,
  );
  t.ok(gone instanceof AdminError && gone.status === 404);
  const noCa = await mock.caCertificate().then(
    () => null,
    (e: unknown) => e,
  );
  t.ok(noCa instanceof AdminError && noCa.status === 404, 'no CA without --https');
});

t.test("createMany past the bound names createMany's n, before anything is sent", async (t) => {
  const app = await build(t);
  const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' });
  const qa = adminClient({ baseUrl }).sandbox('many');
  await qa.sandboxCreate();
  const before = (await qa.data.notifications.list({ limit: 1 })).total;
  for (const n of [5000, 0, 2.5]) {
    const refused = await qa.data.notifications.createMany(n).then(
      () => null,
      (e: unknown) => e,
    );
    t.ok(refused instanceof RangeError, `createMany(${n}): a RangeError`);
    t.match(
      (refused as Error).message,
      /^createMany\(.+\): count \(createMany's n\) must be an integer from 1 to 1000;/,
    );
    t.notMatch((refused as Error).message, /query\.count/, 'not the query parameter the caller never wrote');
  }
  t.equal((await qa.data.notifications.list({ limit: 1 })).total, before, 'nothing was made');
  t.equal((await qa.data.notifications.createMany(maxCreateMany)).records.length, maxCreateMany, 'the bound is made');
  // the client's bound is the route's: read from the control plane's own API document
  const doc = json(await app.inject({ url: '/__admin/docs/json' })) as {
    paths: Record<string, Record<string, { parameters?: { name: string; schema: { maximum?: number } }[] }>>;
  };
  const create = Object.entries(doc.paths).find(([path]) => path.endsWith('/data/{tenantId}/notifications'));
  const count = create?.[1].post?.parameters?.find((p) => p.name === 'count');
  t.equal(count?.schema.maximum, maxCreateMany, "the records API's count bound");
});

t.test('GET /__admin/requests?format=har: HAR 1.2 with secrets redacted; the JSON answer is unchanged', async (t) => {
  const app = await build(t);
  const session = await signIn(app, accounts.admin);
  await app.inject({ url: '/api/v2/user/search?query=ivan&page=1', headers: session.headers });

  const plain = await app.inject({ url: '/__admin/requests' });
  t.equal(plain.statusCode, 200);
  const entries = json(plain);
  t.ok(Array.isArray(entries), 'without format: the journal array as before');
  t.match(entries[0], { id: Number, method: 'GET', operationId: 'userSearch' });

  const res = await app.inject({ url: '/__admin/requests?format=har' });
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-disposition'], /portal-mock-default\.har/);
  const har = json<Har>(res);
  const errors = [...Value.Errors(Har, har)].slice(0, 3).map((e) => `${e.path}: ${e.message}`);
  t.same(errors, [], 'the HAR 1.2 essentials');
  t.equal(har.log.version, '1.2');
  t.match(har.log.creator, { name: 'portal-mock' });
  t.equal(har.log.entries.length, entries.length);
  const [first] = har.log.entries;
  t.match(
    first,
    { request: { method: 'POST', url: 'http://localhost/mobile/request-two-factor' } },
    'oldest first, absolute URLs',
  );
  const search = har.log.entries.find((e) => e.request.url.includes('/user/search'));
  t.match(search, {
    request: {
      queryString: [
        { name: 'query', value: 'ivan' },
        { name: 'page', value: '1' },
      ],
      bodySize: 0,
    },
    response: { status: 200, statusText: 'OK', content: { mimeType: /json/ } },
  });
  t.equal(
    search?.request.headers.find((h) => h.name === 'x-service-session-code')?.value,
    '[redacted]',
    'secrets stay redacted',
  );
  const bind = har.log.entries.find((e) => e.request.url.endsWith('/mobile/manual-bind'));
  t.match(JSON.parse(bind?.request.postData?.text ?? '{}'), { password: '[redacted]' });
  t.notMatch(res.body, session.sessionSecret, 'the session secret appears nowhere');
  t.match(
    json(await app.inject({ url: '/__admin/requests?format=har&operationId=userSearch' })).log.entries,
    [{ request: { method: 'GET' } }],
    'filters apply',
  );
  t.equal((await app.inject({ url: '/__admin/requests?format=xml' })).statusCode, 400);
});

t.test('the package exports the client as portal-mock/admin, with declarations', async (t) => {
  const spec = 'portal-mock/admin'; // resolved through package.json "exports" (self-reference), i.e. dist/
  const mod = (await import(spec)) as { adminClient?: unknown; AdminError?: unknown };
  t.type(mod.adminClient, 'function');
  t.type(mod.AdminError, 'function');
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    exports: Record<string, { types: string; default: string }>;
  };
  for (const entry of Object.values(pkg.exports).filter((e) => typeof e === 'object')) {
    t.ok(existsSync(new URL(`../../${entry.types}`, import.meta.url)), `${entry.types} is built`);
    t.ok(existsSync(new URL(`../../${entry.default}`, import.meta.url)), `${entry.default} is built`);
  }
});
