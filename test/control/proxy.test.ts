import t from 'tap';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { build, expectError, json, signIn, tenants } from '../helper.js';
import { parseOptions } from '../../src/config.js';
import { shapeDiff } from '../../src/proxy/compare.js';
import { logCapture } from '../support/wait.js';

type Seen = { method: string; url: string; headers: Record<string, string | string[] | undefined>; body: string };

/** A stand-in for the real portal on 127.0.0.1:0; everything under /api/v2. */
async function upstream(t: { teardown(fn: () => unknown): void }) {
  const seen: Seen[] = [];
  // /slow answers only when released (or after a minute): an answer of the mock while it is held did not wait for it
  const slow = { answered: false, release: () => {} };
  const released = new Promise<void>((resolve) => {
    slow.release = resolve;
  });
  const up = Fastify();
  up.removeAllContentTypeParsers();
  up.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  up.addHook('onRequest', async (req) => {
    seen.push({ method: req.method, url: req.url, headers: req.headers, body: '' });
  });
  up.addHook('preHandler', async (req) => {
    const last = seen.at(-1);
    if (last && Buffer.isBuffer(req.body)) last.body = req.body.toString('utf8');
  });
  up.get('/api/v2/goals/list', async (_req, reply) =>
    reply
      .header('x-upstream', 'yes')
      .header('set-cookie', ['sid=upstream-cookie; HttpOnly', 'b=2'])
      .send({
        items: [
          {
            id: 1,
            title: 'Q1 goal',
            ownerEmail: 'real.person@corp.example',
            phone: '+7 915 123-45-67',
            accessToken: 'tok-abc',
            progress: 0.5,
          },
        ],
        total: 1,
      }),
  );
  up.post('/api/v2/goals/like', async (req, reply) =>
    reply
      .code(201)
      .header('content-type', 'application/json')
      .send({ liked: true, echo: Buffer.isBuffer(req.body) ? req.body.toString('utf8') : null }),
  );
  up.post('/api/v2/auth/confirm', async () => ({ user: 'u1', otp: '482913', pin: 7731, otpSentTo: 'sms' }));
  up.get('/api/v2/slow', async () => {
    await Promise.race([released, new Promise((resolve) => setTimeout(resolve, 60_000).unref())]);
    slow.answered = true;
    return { late: true };
  });
  up.get('/api/v2/shop/image', async (_req, reply) =>
    reply.type('image/png').send(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 255])),
  );
  up.get('/api/v2/mobile/tenant-info', async () => ({
    id: 'upstream-tenant',
    name: 'Real portal',
    settings: { colour: 'blue' },
  }));
  const address = await up.listen({ port: 0, host: '127.0.0.1' });
  t.teardown(() => {
    slow.release();
    return up.close();
  });
  return { up, seen, slow, base: `${address}/api/v2`, address };
}

const dirWith = (files: Record<string, unknown>) => {
  const dir = mkdtempSync(join(tmpdir(), 'pm-proxy-'));
  for (const [name, body] of Object.entries(files)) writeFileSync(join(dir, name), JSON.stringify(body));
  return dir;
};

t.test('without a proxy an unknown path is still the 404, and known routes still parse JSON', async (t) => {
  const app = await build(t);
  const res = await app.inject({
    method: 'POST',
    url: '/api/v2/goals/like',
    payload: 'x',
    headers: { 'content-type': 'application/weird' },
  });
  t.equal(expectError(t, res, 404).code, 'ROUTE_NOT_FOUND');
  t.match(json(res).message, 'POST /goals/like');
  const bad = await app.inject({
    method: 'POST',
    url: '/mobile/request-two-factor',
    payload: '{bad',
    headers: { 'content-type': 'application/json' },
  });
  t.equal(expectError(t, bad, 400).code, 'BAD_REQUEST', 'a known route still parses JSON');
  expectError(t, await app.inject({ url: '/__admin/nothing-here' }), 404);
});

