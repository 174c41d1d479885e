// Issue 54: what the journal and the findings detectors keep is bounded in bytes and holds nothing of the request.
// Each entry is measured at the bytes it takes; a journal past its byte cap, and the journals past the server's
// budget, drop their oldest entries; a kept entry or detector key copies what it keeps, so the 16 KB URLs and bodies
// a client sends do not stay alive through a slice.
import t from 'tap';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { SharedBytes } from '../../src/store/shared-bytes.js';
import { Journal, keptText, keptUrlChars, slotBytes, type JournalFacts } from '../../src/store/journal.js';
import { FindingLog, keyPart } from '../../src/store/findings.js';
import { build, json } from '../helper.js';

const facts = (i: number): JournalFacts => ({
  atMs: 1_700_000_000_000 + i,
  method: 'POST',
  operationId: 'mobileRequestTwoFactor',
  status: 400,
  durationMs: 1,
  scenario: 'default',
  stubbed: false,
});
/** The shape of the abuse: a 16 KB query, an 8 KiB body of non-Latin letters. */
const longQuery = `q=${'a'.repeat(16 * 1024 - 200)}`;
const cyrillicBody = JSON.stringify({ note: 'Жёлтый'.repeat(1400) });
const abusive = (i: number) => {
  const url = `/mobile/request-two-factor?${longQuery}&i=${i}`;
  return {
    url,
    routedUrl: url,
    rawHeaders: ['Host', '127.0.0.1', 'X-Note', 'x'.repeat(2000)],
    requestBody: keptText(cyrillicBody),
  };
};

v8.setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heapMb = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed / 1048576;
};

t.test('an entry is measured at its bytes: URL, headers and body cut, the routed URL not kept twice', (t) => {
  const j = new Journal(1000);
  j.add(facts(0), {
    url: '/sandbox/qa/x?a=1',
    routedUrl: '/x?a=1',
    rawHeaders: ['Host', 'h'],
    requestBody: '{"a":"ж"}',
  });
  // 4-byte length before each of 5 parts; "ж" is 2 bytes; the routed URL is an offset (an empty part)
  const texts = 5 * 4 + '/sandbox/qa/x?a=1'.length + 0 + '{"a":"'.length + 2 + '"}'.length + 'Host\0h'.length;
  t.equal(j.heldBytes, slotBytes + texts, 'exactly the bytes of its texts and the slot');
  t.same(j.list()[0]!.path, '/x', 'the routed path reads back');
  j.clear();
  j.add(facts(1), { ...abusive(1), rawHeaders: ['X-Note', 'x'.repeat(20_000)] });
  const [entry] = j.list();
  t.ok(entry!.url.length < keptUrlChars + 60, `the URL is cut (${entry!.url.length} characters)`);
  t.match(entry!.url, /…\[cut: \d+ characters in all\]$/);
  t.match(entry!.requestHeaders['x-note'], /^x{16384}…\[cut: 20000 characters in all\]$/, 'a header cut with a note');
  t.ok(j.heldBytes < 4200 + 16_500 + 3 * 8192 + 200, `an abusive entry takes ${j.heldBytes} bytes`);
  t.end();
});

t.test('a journal past its byte cap drops its oldest entries, never the newest', (t) => {
  const j = new Journal(1000, { maxBytes: 300_000 });
  for (let i = 0; i < 1000; i++) j.add(facts(i), abusive(i));
  t.ok(j.heldBytes <= 300_000, `held ${j.heldBytes} bytes`);
  t.ok(j.size() > 5 && j.size() < 1000, `${j.size()} entries kept`);
  const ids = j.list({ limit: 1000 }).map((e) => e.id);
  t.equal(ids[0], 1000, 'the newest is kept');
  t.same(
    ids,
    [...ids].sort((a, b) => b - a),
    'newest first, in order',
  );
  t.equal(ids.at(-1), 1000 - j.size() + 1, 'the oldest went first');
  const tiny = new Journal(10, { maxBytes: 1 });
  tiny.add(facts(0), abusive(0));
  t.equal(tiny.size(), 1, 'an entry larger than the cap is kept alone (the newest is never dropped)');
  t.end();
});

