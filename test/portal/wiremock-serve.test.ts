// Serving a sandbox's WireMock stubs (src/scenarios/wiremock.ts, docs/wiremock.md "Serving") over real sockets: a
// mapping answers before auth, an unmatched portal operation gets the stateful answer, an unknown path WireMock's
// 404 with the closest near miss; the three ways of naming a sandbox meet the same stubs; scenario states are per
// sandbox; templates replay; body patterns are read before auth; delays and faults; the journal names the mapping.
// The mappings are set through app.sandboxes (the WireMock admin routes are the wmadmin branch's).
import t, { type Test } from 'tap';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { build, json } from '../helper.js';
import { loadMappings } from '../support/wiremock-load.js';

async function listen(t: Test, options = {}) {
  const app = await build(t, options);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  return { app, base };
}

const hello = {
  request: { method: 'GET', urlPath: '/user/profile', queryParameters: { stub: { equalTo: 'yes' } } },
  response: { status: 200, jsonBody: { stubbed: true }, headers: { 'Content-Type': 'application/json' } },
};

t.test('a mapping answers a portal operation before auth; an unmatched one gets the stateful answer', async (t) => {
  const { app, base } = await listen(t);
  loadMappings(app, 'a', [hello]);
  const stubbed = await fetch(`${base}/sandbox/a/user/profile?stub=yes`);
  t.equal(stubbed.status, 200, 'no session, yet answered: before auth');
  t.same(await stubbed.json(), { stubbed: true });
  const other = await fetch(`${base}/sandbox/a/user/profile?stub=no`);
  t.not(other.status, 200);
  t.equal(other.status, 401, 'a request no mapping matches meets the stateful mock (its auth)');
  const plain = await fetch(`${base}/sandbox/b/user/profile?stub=yes`);
  t.equal(plain.status, 401, 'another sandbox has no stubs');
});

t.test('an unknown path: WireMock 404 with the closest stub, only where WireMock owns it', async (t) => {
  const { app, base } = await listen(t);
  loadMappings(app, 'a', [
    { name: 'orders', request: { method: 'GET', url: '/orders/1' }, response: { status: 200, body: 'one' } },
    { request: { method: 'POST', urlPath: '/things' }, response: { status: 201 } },
  ]);
  const miss = await fetch(`${base}/sandbox/a/orders/2`);
  t.equal(miss.status, 404);
  t.match(miss.headers.get('content-type'), /^text\/plain/);
  const text = await miss.text();
  t.match(text, /Request was not matched/);
  t.match(text, /Closest stub: orders\n {2}GET \/orders\/1/, 'the nearest miss named');
  t.match(text, /GET \/orders\/2/, 'and the request');
  const empty = await fetch(`${base}/sandbox/none/wiremock/orders/2`);
  t.equal(empty.status, 404, 'through the /wiremock base with no mappings: WireMock 404 too');
  t.match(await empty.text(), /Request was not matched/);
  const usual = await fetch(`${base}/sandbox/none/orders/2`);
  t.equal(usual.status, 404);
  t.match(usual.headers.get('content-type'), /json/, 'otherwise the usual 404');
  t.equal((await usual.json()).code, 'ROUTE_NOT_FOUND');
});

t.test('/sandbox/A/wiremock/x, /sandbox/A/x and x-mock-sandbox: A meet the same stubs', async (t) => {
  const { app, base } = await listen(t);
  loadMappings(app, 'A', [
    { request: { url: '/x?q=1' }, response: { status: 200, body: 'x' } },
    { request: { urlPath: '/api/v2/goals/list' }, response: { status: 200, body: 'prefixed' } },
  ]);
  for (const [url, headers] of [
    ['/sandbox/A/wiremock/x?q=1', {}],
    ['/sandbox/A/x?q=1', {}],
    ['/x?q=1', { 'x-mock-sandbox': 'A' }],
    ['/wiremock/x?q=1', { 'x-mock-sandbox': 'A' }],
  ] as const) {
    const res = await fetch(`${base}${url}`, { headers });
    t.equal(res.status, 200, url);
    t.equal(await res.text(), 'x', url);
  }
  const prefixed = await fetch(`${base}/sandbox/A/wiremock/api/v2/goals/list`);
  t.equal(await prefixed.text(), 'prefixed', 'an /api/v2 prefix is part of the URL a mapping matches');
  const none = await fetch(`${base}/sandbox/B/wiremock/x?q=1`);
  t.equal(none.status, 404, 'sandbox B has none');
});

