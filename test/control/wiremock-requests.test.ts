// WireMock's /__admin/requests API over a sandbox's journal (src/control/routes/wiremock/requests.ts), over real
// sockets: list, get and delete by id, find, count, remove, remove-by-metadata, unmatched and near misses; per
// sandbox. And Journal.remove keeps the journal's and the budget's byte accounting right.
import t, { type Test } from 'tap';
import type { AddressInfo } from 'node:net';
import { build } from '../helper.js';
import { loadMappings } from '../support/wiremock-load.js';
import { Journal } from '../../src/store/journal.js';
import { SharedBytes } from '../../src/store/shared-bytes.js';
import fastJsonStringify from 'fast-json-stringify';
import {
  entryIdOf,
  LoggedRequests,
  Removed,
  requestUuid,
  ServeEvents,
} from '../../src/control/routes/wiremock/requests.js';
import { referencedSchemas } from '../../src/http/serializers.js';

const mappingId = '00000000-0000-4000-8000-0000000000b1';

async function setUp(t: Test) {
  const app = await build(t);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  loadMappings(app, 'w', [
    {
      id: mappingId,
      metadata: { team: 'orders' },
      request: { method: 'GET', urlPath: '/orders' },
      response: { status: 200, jsonBody: { orders: [] }, headers: { 'content-type': 'application/json' } },
    },
  ]);
  const admin = (method: string, path: string, body?: unknown) =>
    fetch(`${base}/sandbox/w/wiremock/__admin${path}`, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
  await fetch(`${base}/sandbox/w/wiremock/orders?page=1`, { headers: { cookie: 'a=1' } });
  await fetch(`${base}/sandbox/w/wiremock/ordres`);
  await fetch(`${base}/sandbox/w/wiremock/other`, { method: 'POST', body: 'hello' });
  return { app, base, admin };
}

t.test('GET /requests: ServeEvents newest first, the stubbed one names its mapping; limit; per sandbox', async (t) => {
  const { admin, base } = await setUp(t);
  const res = await admin('GET', '/requests');
  t.equal(res.status, 200);
  const list = await res.json();
  t.equal(list.meta.total, 3);
  t.equal(list.requestJournalDisabled, false);
  t.same(
    list.requests.map((e: { request: { url: string } }) => e.request.url),
    ['/other', '/ordres', '/orders?page=1'],
  );
  const host = new URL(base).host;
  t.same(
    list.requests.map((e: { request: { absoluteUrl: string } }) => e.request.absoluteUrl),
    ['other', 'ordres', 'orders?page=1'].map((u) => `http://${host}/sandbox/w/wiremock/${u}`),
    'absoluteUrl: as the client sent it, the sandbox base included (url is relative to the base, as in WireMock)',
  );
  const stubbed = list.requests[2];
  t.match(stubbed, {
    id: requestUuid('w', 1),
    request: { method: 'GET', queryParams: { page: { key: 'page', values: ['1'] } }, cookies: {} },
    wasMatched: true,
    response: { status: 200, body: '{"orders":[]}' },
    stubMapping: { id: mappingId },
  });
  t.match(list.requests[0], { wasMatched: false, response: { status: 404 }, request: { body: 'hello' } });
  t.notOk('stubMapping' in list.requests[0]);
  t.equal(stubbed.request.headers.cookie, '[redacted]', 'secrets redacted as in our journal: no cookies to list');
  t.equal((await (await admin('GET', '/requests?limit=1')).json()).requests.length, 1);
  const other = await fetch(`${base}/sandbox/fresh/wiremock/__admin/requests`);
  t.equal(other.status, 200, 'a fresh sandbox answers an empty journal');
  t.same((await other.json()).requests, []);
});

t.test('GET /requests is streamed, with the bytes the schema serializer writes', async (t) => {
  // a stream skips the response serializer: what it writes must be what the serializer would have written
  const { app, admin, base } = await setUp(t);
  for (let i = 0; i < 20; i++)
    await fetch(`${base}/sandbox/w/wiremock/orders?i=${i}`, {
      method: 'POST',
      body: JSON.stringify({ note: 'ж'.repeat(2000) }),
    });
  const res = await admin('GET', '/requests');
  t.equal(res.status, 200);
  t.equal(res.headers.get('transfer-encoding'), 'chunked', 'streamed');
  const text = await res.text();
  const answer = JSON.parse(text) as { requests: unknown[]; meta: { total: number } };
  t.equal(answer.requests.length, 23);
  t.equal(answer.meta.total, 23);
  const shared = app.getSchemas() as Record<string, unknown>;
  const serialize = fastJsonStringify(ServeEvents as never, {
    schema: referencedSchemas(ServeEvents, shared) as never,
  });
  t.equal(text, serialize(answer), "the serializer's bytes");

  const logged = fastJsonStringify(LoggedRequests as never, {
    schema: referencedSchemas(LoggedRequests, shared) as never,
  });
  for (const [path, method, body, count] of [
    ['/requests/find', 'POST', { method: 'POST', urlPath: '/orders' }, 20],
    ['/requests/unmatched', 'GET', undefined, 22],
  ] as const) {
    const found = await admin(method, path, body);
    t.equal(found.headers.get('transfer-encoding'), 'chunked', `${path}: streamed`);
    const foundText = await found.text();
    const parsed = JSON.parse(foundText) as { requests: { url: string }[] };
    t.equal(parsed.requests.length, count, `${path}: ${count} requests`);
    t.equal(foundText, logged(parsed), `${path}: the serializer's bytes`);
  }

  const removed = await admin('POST', '/requests/remove', { method: 'POST', urlPath: '/orders' });
  t.equal(removed.headers.get('transfer-encoding'), 'chunked', '/requests/remove: streamed');
  const removedText = await removed.text();
  const events = JSON.parse(removedText) as { serveEvents: unknown[] };
  t.equal(events.serveEvents.length, 20, 'the 20 POSTs removed');
  const removal = fastJsonStringify(Removed as never, { schema: referencedSchemas(Removed, shared) as never });
  t.equal(removedText, removal(events), "/requests/remove: the serializer's bytes");
  t.equal(app.sandboxes.find('w')!.journal.size(), 3, 'the others stay');
});

t.test('GET and DELETE /requests/{id}: WireMock ids, a 404 naming the id when unknown', async (t) => {
  const { admin } = await setUp(t);
  const [newest] = (await (await admin('GET', '/requests')).json()).requests;
  const one = await admin('GET', `/requests/${newest.id}`);
  t.equal(one.status, 200);
  t.equal((await one.json()).request.url, '/other');
  const unknown = await admin('GET', '/requests/11111111-1111-4111-8111-111111111111');
  t.equal(unknown.status, 404);
  t.match(await unknown.json(), { errors: [{ code: 404, title: /^No request .+ in this sandbox's journal$/ }] });
  t.equal((await admin('GET', `/requests/${requestUuid('another', 3)}`)).status, 404, "another sandbox's id");
  t.equal((await admin('DELETE', `/requests/${newest.id}`)).status, 200);
  t.equal((await admin('GET', `/requests/${newest.id}`)).status, 404, 'gone');
  t.equal((await (await admin('GET', '/requests')).json()).meta.total, 2);
  t.equal((await admin('DELETE', '/requests/11111111-1111-4111-8111-111111111111')).status, 200, 'as WireMock');
  t.equal((await admin('DELETE', '/requests')).status, 200);
  t.equal((await (await admin('GET', '/requests')).json()).meta.total, 0);
});

t.test('find, count and remove by a request pattern; a bad pattern is WireMock 422', async (t) => {
  const { admin } = await setUp(t);
  const found = await (await admin('POST', '/requests/find', { method: 'GET', urlPathPattern: '/ord.*' })).json();
  t.same(
    found.requests.map((r: { url: string }) => r.url),
    ['/orders?page=1', '/ordres'],
    'oldest first',
  );
  t.same(await (await admin('POST', '/requests/count', { urlPath: '/orders' })).json(), {
    count: 1,
    requestJournalDisabled: false,
  });
  const body = await (await admin('POST', '/requests/count', { bodyPatterns: [{ equalTo: 'hello' }] })).json();
  t.equal(body.count, 1, 'a body pattern reads the kept body');
  const bad = await admin('POST', '/requests/find', { urlPathz: '/x' });
  t.equal(bad.status, 422);
  t.match((await bad.json()).errors[0], { source: { pointer: '/urlPathz' } });
  const removed = await (await admin('POST', '/requests/remove', { urlPath: '/ordres' })).json();
  t.equal(removed.serveEvents.length, 1);
  t.equal(removed.serveEvents[0].request.url, '/ordres');
  t.equal((await (await admin('GET', '/requests')).json()).meta.total, 2);
});

t.test('remove-by-metadata matches the metadata of the mapping that answered', async (t) => {
  const { admin } = await setUp(t);
  const none = await (
    await admin('POST', '/requests/remove-by-metadata', { matchesJsonPath: '$[?(@.team == "billing")]' })
  ).json();
  t.same(none.serveEvents, []);
  const gone = await (
    await admin('POST', '/requests/remove-by-metadata', { matchesJsonPath: '$[?(@.team == "orders")]' })
  ).json();
  t.equal(gone.serveEvents.length, 1);
  t.equal(gone.serveEvents[0].stubMapping.id, mappingId);
  t.equal((await (await admin('GET', '/requests')).json()).meta.total, 2);
  t.equal((await admin('POST', '/requests/remove-by-metadata', { wat: 1 })).status, 422);
});

t.test('unmatched and their near misses', async (t) => {
  const { admin, base } = await setUp(t);
  const sandboxHeaders = { 'x-mock-sandbox': 'w' };
  await fetch(`${base}/user/profile`, { headers: sandboxHeaders }); // a portal operation: answered by the mock
  const unmatched = await (await admin('GET', '/requests/unmatched')).json();
  t.same(
    unmatched.requests.map((r: { url: string }) => r.url),
    ['/ordres', '/other'],
    'the paths nothing answered, oldest first; not the portal operation',
  );
  const near = await (await admin('GET', '/requests/unmatched/near-misses')).json();
  t.equal(near.nearMisses.length, 2);
  const ordres = near.nearMisses.find((m: { request: { url: string } }) => m.request.url === '/ordres');
  t.equal(ordres.stubMapping.id, mappingId);
  t.ok(ordres.matchResult.distance > 0 && ordres.matchResult.distance < 0.5, `${ordres.matchResult.distance}`);
});

t.test(
  'request ids: stable per sandbox and entry, read back; another sandbox or a foreign UUID names none',
  async (t) => {
    t.equal(requestUuid('a', 7), requestUuid('a', 7));
    t.not(requestUuid('a', 7), requestUuid('b', 7));
    t.match(requestUuid('a', 7), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-0{10}07$/);
    t.equal(entryIdOf('a', requestUuid('a', 123456)), 123456);
    t.equal(entryIdOf('b', requestUuid('a', 5)), null);
    t.equal(entryIdOf('a', 'not-a-uuid'), null);
  },
);

t.test(
  'Journal.remove gives the bytes back to the journal and the budget, keeps order, and the ring goes on',
  async (t) => {
    const budget = new SharedBytes<Journal>(1_000_000);
    const j = new Journal(4, { budget });
    const facts = {
      atMs: 0,
      method: 'GET',
      operationId: null,
      status: 200,
      durationMs: 1,
      scenario: null,
      stubbed: false,
    };
    for (let i = 1; i <= 6; i++)
      j.add(facts, { url: `/r${i}${'x'.repeat(i * 10)}`, routedUrl: `/r${i}`, rawHeaders: ['host', 'h'] });
    t.equal(j.size(), 4, 'the ring turned: 3, 4, 5, 6 kept');
    const before = j.heldBytes;
    t.equal(budget.usedBytes, before);
    const sizeOf = (id: number) => {
      const solo = new Journal(1);
      solo.add(facts, { url: `/r${id}${'x'.repeat(id * 10)}`, routedUrl: `/r${id}`, rawHeaders: ['host', 'h'] }, id);
      return solo.heldBytes;
    };
    t.equal(j.remove(new Set([4, 6, 99])), 2);
    t.equal(j.heldBytes, before - sizeOf(4) - sizeOf(6));
    t.equal(budget.usedBytes, j.heldBytes, 'the budget agrees');
    t.same(
      j.list().map((e) => e.id),
      [5, 3],
    );
    for (let i = 7; i <= 9; i++)
      j.add(facts, { url: `/r${i}${'x'.repeat(i * 10)}`, routedUrl: `/r${i}`, rawHeaders: ['host', 'h'] });
    t.same(
      j.list().map((e) => e.id),
      [9, 8, 7, 5],
      'the limit holds after a removal',
    );
    t.equal(budget.usedBytes, j.heldBytes);
    t.equal(j.remove(new Set([5, 7, 8, 9])), 4);
    t.equal(j.heldBytes, 0);
    t.equal(budget.usedBytes, 0);
    t.equal(budget.listCount, 0, 'an emptied journal leaves the budget');
    t.equal(j.remove(new Set([1])), 0);
  },
);
