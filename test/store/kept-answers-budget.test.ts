import t from 'tap';
import type { FastifyInstance } from 'fastify';
import { accounts, build, tenants } from '../helper.js';
import { AnswerCache } from '../../src/http/answer-cache.js';

// Kept answers (src/http/answer-cache.ts) have one budget for the whole server, in bytes (--answer-cache-mb): a
// client that busts the cache with new windows in many sandboxes, or with undeclared parameters, never grows them past
// it, another sandbox's reads stay right, and a reset or a deletion frees a sandbox's answers at once. Over real
// sockets, as an abusive client would come.

type Kept = { bytes: number; entries: number; budgetBytes: number };

/** The admin's bound demo device of the seed: a session in any sandbox with one call. */
async function session(base: string, sandbox: string): Promise<Record<string, string>> {
  const res = await fetch(`${base}/mobile/auth`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-tenant-id': tenants.romashka, 'x-mock-sandbox': sandbox },
    body: JSON.stringify({
      secret: 'demo-device-secret-1',
      userId: 'a1000000-0000-4000-8000-000000000001',
      deviceId: 'demo-device-romashka',
    }),
  });
  if (res.status !== 200) throw new Error(`auth in ${sandbox}: ${res.status} ${await res.text()}`);
  const { sessionId, sessionSecret } = (await res.json()) as { sessionId: string; sessionSecret: string };
  return {
    'x-mock-sandbox': sandbox,
    'x-service-tenant-id': tenants.romashka,
    'x-service-device-id': 'demo-device-romashka',
    'x-service-session-id': sessionId,
    'x-service-session-code': sessionSecret,
    'accept-encoding': 'gzip', // the compressed bytes count too
  };
}

async function get(base: string, path: string, headers: Record<string, string>): Promise<string> {
  const res = await fetch(`${base}${path}`, { headers });
  const body = await res.text();
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${body.slice(0, 300)}`);
  return body;
}

async function kept(base: string): Promise<Kept> {
  const health = JSON.parse(await get(base, '/__admin/health', {}));
  return health.keptAnswers;
}

/** A month-long calendar window starting `day` days after 2026-01-01: each day a different window. */
function windowPath(day: number, extra = ''): string {
  const at = (d: number) => new Date(Date.UTC(2026, 0, 1 + d)).toISOString().slice(0, 10);
  const start = encodeURIComponent(`${at(day)} 00:00:00`);
  const end = encodeURIComponent(`${at(day + 30)} 23:59:59`);
  return `/calendar?start_date_time=${start}&end_date_time=${end}${extra}`;
}

async function listening(
  t: Parameters<typeof build>[0],
  options: Parameters<typeof build>[1] = {},
): Promise<[FastifyInstance, string]> {
  const app = await build(t, options);
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  return [app, base];
}

t.test('a cache-busting client in many sandboxes stays within the budget; another sandbox reads right', async (t) => {
  const [, base] = await listening(t, { answerCacheMb: 1 });
  const probe = await session(base, 'probe');
  const expected = await get(base, '/calendar', probe);
  const budget = (await kept(base)).budgetBytes;
  t.equal(budget, 1024 * 1024, 'the budget is --answer-cache-mb in bytes');
  let largest = 0;
  for (let s = 0; s < 6; s++) {
    const abuser = await session(base, `abuser-${s}`);
    for (let day = 0; day < 12; day++) await get(base, windowPath(day), abuser);
    const now = await kept(base);
    largest = Math.max(largest, now.bytes);
    t.ok(now.bytes <= budget, `after sandbox ${s}: ${now.bytes} bytes kept, budget ${budget}`);
    t.equal(await get(base, '/calendar', probe), expected, `the probe's list is right after sandbox ${s}`);
  }
  // 72 distinct month windows of ~30 KB each would be several MB: the budget was reached and held
  t.ok(largest > budget / 2, `the budget was filled (${largest} bytes at most)`);
});

t.test('undeclared query parameters (?_=N) make no new kept answers', async (t) => {
  const [, base] = await listening(t);
  const client = await session(base, 'buster');
  const first = await get(base, `${windowPath(3)}&_=0`, client);
  const before = await kept(base);
  for (let i = 1; i <= 50; i++) {
    t.equal(await get(base, `${windowPath(3)}&_=${i}`, client), first, `?_=${i} reads the same list`);
  }
  // the same window spelt in another parameter order is the same validated request
  const [start, end] = windowPath(3).split('?')[1]!.split('&');
  t.equal(await get(base, `/calendar?${end}&${start}`, client), first);
  // tickets: their page links repeat the URL's query, so a URL with ?_= is answered without being kept
  const apiKey = {
    'x-mock-sandbox': 'buster',
    'x-service-client-id': 'romashka-integration',
    'x-service-client-secret': 'romashka-secret-0001',
  };
  for (let i = 1; i <= 20; i++) {
    const page = JSON.parse(await get(base, `/api/v2/workflow-ticket/?page=1&_=${i}`, apiKey));
    t.match(JSON.stringify(page._links), `_=${i}`, 'the page links keep the URL as sent');
  }
  const after = await kept(base);
  t.equal(after.entries, before.entries, `no new entries (${after.entries})`);
  t.equal(after.bytes, before.bytes);
});