t.test('scenario states are per sandbox', async (t) => {
  const { app, base } = await listen(t);
  const mappings = [
    {
      scenarioName: 'cart',
      requiredScenarioState: 'Started',
      newScenarioState: 'full',
      request: { method: 'POST', url: '/cart' },
      response: { status: 201 },
    },
    {
      scenarioName: 'cart',
      requiredScenarioState: 'Started',
      request: { method: 'GET', url: '/cart' },
      response: { status: 200, body: 'empty' },
    },
    {
      scenarioName: 'cart',
      requiredScenarioState: 'full',
      request: { method: 'GET', url: '/cart' },
      response: { status: 200, body: 'full' },
    },
  ];
  loadMappings(app, 'one', mappings);
  loadMappings(app, 'two', mappings);
  const get = async (s: string) => (await fetch(`${base}/sandbox/${s}/wiremock/cart`)).text();
  t.equal(await get('one'), 'empty');
  t.equal((await fetch(`${base}/sandbox/one/wiremock/cart`, { method: 'POST' })).status, 201);
  t.equal(await get('one'), 'full', 'one moved');
  t.equal(await get('two'), 'empty', 'two did not');
  t.equal(app.sandboxes.get('one').wiremock.stateOf('cart'), 'full');
  t.equal(app.sandboxes.get('two').wiremock.stateOf('cart'), 'Started');
});

t.test('templates with now and randomValue: the same bytes in two sandboxes of the same seed and clock', async (t) => {
  const { app, base } = await listen(t);
  const templated = {
    request: { urlPath: '/t' },
    response: {
      status: 200,
      body: '{{now format="yyyy-MM-dd HH:mm"}} {{randomValue length=12 type="ALPHANUMERIC"}} {{randomValue type="UUID"}} {{request.baseUrl}}',
      transformers: ['response-template'],
    },
  };
  loadMappings(app, 'p', [templated]);
  loadMappings(app, 'q', [templated]);
  const texts = async (s: string) => {
    const out: string[] = [];
    for (let i = 0; i < 3; i++) out.push(await (await fetch(`${base}/sandbox/${s}/wiremock/t`)).text());
    return out;
  };
  const p = await texts('p');
  const q = await texts('q');
  t.match(p[0], /^2026-03-02 09:00 [A-Za-z0-9]{12} [0-9a-f-]{36} http:\/\/127\.0\.0\.1:\d+\/sandbox\/p\/wiremock$/);
  t.not(p[0], p[1], 'each answer draws anew');
  t.same(
    p.map((s) => s.replace('/sandbox/p/', '/')),
    q.map((s) => s.replace('/sandbox/q/', '/')),
    'the same draws in both',
  );
  await app.inject({ method: 'POST', url: '/__admin/sandboxes/reset', headers: { 'x-mock-sandbox': 'p' } });
});