t.test('the server budget: the journal written to longest ago gives up its oldest entries first', (t) => {
  const budget = new SharedBytes<Journal>(1_000_000);
  const journals = [0, 1, 2].map(() => new Journal(1000, { budget }));
  for (let i = 0; i < 20; i++) for (const j of journals) j.add(facts(i), abusive(i));
  t.ok(budget.usedBytes <= 1_000_000, `used ${budget.usedBytes} bytes`);
  t.equal(
    budget.usedBytes,
    journals.reduce((n, j) => n + j.heldBytes, 0),
    'the budget counts what the journals hold',
  );
  const before = journals.map((j) => j.size());
  for (let i = 20; i < 60; i++) journals[2]!.add(facts(i), abusive(i)); // only the third keeps being written
  t.equal(journals[0]!.size(), 0, 'the journal written longest ago went first, whole');
  t.equal(journals[1]!.size(), 0, 'then the next');
  t.ok(journals[2]!.size() > before[2]!, `the busy one grew (${before[2]} → ${journals[2]!.size()})`);
  t.ok(budget.usedBytes <= 1_000_000);
  journals[2]!.close();
  t.equal(budget.usedBytes, 0, 'a closed journal (its sandbox gone) gives its bytes back');
  journals[2]!.add(facts(99), abusive(99));
  t.equal(journals[2]!.size(), 0, 'and keeps nothing more');
  t.end();
});

t.test('kept entries and detector keys hold nothing of the strings they came from', (t) => {
  const parent = (i: number) => `${String(i).padStart(8, '0')}${'u'.repeat(1024 * 1024)}`; // 1 MB each
  const start = heapMb();
  const j = new Journal(200);
  const log = new FindingLog(100);
  for (let i = 0; i < 200; i++) {
    const big = parent(i);
    // slices of a 1 MB string: kept as they are, each would keep its parent alive (200 MB)
    const url = `/x?${big.slice(0, 6000)}`;
    j.add(facts(i), {
      url,
      routedUrl: url,
      rawHeaders: ['X-Device', big.slice(0, 3000)],
      requestBody: big.slice(0, 9000),
    });
    log.set(`401:${keyPart(big.slice(0, 100))}|${keyPart(big.slice(0, 20_000))}`, { s: big.slice(0, 60) });
    log.set(`raw:${big.slice(0, 50_000)}`, { s: big.slice(0, 5000) });
  }
  const grown = heapMb() - start;
  t.ok(grown < 20, `the heap grew by ${grown.toFixed(1)} MB for 200 × 1 MB parents`);
  t.equal(log.remembered, 400);
  t.ok(log.get(`raw:${parent(7).slice(0, 50_000)}`), 'a long key is still found by its value');
  t.end();
});

t.test('a listed read is taken when asked: requests journaled while it is read change nothing in it', (t) => {
  // the ring of 5 is written over whole after the read is taken: a read that kept the slots would show the new ones
  const j = new Journal(5);
  for (let i = 0; i < 5; i++) j.add(facts(i), abusive(i));
  const newest = j.listed({ limit: 5 });
  const oldest = j.listed({ limit: 5 }, undefined, undefined, 'oldest');
  const asListed = j.list({ limit: 5 });
  for (let i = 5; i < 10; i++) j.add(facts(i), { ...abusive(i), requestBody: keptText(`{"other":${i}}`) });
  t.equal(newest.length, 5);
  t.same(newest.toJSON(), asListed, 'the entries as they were, newest first');
  t.same(oldest.toJSON(), asListed.slice().reverse(), 'by id, oldest first');
  const read = newest.toJSON();
  t.same(
    read.map((e) => e.id),
    [5, 4, 3, 2, 1],
  );
  t.ok(
    read.every((e) => typeof e.requestBody === 'string' && e.requestBody.startsWith('{"note":"Жёлтый')),
    'each entry with its own body, none of the newer ones',
  );
  t.end();
});