t.test('forwards method, path, query, raw body and headers; the answer comes back unchanged', async (t) => {
  const { seen, base } = await upstream(t);
  const app = await build(t, { proxy: base });
  const body = 'a=1&b=%D0%BF&c';
  const res = await app.inject({
    method: 'POST',
    url: '/sandbox/qa/api/v2/goals/like?x=1&y=two',
    payload: body,
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-custom': 'kept', accept: 'application/json' },
  });
  t.equal(res.statusCode, 201);
  t.same(json(res), { liked: true, echo: body });
  const got = seen.at(-1)!;
  t.equal(got.method, 'POST');
  t.equal(
    got.url,
    '/api/v2/goals/like?x=1&y=two',
    'sandbox prefix and /api/v2 removed, then the upstream base path added',
  );
  t.equal(got.body, body, 'raw bytes');
  t.equal(got.headers['x-custom'], 'kept');
  t.equal(got.headers['content-type'], 'application/x-www-form-urlencoded');

  const list = await app.inject({ url: '/goals/list' });
  t.equal(list.statusCode, 200);
  t.equal(list.headers['x-upstream'], 'yes');
  t.same(list.headers['set-cookie'], ['sid=upstream-cookie; HttpOnly', 'b=2']);
  t.equal(
    json(list).items[0].ownerEmail,
    'real.person@corp.example',
    'the client gets the real answer; only recordings are redacted',
  );

  const image = await app.inject({ url: '/shop/image' });
  t.equal(image.headers['content-type'], 'image/png');
  t.same([...image.rawPayload], [0x89, 0x50, 0x4e, 0x47, 0, 255], 'binary answers byte for byte');

  // implemented operations are not forwarded
  const before = seen.length;
  expectError(t, await app.inject({ url: '/mobile/tenant-info' }), 401);
  t.equal(seen.length, before);
});

t.test("the mock's credentials are stripped; --proxy-header adds the upstream's own", async (t) => {
  const { seen, base } = await upstream(t);
  const app = await build(t, {
    proxy: base,
    proxyHeaders: ['Authorization: Bearer upstream-key', 'X-Service-Session-Code: upstream-code'],
  });
  await app.inject({
    url: '/goals/list',
    headers: {
      'x-service-session-code': 'mock-secret',
      'x-service-session-id': 'sid',
      'x-service-device-id': 'dev',
      authorization: 'Bearer mock-token',
      'x-service-client-secret': 'cs',
      'x-mock-sandbox': 'qa',
      'x-mock-scenario': 'default',
      cookie: 'a=b',
      'x-service-tenant-id': tenants.romashka,
    },
  });
  const h = seen.at(-1)!.headers;
  t.equal(h.authorization, 'Bearer upstream-key');
  t.equal(h['x-service-session-code'], 'upstream-code');
  for (const name of [
    'x-service-session-id',
    'x-service-device-id',
    'x-service-client-secret',
    'x-mock-sandbox',
    'x-mock-scenario',
    'cookie',
  ])
    t.equal(h[name], undefined, `${name} not forwarded`);
  t.equal(h['x-service-tenant-id'], tenants.romashka, 'the tenant header is not a secret and goes on');

  const opts = parseOptions(['--proxy', base, '--proxy-timeout', '500'], {
    PORTAL_MOCK_PROXY_HEADERS: 'X-Api-Key: k1;X-Other: v2\nX-Third: 3',
  });
  t.not(opts, 'help');
  if (opts !== 'help') {
    t.same(opts.proxyHeaders, ['X-Api-Key: k1', 'X-Other: v2', 'X-Third: 3']);
    t.equal(opts.proxyTimeout, 500);
  }
  t.throws(() => parseOptions(['--proxy-header', 'no colon here'], {}), { message: /--proxy-header/ });
  await t.rejects(build(t, { proxy: 'https://user:pw@portal.example.com' }), {
    message: /--proxy: put the upstream's credentials in --proxy-header/,
  });
  const refused = await app.inject({
    method: 'PUT',
    url: '/__admin/proxy',
    payload: { url: 'http://u:p@127.0.0.1:1/' },
  });
  t.notOk(expectError(t, refused, 400).message.includes('u:p'), 'the credentials are not echoed');
  const admin = json(await app.inject({ url: '/__admin/proxy' }));
  t.same(admin.headerNames, ['authorization', 'x-service-session-code']);
  t.notOk(JSON.stringify(admin).includes('upstream-key'), 'values are not shown');
});