t.test("a reset or a deletion frees the sandbox's kept answers at once", async (t) => {
  const [, base] = await listening(t);
  const keeper = await session(base, 'keeper');
  await get(base, windowPath(0), keeper);
  const others = await kept(base);
  t.ok(others.entries >= 1);
  for (const name of ['to-reset', 'to-delete']) {
    const client = await session(base, name);
    for (let day = 0; day < 5; day++) await get(base, windowPath(day), client);
  }
  const full = await kept(base);
  t.ok(full.entries >= others.entries + 10, `${full.entries} entries with both sandboxes read`);

  const reset = await fetch(`${base}/__admin/reset?sandbox=to-reset`, { method: 'POST' });
  t.equal(reset.status, 200);
  const afterReset = await kept(base);
  t.ok(afterReset.entries <= full.entries - 5, `reset: ${full.entries} → ${afterReset.entries} entries`);
  t.ok(afterReset.bytes < full.bytes);

  const deleted = await fetch(`${base}/__admin/sandboxes/to-delete`, { method: 'DELETE' });
  t.equal(deleted.status, 200);
  t.same(await kept(base), others, "only the other sandbox's answers are left");
});

t.test(
  'past the budget the least recently used answer goes, not the oldest kept; a read makes one recent',
  async (t) => {
    const app = await build(t);
    const store = app.sandboxes.get('lru').store;
    const other = app.sandboxes.get('lru-other').store;
    const text = 'x'.repeat(1000);
    const size = new AnswerCache(1 << 20).keep(store, 'a', 1, 0, text).bytes; // keys of one length cost the same
    const cache = new AnswerCache(3 * size); // room for three
    for (const key of ['a', 'b', 'c']) cache.keep(store, key, 1, 0, text);
    t.same(cache.stats(), { bytes: 3 * size, entries: 3, budgetBytes: 3 * size }, 'three fit exactly');
    t.ok(cache.get(store, 'a'), 'a read: a is now the most recently used');
    cache.keep(store, 'd', 1, 0, text);
    t.equal(cache.get(store, 'b'), undefined, 'b, the least recently used, went');
    t.ok(cache.get(store, 'a'), 'a, kept first but read since, stays');
    t.ok(cache.get(store, 'c') && cache.get(store, 'd'));
    t.equal(cache.stats().bytes, 3 * size);

    // the compressed bytes of an answer make room by dropping others, never the answer they belong to
    const a = cache.get(store, 'a')!; // order now: c, d, a
    cache.keepEncoded(a, 'gzip', { encoding: 'gzip', bytes: Buffer.alloc(100) });
    t.equal(cache.get(store, 'c'), undefined, 'c, now the least recently used, went for the bytes');
    t.equal(cache.get(store, 'a')?.encoded.get('gzip')?.bytes.length, 100, 'a keeps its compressed bytes');
    t.equal(cache.stats().bytes, 2 * size + 100);
    // another store's answers share the budget; a drop frees one store's only
    cache.keep(other, 'a', 1, 0, text);
    t.equal(cache.get(store, 'd'), undefined, 'd, the least recently used, went for it');
    t.ok(cache.get(store, 'a'));
    cache.drop(store);
    t.same(cache.stats(), { bytes: size, entries: 1, budgetBytes: 3 * size }, "only the other store's answer is left");
    t.ok(cache.get(other, 'a'));
  },
);

t.test("a replaced answer's bytes leave the budget with it: text and compressed bytes", async (t) => {
  const app = await build(t);
  const store = app.sandboxes.get('replaced').store;
  const cache = new AnswerCache(1 << 20);
  const first = cache.keep(store, 'k', 1, 0, 'x'.repeat(1000));
  cache.keepEncoded(first, 'gzip', { encoding: 'gzip', bytes: Buffer.alloc(50) });
  cache.keepEncoded(first, 'gzip', { encoding: 'gzip', bytes: Buffer.alloc(70) }); // the same value again: replaced
  t.same(cache.stats(), { bytes: first.bytes, entries: 1, budgetBytes: 1 << 20 });
  t.equal(first.bytes, 2 * (1000 + first.id.length) + 256 + 70, 'the text twice, the key, the overhead, the bytes');
  const second = cache.keep(store, 'k', 2, 0, 'y'.repeat(500));
  t.same(cache.stats(), { bytes: second.bytes, entries: 1, budgetBytes: 1 << 20 }, 'only the new answer counts');
  cache.keepEncoded(first, 'br', { encoding: 'br', bytes: Buffer.alloc(10) });
  t.equal(cache.stats().bytes, second.bytes, 'bytes for a replaced answer are not kept');
  const huge = cache.keep(store, 'k', 3, 0, 'z'.repeat(1 << 20));
  t.equal(huge.bytes, 0, 'an answer larger than the budget is not kept');
  t.same(cache.stats(), { bytes: 0, entries: 0, budgetBytes: 1 << 20 }, 'and the one it replaces is gone');

  // the same over a socket: a write moves the store's version, the next read replaces the kept list
  const [, base] = await listening(t);
  const client = await session(base, 'writer');
  const list = await get(base, windowPath(0), client);
  const once = await kept(base);
  const notified = await fetch(`${base}/__admin/notifications?sandbox=writer`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: accounts.admin.email, title: 'a write' }),
  });
  t.equal(notified.status, 200, 'a write');
  t.equal(await get(base, windowPath(0), client), list, 'the same list, built again');
  t.same(await kept(base), once, 'the replaced answer no longer counts');
});