t.test('over HTTP: a journal read is streamed, the bytes JSON.stringify gives of the entries', async (t) => {
  const app = await build(t);
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const headers = { 'x-mock-sandbox': 'read', 'content-type': 'application/json' };
  for (let i = 0; i < 30; i++)
    await app.inject({ method: 'POST', url: `/mobile/request-two-factor?i=${i}`, headers, payload: cyrillicBody });
  const expected = JSON.stringify(app.sandboxes.find('read')!.journal.list({ limit: 30 }));
  const res = await fetch(`${base}/__admin/requests?limit=30`, { headers: { 'x-mock-sandbox': 'read' } });
  t.equal(res.headers.get('transfer-encoding'), 'chunked', 'streamed, not one text');
  t.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
  t.equal(await res.text(), expected);
});

t.test('over HTTP: a sandbox past --journal-sandbox-mb keeps its newest entries within it', async (t) => {
  const app = await build(t, { journalSandboxMb: 1, journalMb: 2 });
  const headers = { 'x-mock-sandbox': 'abuse', 'content-type': 'application/json' };
  for (let i = 0; i < 120; i++) {
    const res = await app.inject({
      method: 'POST',
      url: `/mobile/request-two-factor?${longQuery}`,
      headers,
      payload: cyrillicBody,
    });
    t.equal(res.statusCode < 500, true, 'answered', { diagnostic: false });
  }
  const sandbox = app.sandboxes.find('abuse')!;
  t.ok(sandbox.journal.heldBytes <= 1024 * 1024, `the journal holds ${sandbox.journal.heldBytes} bytes`);
  t.ok(sandbox.journal.size() < 120, `${sandbox.journal.size()} of 120 entries kept`);
  const count = json(await app.inject({ url: '/__admin/requests/count', headers: { 'x-mock-sandbox': 'abuse' } }));
  t.equal(count.count, sandbox.journal.size(), 'the admin count agrees');
  t.equal(
    (await app.inject({ url: '/__admin/requests?limit=1', headers: { 'x-mock-sandbox': 'abuse' } })).statusCode,
    200,
  );
});

t.test('GET /__admin/health shows the journals and the memory the budgets count', async (t) => {
  const app = await build(t, { journalSandboxMb: 1, journalMb: 2, maxMemoryMb: 4096 });
  const health = async () => json(await app.inject({ url: '/__admin/health' }));
  const before = await health();
  t.match(before.memory, { budgetBytes: 4096 * 1024 * 1024 });
  t.ok(before.memory.heldBytes >= before.memory.rssBytes * 0.5, 'held counts the resident memory');
  t.ok(before.memory.externalBytes > 0);
  t.equal(before.journals.budgetBytes, 2 * 1024 * 1024, '--journal-mb in bytes');
  for (const sandbox of ['a', 'b', 'c']) {
    const headers = { 'x-mock-sandbox': sandbox, 'content-type': 'application/json' };
    for (let i = 0; i < 60; i++)
      await app.inject({
        method: 'POST',
        url: `/mobile/request-two-factor?${longQuery}`,
        headers,
        payload: cyrillicBody,
      });
  }
  const after = await health();
  const held = ['a', 'b', 'c'].map((name) => app.sandboxes.find(name)!.journal.heldBytes);
  const sum = held.reduce((x, y) => x + y, 0) + app.sandboxes.find('default')!.journal.heldBytes;
  t.equal(after.journals.bytes, sum, 'bytes: what the journals hold, each sandbox within the server budget');
  t.ok(after.journals.bytes <= 2 * 1024 * 1024, `within --journal-mb (${after.journals.bytes})`);
  t.ok(after.journals.bytes > 1.5 * 1024 * 1024, 'three full journals reach the server budget');
  t.ok(after.journals.sandboxes >= 3, `${after.journals.sandboxes} journals hold entries`);
});