t.test('body patterns are read before auth, and the body still reaches the mock when none matches', async (t) => {
  const { app, base } = await listen(t);
  loadMappings(app, 'b', [
    {
      request: {
        method: 'POST',
        urlPath: '/mobile/auth',
        bodyPatterns: [{ matchesJsonPath: '$[?(@.userId == "u1")]' }],
      },
      response: { status: 200, jsonBody: { stubbedAuth: true } },
    },
    {
      request: {
        method: 'POST',
        urlPath: '/form',
        formParameters: { a: { equalTo: '1' } },
      },
      response: { status: 200, body: 'form' },
    },
  ]);
  const send = (path: string, body: string, type = 'application/json') =>
    fetch(`${base}/sandbox/b${path}`, { method: 'POST', headers: { 'content-type': type }, body });
  const hit = await send('/mobile/auth', JSON.stringify({ userId: 'u1', secret: 's', deviceId: 'd' }));
  t.equal(hit.status, 200);
  t.same(await hit.json(), { stubbedAuth: true });
  const miss = await send('/mobile/auth', JSON.stringify({ userId: 'u2', secret: 's', deviceId: 'd' }));
  t.not(miss.status, 200, 'not matched: the portal answers');
  t.not(miss.status, 500);
  const missBody = await miss.json();
  t.ok(typeof missBody.code === 'string', `the portal's own error body (${missBody.code}): the body was given back`);
  const form = await send('/form', 'a=1&b=2', 'application/x-www-form-urlencoded');
  t.equal(await form.text(), 'form');
  const entries = json(await app.inject({ url: '/__admin/requests?sandbox=b' }));
  const auth = entries.find(
    (e: { path: string; wiremockMapping?: string }) => e.path === '/mobile/auth' && e.wiremockMapping,
  );
  t.match(auth, { stubbed: true, requestBody: { userId: 'u1', secret: '[redacted]' } }, 'journaled with its body');
});

t.test('a body past --body-limit is a 413 before any mapping reads it', async (t) => {
  const { app, base } = await listen(t, { bodyLimit: 1024 });
  loadMappings(app, 'l', [
    { request: { method: 'POST', urlPath: '/big', bodyPatterns: [{ contains: 'x' }] }, response: { status: 200 } },
  ]);
  const res = await fetch(`${base}/sandbox/l/big`, { method: 'POST', body: 'x'.repeat(5000) });
  t.equal(res.status, 413);
  t.equal((await res.json()).code, 'PAYLOAD_TOO_LARGE');
});

t.test('a template error is a 422 in WireMock error shape naming the mapping, never a 500', async (t) => {
  const { app, base } = await listen(t);
  const id = '00000000-0000-4000-8000-0000000000e1';
  loadMappings(app, 'e', [
    { id, request: { urlPath: '/bad' }, response: { status: 200, bodyFileName: 'missing.json' } },
  ]);
  const res = await fetch(`${base}/sandbox/e/bad`);
  t.equal(res.status, 422);
  const body = await res.json();
  t.equal(body.errors[0].source.pointer, '/response');
  t.match(body.errors[0].title, id);
  t.match(body.errors[0].detail, /missing\.json/);
});

t.test('headers, status message, delay and dribble', async (t) => {
  const { app, base } = await listen(t);
  loadMappings(app, 'd', [
    {
      request: { urlPath: '/h' },
      response: {
        status: 418,
        statusMessage: 'Short and stout',
        headers: { 'X-One': 'a', 'X-Many': ['b', 'c'], 'Content-Length': '999' },
        body: 'tea',
        fixedDelayMilliseconds: 50,
      },
    },
    {
      request: { urlPath: '/drip' },
      response: { status: 200, body: 'abcdefghij', chunkedDribbleDelay: { numberOfChunks: 5, totalDuration: 100 } },
    },
  ]);
  const started = performance.now();
  const res = await fetch(`${base}/sandbox/d/h`);
  t.ok(performance.now() - started >= 45, 'waited the fixed delay');
  t.equal(res.status, 418);
  t.equal(res.statusText, 'Short and stout');
  t.equal(res.headers.get('x-one'), 'a');
  t.equal(res.headers.get('x-many'), 'b, c');
  t.equal(await res.text(), 'tea', 'the mapping cannot set a wrong content-length: the mock frames the answer');
  const drip = await fetch(`${base}/sandbox/d/drip`);
  const reader = drip.body!.getReader();
  const parts: string[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(Buffer.from(value).toString());
  }
  t.equal(parts.join(''), 'abcdefghij');
  t.ok(parts.length > 1, `arrived in ${parts.length} reads`);
});