t.test(
  'recording: secrets and personal data never reach the file, the journal or the logs; replay without the upstream',
  async (t) => {
    const { up, base } = await upstream(t);
    const dir = mkdtempSync(join(tmpdir(), 'pm-rec-'));
    const logs = logCapture();
    const app = await build(t, {
      proxy: base,
      record: dir,
      proxyHeaders: ['X-Api-Key: upstream-api-key'],
      logger: logs.logger,
    });
    const session = await signIn(app);
    const list = await app.inject({ url: '/goals/list?page=1', headers: session.headers });
    const like = await app.inject({
      method: 'POST',
      url: '/goals/like',
      payload: { password: 'hunter2', goal: 1 },
      headers: session.headers,
    });
    const image = await app.inject({ url: '/shop/image' });
    t.equal(list.statusCode, 200);

    const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
    t.equal(files.length, 1);
    const text = readFileSync(join(dir, files[0]!), 'utf8');
    const scenario = JSON.parse(text);
    t.match(scenario.name, /^recorded-/);
    t.match(scenario.stubs, [
      { method: 'GET', path: '/goals/list', status: 200, headers: { 'content-type': /json/ } },
      { method: 'POST', path: '/goals/like', status: 201 },
      { method: 'GET', path: '/shop/image', status: 200 },
    ]);
    t.equal(scenario.stubs[0].body.items[0].ownerEmail, 'user@example.test');
    t.equal(scenario.stubs[0].body.items[0].phone, '+10000000000');
    t.equal(scenario.stubs[0].body.items[0].accessToken, '[redacted]');
    t.equal(scenario.stubs[0].body.items[0].title, 'Q1 goal');
    t.notOk(scenario.stubs[0].headers['set-cookie'], 'Set-Cookie is not recorded');
    for (const secret of [
      'tok-abc',
      'real.person@corp.example',
      '915 123',
      'upstream-cookie',
      'upstream-api-key',
      'hunter2',
      session.sessionSecret,
    ]) {
      t.notOk(text.includes(secret), `recording has no ${secret}`);
    }

    const journal = JSON.stringify(json(await app.inject({ url: '/__admin/requests?limit=100' })));
    // (the journal redacts by field name: the upstream's echo of the body inside a string is not parsed there)
    for (const secret of ['tok-abc', 'upstream-cookie', 'upstream-api-key', 'demo1234', session.sessionSecret])
      t.notOk(journal.includes(secret), `journal has no ${secret}`);
    t.ok(journal.includes('/goals/list'), 'forwarded requests are in the journal');

    const logText = logs.lines.join('');
    t.ok(logText.includes('/goals/list'), 'the logs were captured');
    for (const secret of [
      'tok-abc',
      'upstream-cookie',
      'upstream-api-key',
      'hunter2',
      session.sessionSecret,
      'demo1234',
    ])
      t.notOk(logText.includes(secret), `logs have no ${secret}`);

    // the upstream goes away; a new mock answers from the recording
    await up.close();
    const replay = await build(t, { scenarios: [dir], scenario: scenario.name });
    const again = await replay.inject({ url: '/api/v2/goals/list' });
    t.equal(again.statusCode, 200);
    t.same(json(again), scenario.stubs[0].body);
    t.same(json(again).total, json(list).total);
    const like2 = await replay.inject({ method: 'POST', url: '/sandbox/x/goals/like', payload: { goal: 1 } });
    t.equal(like2.statusCode, like.statusCode);
    const image2 = await replay.inject({ url: '/shop/image' });
    t.equal(image2.statusCode, image.statusCode, 'a binary answer replays its status (without the bytes)');
    expectError(t, await replay.inject({ url: '/goals/other' }), 404);

    // admin recording switch
    const stopped = json(await app.inject({ method: 'POST', url: '/__admin/recording', payload: { action: 'stop' } }));
    t.equal(stopped.recording, false);
    const started = json(
      await app.inject({
        method: 'POST',
        url: '/__admin/recording',
        payload: { action: 'start', name: 'recorded-second' },
      }),
    );
    t.match(started, { recording: true, scenario: 'recorded-second', stubs: 0 });
  },
);

