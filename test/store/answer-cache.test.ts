import t from 'tap';
import { build } from '../helper.js';
import { AnswerCache } from '../../src/http/answer-cache.js';

// The AnswerCache's own bookkeeping, in process and fast: the file `npm run mutate -- answer-cache` runs first. What
// each answer costs, where the budget's edge is (an answer that fills it exactly is kept), which answer goes first
// (the least recently used, never the one being kept), and what a drop frees. Over sockets: kept-answers*.test.ts.

const text = (n: number) => 'x'.repeat(n);

t.test('AnswerCache', async (t) => {
  const app = await build(t);
  const store = app.sandboxes.get('unit-a').store;
  const other = app.sandboxes.get('unit-b').store;
  /** what an answer of this text costs under this key in a fresh cache (the first store of a cache is number 1) */
  const cost = (key: string, length: number) => 2 * (length + `1\n${key}`.length) + 256;

  t.test('an answer costs its text and key twice and 256 bytes; stats count it', async (t) => {
    const cache = new AnswerCache(1 << 20);
    t.same(cache.stats(), { bytes: 0, entries: 0, budgetBytes: 1 << 20 }, 'empty');
    const a = cache.keep(store, 'k', 7, 1000, text(100));
    t.same(
      { version: a.version, at: a.at, text: a.text, bytes: a.bytes, id: a.id },
      { version: 7, at: 1000, text: text(100), bytes: cost('k', 100), id: '1\nk' },
    );
    t.same(cache.stats(), { bytes: cost('k', 100), entries: 1, budgetBytes: 1 << 20 });
    t.equal(cache.get(store, 'k'), a, 'read back, the same object');
    t.equal(cache.get(store, 'other'), undefined, 'another key: none');
    t.equal(cache.get(other, 'k'), undefined, "another store's same key: none");
    const b = cache.keep(other, 'k', 1, 0, text(10));
    t.equal(b.id, '2\nk', 'each store its own number');
    t.equal(cache.get(store, 'k'), a, "the first store's answer stays");
    t.equal(cache.get(other, 'k'), b);
    t.equal(cache.stats().bytes, a.bytes + b.bytes);
  });

  t.test('an answer that fills the budget exactly is kept; one byte over is sent, not kept', async (t) => {
    const exact = new AnswerCache(cost('k', 100));
    const kept = exact.keep(store, 'k', 1, 0, text(100));
    t.equal(kept.bytes, cost('k', 100));
    t.same(exact.stats(), { bytes: cost('k', 100), entries: 1, budgetBytes: cost('k', 100) });
    const small = new AnswerCache(cost('k', 100) - 1);
    const sent = small.keep(store, 'k', 1, 0, text(100));
    t.equal(sent.bytes, 0, 'not counted');
    t.equal(small.get(store, 'k'), undefined, 'not kept');
    t.same(small.stats(), { bytes: 0, entries: 0, budgetBytes: cost('k', 100) - 1 });
  });

  t.test('two answers that fill the budget exactly are both kept; a third drops only the oldest', async (t) => {
    const cache = new AnswerCache(2 * cost('a', 100));
    cache.keep(store, 'a', 1, 0, text(100));
    cache.keep(store, 'b', 1, 0, text(100));
    t.ok(cache.get(store, 'a') && cache.get(store, 'b'), 'both kept at exactly the budget');
    cache.keep(store, 'c', 1, 0, text(100)); // a, b: a read first, so a is the least recently used
    t.equal(cache.get(store, 'a'), undefined, 'a went');
    t.ok(cache.get(store, 'b') && cache.get(store, 'c'), 'b and c stay');
    t.same(cache.stats(), { bytes: 2 * cost('a', 100), entries: 2, budgetBytes: 2 * cost('a', 100) });
    // a larger answer drops as many as it needs, oldest first
    cache.keep(store, 'd', 1, 0, text(150)); // order b, c: both must go for 150 + 100 > 200
    t.equal(cache.get(store, 'b'), undefined);
    t.ok(cache.get(store, 'c') === undefined && cache.get(store, 'd'));
    t.same(cache.stats(), { bytes: cost('d', 150), entries: 1, budgetBytes: 2 * cost('a', 100) });
  });

  t.test('a key kept again replaces its answer and its bytes, and is the most recent', async (t) => {
    const cache = new AnswerCache(2 * cost('a', 100));
    cache.keep(store, 'a', 1, 0, text(100));
    cache.keep(store, 'b', 1, 0, text(100));
    const again = cache.keep(store, 'a', 2, 0, text(50));
    t.equal(cache.get(store, 'a'), again);
    t.same(cache.stats(), { bytes: cost('a', 100) + cost('a', 50), entries: 2, budgetBytes: 2 * cost('a', 100) });
    cache.keep(store, 'c', 1, 0, text(75)); // order b, a: b goes, a (replaced last) stays
    t.equal(cache.get(store, 'b'), undefined, 'b, older than the replaced a, went');
    t.ok(cache.get(store, 'a') && cache.get(store, 'c'));
  });

  t.test(
    'compressed bytes: counted, replaced per value, never kept past the budget or for a gone answer',
    async (t) => {
      const budget = cost('a', 100) + 100;
      const cache = new AnswerCache(budget);
      const a = cache.keep(store, 'a', 1, 0, text(100));
      cache.keepEncoded(a, 'gzip', { encoding: 'gzip', bytes: Buffer.alloc(60) });
      t.equal(a.bytes, cost('a', 100) + 60);
      cache.keepEncoded(a, 'gzip', { encoding: 'gzip', bytes: Buffer.alloc(100) }); // replaced: fills exactly
      t.equal(a.encoded.get('gzip')?.bytes.length, 100, 'bytes that fill the budget exactly are kept');
      t.same(cache.stats(), { bytes: budget, entries: 1, budgetBytes: budget });
      cache.keepEncoded(a, 'br', { encoding: 'br', bytes: Buffer.alloc(1) });
      t.equal(a.encoded.get('br'), undefined, 'one byte past the budget: not kept');
      t.equal(a.encoded.get('gzip')?.bytes.length, 100, 'the bytes kept before stay');
      t.same(cache.stats(), { bytes: budget, entries: 1, budgetBytes: budget });

      const gone = new AnswerCache(1 << 20);
      const dropped = gone.keep(store, 'a', 1, 0, text(10));
      gone.drop(store);
      gone.keepEncoded(dropped, 'gzip', { encoding: 'gzip', bytes: Buffer.alloc(10) });
      t.equal(dropped.encoded.size, 0, 'a dropped answer gets no bytes');
      t.same(gone.stats(), { bytes: 0, entries: 0, budgetBytes: 1 << 20 });
    },
  );

  t.test('at most 8 Accept-Encoding values an answer: the ninth starts again from none', async (t) => {
    const cache = new AnswerCache(1 << 20);
    const a = cache.keep(store, 'a', 1, 0, text(10));
    const base = a.bytes;
    for (let i = 1; i <= 8; i++) cache.keepEncoded(a, `v${i}`, { encoding: 'gzip', bytes: Buffer.alloc(10) });
    t.equal(a.encoded.size, 8, 'eight kept');
    t.equal(a.bytes, base + 80);
    cache.keepEncoded(a, 'v9', { encoding: 'gzip', bytes: Buffer.alloc(5) });
    t.same([...a.encoded.keys()], ['v9'], 'the ninth: the others dropped');
    t.equal(a.bytes, base + 5, 'and their bytes with them');
    t.equal(cache.stats().bytes, base + 5);
  });

  t.test('bytes make room by dropping the least recently used other answer; it becomes the most recent', async (t) => {
    const budget = 2 * cost('a', 100) + 50;
    const cache = new AnswerCache(budget);
    const a = cache.keep(store, 'a', 1, 0, text(100));
    cache.keep(store, 'b', 1, 0, text(100));
    cache.keepEncoded(a, 'gzip', { encoding: 'gzip', bytes: Buffer.alloc(50) }); // fits exactly: nothing goes
    t.ok(cache.get(store, 'b'), 'b stays when the bytes fit exactly');
    t.equal(a.encoded.get('gzip')?.bytes.length, 50);
    // order a, b (b was read): bytes for a make a the most recent first, so b is the one to go
    cache.keepEncoded(a, 'br', { encoding: 'br', bytes: Buffer.alloc(60) });
    t.equal(cache.get(store, 'b'), undefined, 'b went for them');
    t.equal(a.encoded.get('br')?.bytes.length, 60, 'a keeps them');
    t.same(cache.stats(), { bytes: cost('a', 100) + 110, entries: 1, budgetBytes: budget });
    // the answer's own bytes never make room by dropping it
    const only = new AnswerCache(cost('a', 100) + 20);
    const alone = only.keep(store, 'a', 1, 0, text(100));
    only.keepEncoded(alone, 'gzip', { encoding: 'gzip', bytes: Buffer.alloc(20) });
    t.equal(only.get(store, 'a'), alone, 'alone in the cache, it stays');
    t.equal(alone.bytes, cost('a', 100) + 20);
  });

  t.test("a drop frees one store's answers, and the store keeps answers again after it", async (t) => {
    const cache = new AnswerCache(1 << 20);
    const unknown = app.sandboxes.get('unit-c').store; // never seen by this cache
    cache.keep(store, 'a', 1, 0, text(10));
    cache.keep(store, 'b', 1, 0, text(10));
    const kept = cache.keep(other, 'a', 1, 0, text(10));
    cache.drop(unknown);
    t.equal(cache.stats().entries, 3, 'a store never seen: nothing dropped');
    cache.drop(store);
    t.same(cache.stats(), { bytes: kept.bytes, entries: 1, budgetBytes: 1 << 20 });
    t.equal(cache.get(store, 'a'), undefined);
    t.equal(cache.get(other, 'a'), kept);
    const back = cache.keep(store, 'a', 2, 0, text(10));
    t.equal(cache.get(store, 'a'), back, 'kept again after the drop');
    cache.drop(store);
    t.equal(cache.get(store, 'a'), undefined, 'and dropped again');
    t.same(cache.stats(), { bytes: kept.bytes, entries: 1, budgetBytes: 1 << 20 });
  });

  t.test('the index of answers by store holds only kept answers: an evicted one leaves it', async (t) => {
    const cache = new AnswerCache(2 * cost('a', 100));
    // the private index (ids by store) has no public view; it must not grow with answers evicted long ago
    const index = () => [...cache['byStore']].map(([n, ids]) => [n, [...ids]]);
    cache.keep(store, 'a', 1, 0, text(100));
    cache.keep(store, 'b', 1, 0, text(100));
    cache.keep(other, 'a', 1, 0, text(100)); // store's a goes
    t.same(index(), [
      [1, ['1\nb']],
      [2, ['2\na']],
    ]);
    cache.keep(other, 'b', 1, 0, text(100)); // store's b goes: nothing of store is left
    t.same(index(), [[2, ['2\na', '2\nb']]], "the store's entry goes with its last answer");
    cache.keep(other, 'a', 2, 0, text(100)); // replaced
    t.same(index(), [[2, ['2\nb', '2\na']]]);
  });
});