/** One request on a raw socket: what came back before the connection ended, and how it ended. */
function rawExchange(base: string, path: string): Promise<{ data: string; how: string }> {
  const { port } = new URL(base);
  return new Promise((resolve) => {
    const socket = connect(Number(port), '127.0.0.1');
    let data = '';
    let how = 'closed';
    socket.on('data', (d) => {
      data += d.toString('latin1');
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      how = err.code ?? err.message;
    });
    socket.on('close', () => resolve({ data, how }));
    socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
  });
}

t.test('the four faults, and the journal says which', async (t) => {
  const { app, base } = await listen(t);
  const kinds = ['CONNECTION_RESET_BY_PEER', 'EMPTY_RESPONSE', 'MALFORMED_RESPONSE_CHUNK', 'RANDOM_DATA_THEN_CLOSE'];
  loadMappings(
    app,
    'f',
    kinds.map((fault) => ({ request: { urlPath: `/${fault}` }, response: { fault } })),
  );
  const reset = await rawExchange(base, '/sandbox/f/CONNECTION_RESET_BY_PEER');
  t.equal(reset.how, 'ECONNRESET');
  t.equal(reset.data, '');
  const empty = await rawExchange(base, '/sandbox/f/EMPTY_RESPONSE');
  t.same(empty, { data: '', how: 'closed' });
  const malformed = await rawExchange(base, '/sandbox/f/MALFORMED_RESPONSE_CHUNK');
  t.match(malformed.data, /^HTTP\/1\.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nlskdu/);
  const random = await rawExchange(base, '/sandbox/f/RANDOM_DATA_THEN_CLOSE');
  t.match(random.data, /^lskdu018973/);
  await t.resolves(fetch(`${base}/__admin/health`), 'the server is still there');
  // the journal records on the connection's close: wait for the four
  let entries: Array<{ path: string; fault?: string; status: number; stubbed: boolean }> = [];
  for (let i = 0; i < 100 && entries.length < 4; i++) {
    entries = json(await app.inject({ url: '/__admin/requests?sandbox=f' }));
    if (entries.length < 4) await new Promise((r) => setImmediate(r));
  }
  const byPath = Object.fromEntries(entries.map((e) => [e.path, e]));
  t.match(byPath['/CONNECTION_RESET_BY_PEER'], { fault: 'reset', status: 0, stubbed: true });
  t.match(byPath['/EMPTY_RESPONSE'], { fault: 'empty', status: 0 });
  t.match(byPath['/MALFORMED_RESPONSE_CHUNK'], { fault: 'malformed' });
  t.match(byPath['/RANDOM_DATA_THEN_CLOSE'], { fault: 'malformed' });
});

t.test('our journal names the mapping that answered; findings still run', async (t) => {
  const { app, base } = await listen(t);
  const id = '00000000-0000-4000-8000-00000000000a';
  loadMappings(app, 'j', [{ ...hello, id }]);
  await fetch(`${base}/sandbox/j/user/profile?stub=yes`);
  await fetch(`${base}/sandbox/j/wiremock/nothing`);
  const entries = json(await app.inject({ url: '/__admin/requests?sandbox=j' }));
  t.match(entries[1], { path: '/user/profile', operationId: String, stubbed: true, wiremockMapping: id });
  t.match(entries[0], { path: '/nothing', status: 404, stubbed: false });
  t.notOk('wiremockMapping' in entries[0]);
});

t.test('proxyBaseUrl forwards to the upstream it names', async (t) => {
  const { createServer } = await import('node:http');
  const up = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain', 'x-upstream': 'yes' });
    res.end(`upstream saw ${req.method} ${req.url}`);
  });
  await new Promise<void>((resolve) => up.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => up.close(() => resolve())));
  const { app, base } = await listen(t);
  const upstream = `http://127.0.0.1:${(up.address() as AddressInfo).port}/root`;
  loadMappings(app, 'p', [{ request: { urlPathPattern: '/fwd/.*' }, response: { proxyBaseUrl: upstream } }]);
  const res = await fetch(`${base}/sandbox/p/wiremock/fwd/a?b=1`);
  t.equal(res.status, 200);
  t.equal(res.headers.get('x-upstream'), 'yes');
  t.equal(await res.text(), 'upstream saw GET /root/fwd/a?b=1');
});