t.test('one-time passwords and PINs are redacted in the journal and in a recording', async (t) => {
  const { base } = await upstream(t);
  const dir = mkdtempSync(join(tmpdir(), 'pm-rec-otp-'));
  const app = await build(t, { proxy: base, record: dir });
  const res = await app.inject({ method: 'POST', url: '/auth/confirm', payload: { otp: '482913', pin: '7731' } });
  t.same(json(res), { user: 'u1', otp: '482913', pin: 7731, otpSentTo: 'sms' }, 'the client gets the real answer');

  const [file] = readdirSync(dir).filter((f) => f.endsWith('.json'));
  const text = readFileSync(join(dir, file!), 'utf8');
  t.same(
    JSON.parse(text).stubs[0].body,
    { user: 'u1', otp: '[redacted]', pin: '[redacted]', otpSentTo: '[redacted]' },
    'the recording keeps neither',
  );
  const [entry] = json(await app.inject({ url: '/__admin/requests?limit=1' }));
  t.same(
    entry.responseBody,
    { user: 'u1', otp: '[redacted]', pin: '[redacted]', otpSentTo: '[redacted]' },
    'nor does the journal',
  );
  for (const secret of ['482913', '7731'])
    t.notOk(text.includes(secret) || JSON.stringify(entry).includes(secret), `${secret} is in neither`);
});

t.test('method+path stubs are validated and answer unknown paths', async (t) => {
  const bad = dirWith({ 'x.json': { name: 'x', description: 'd', stubs: [{ method: 'GET', status: 200 }] } });
  await t.rejects(build(t, { scenarios: [bad] }), { message: /x\.json: at \/stubs\/0: method and path go together/ });
  const both = dirWith({
    'x.json': {
      name: 'x',
      description: 'd',
      stubs: [{ operationId: 'mobileAuth', method: 'GET', path: '/a', status: 200 }],
    },
  });
  await t.rejects(build(t, { scenarios: [both] }), { message: /not both/ });
  const badForward = dirWith({ 'x.json': { name: 'x', description: 'd', forward: ['nope'] } });
  await t.rejects(build(t, { scenarios: [badForward] }), { message: /at \/forward\/0: unknown operationId "nope"/ });
  const ok = dirWith({
    'surveys.json': {
      name: 'surveys',
      description: 'd',
      stubs: [{ method: 'get', path: '/surveys/list', status: 200, body: { items: [] } }],
    },
  });
  const app = await build(t, { scenarios: [ok], scenario: 'surveys' });
  const res = await app.inject({ url: '/api/v2/surveys/list?x=1' });
  t.equal(res.statusCode, 200);
  t.same(json(res), { items: [] });
  expectError(t, await app.inject({ method: 'POST', url: '/surveys/list' }), 404);
});

t.test('scenario `forward` sends an implemented operation upstream (no mock session needed)', async (t) => {
  const { seen, base } = await upstream(t);
  const dir = dirWith({ 'fwd.json': { name: 'fwd', description: 'd', forward: ['mobileTenantInfo'] } });
  const app = await build(t, { scenarios: [dir], proxy: base });
  const res = await app.inject({ url: '/mobile/tenant-info', headers: { 'x-mock-scenario': 'fwd' } });
  t.equal(res.statusCode, 200);
  t.equal(json(res).name, 'Real portal');
  t.equal(seen.at(-1)!.url, '/api/v2/mobile/tenant-info');
  expectError(t, await app.inject({ url: '/mobile/tenant-info' }), 401); // without the scenario: the mock answers

  // per-sandbox upstream: none for "offline"
  const set = json(
    await app.inject({ method: 'PUT', url: '/__admin/proxy', payload: { url: null, sandbox: 'offline' } }),
  );
  t.match(set, { sandbox: 'offline', url: null, source: 'sandbox' });
  const res2 = await app.inject({ url: '/sandbox/offline/mobile/tenant-info', headers: { 'x-mock-scenario': 'fwd' } });
  t.match(expectError(t, res2, 502).message, /no upstream is configured/);
  expectError(t, await app.inject({ url: '/sandbox/offline/goals/list' }), 404);
  t.match(json(await app.inject({ method: 'DELETE', url: '/__admin/proxy?sandbox=offline' })), {
    url: base,
    source: 'flag',
  });
});

t.test('compare mode: scenario `compare` and the one-shot admin route list status and shape differences', async (t) => {
  const { base } = await upstream(t);
  const dir = dirWith({ 'cmp.json': { name: 'cmp', description: 'd', compare: ['mobileTenantInfo'] } });
  const app = await build(t, { scenarios: [dir], proxy: base });
  const session = await signIn(app);
  const res = await app.inject({
    url: '/mobile/tenant-info',
    headers: { ...session.headers, 'x-mock-scenario': 'cmp' },
  });
  t.equal(res.statusCode, 200, 'the mock answers');
  const report = json(await app.inject({ url: '/__admin/compare?operationId=mobileTenantInfo' }));
  t.equal(report.comparisons.length, 1);
  const c = report.comparisons[0];
  t.match(c, {
    operationId: 'mobileTenantInfo',
    method: 'GET',
    path: '/mobile/tenant-info',
    mockStatus: 200,
    upstreamStatus: 200,
    sameStatus: true,
    sameShape: false,
  });
  t.ok(
    c.differences.some((d: { path: string; kind: string }) => d.path === '$.settings' && d.kind === 'missing'),
    'a field only the upstream has',
  );
  t.ok(
    c.differences.some((d: { kind: string }) => d.kind === 'extra'),
    'fields only the mock has',
  );

  const once = json(
    await app.inject({
      method: 'POST',
      url: '/__admin/compare',
      payload: { method: 'GET', url: '/mobile/tenant-info' },
    }),
  );
  t.match(once, { operationId: 'mobileTenantInfo', mockStatus: 401, upstreamStatus: 200, sameStatus: false });
  await app.inject({ method: 'DELETE', url: '/__admin/compare' });
  t.same(json(await app.inject({ url: '/__admin/compare' })).comparisons, []);

  t.same(shapeDiff({ a: 1, b: [{ c: 'x' }], d: 1 }, { a: 2.5, b: [{ c: 1 }], e: null }), [
    { path: '$.e', kind: 'missing', upstream: 'null' },
    { path: '$.d', kind: 'extra', mock: 'integer' },
    { path: '$.b[].c', kind: 'type', mock: 'string', upstream: 'integer' },
  ]);
});

t.test('an unreachable upstream is a 502 and a slow one a 504 after --proxy-timeout', async (t) => {
  const { base, address, slow: held } = await upstream(t);
  const closed = Fastify();
  const closedAddress = await closed.listen({ port: 0, host: '127.0.0.1' });
  await closed.close();
  const logs = logCapture();
  const app = await build(t, { proxy: `${closedAddress}/api/v2`, proxyTimeout: 300, logger: logs.logger });
  const down = await app.inject({ url: '/goals/list' });
  t.match(expectError(t, down, 502), {
    code: 'BAD_GATEWAY',
    message: new RegExp(`upstream ${closedAddress}/api/v2 is unreachable`),
  });
  t.ok(logs.lines.join('').includes('unreachable'), 'logged');

  await app.inject({ method: 'PUT', url: '/__admin/proxy', payload: { url: base } });
  const slow = await app.inject({ url: '/slow' });
  t.notOk(held.answered, 'did not wait for the upstream');
  t.match(expectError(t, slow, 504), {
    code: 'GATEWAY_TIMEOUT',
    message: new RegExp(`upstream ${address}/api/v2 did not answer within 300 ms`),
  });
});

t.test('a recording keeps at most --record-limit stubs: the one answered longest ago goes first', async (t) => {
  const { base } = await upstream(t);
  const dir = mkdtempSync(join(tmpdir(), 'pm-rec-limit-'));
  const app = await build(t, { proxy: base, record: dir, recordLimit: 2 });
  const session = await signIn(app);
  await app.inject({ url: '/goals/list?page=1', headers: session.headers });
  await app.inject({ method: 'POST', url: '/goals/like', payload: { goal: 1 }, headers: session.headers });
  await app.inject({ url: '/shop/image' });
  await app.inject({ url: '/goals/list?page=2', headers: session.headers }); // answered again: now the latest
  const [file] = readdirSync(dir).filter((f) => f.endsWith('.json'));
  const stubs = (
    JSON.parse(readFileSync(join(dir, file!), 'utf8')) as { stubs: Array<{ method: string; path: string }> }
  ).stubs;
  t.same(
    stubs.map((s) => `${s.method} ${s.path}`),
    ['GET /shop/image', 'GET /goals/list'],
    'the two answered last, in the order of their latest answers',
  );
});
