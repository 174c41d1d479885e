// The journal against a reference model: the last `limit` records, completed the straightforward way. Random records
// (multi-byte text, texts of several KiB, Buffer answers, empty texts), clears and filtered reads; reading back every
// kept record after every operation fails if the journal ever drops, reorders or mixes up a kept record.
import t from 'tap';
import fc from 'fast-check';
import {
  Journal,
  keptChars,
  keptHeaderNameChars,
  keptHeaderValueChars,
  keptUrlChars,
  keptText,
  redactBody,
  redactHeaders,
  type JournalFacts,
  type JournalTexts,
} from '../../src/store/journal.js';
import { TextChunks, type TextPlace } from '../../src/store/text-chunks.js';
import { build, signIn } from '../helper.js';
import type { JournalFilter } from '../../src/schemas/control.js';
import type { JournalEntry } from '../../src/schemas/control.js';

type ModelRecord = { id: number; entry: JournalEntry };

/**
 * What a text reads back as: its UTF-8 bytes decoded (the journal keeps texts as UTF-8, so a lone surrogate, which
 * no text from the wire holds, reads back as U+FFFD).
 */
const utf8 = (s: string): string => Buffer.from(s, 'utf8').toString('utf8');
const parse = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

/** A text past `max` characters: its first `max` and a note of its length (issue 54: URL and headers bounded). */
const cutAt = (s: string, max: number) =>
  s.length <= max ? s : `${s.slice(0, max)}…[cut: ${s.length} characters in all]`;

/** The entry the journal must give back for a record, built without the ring. */
function expectedEntry(id: number, f: JournalFacts, x: JournalTexts): JournalEntry {
  const url = utf8(cutAt(x.url, keptUrlChars));
  const routedUrl = x.routedUrl === x.url || x.routedUrl === '' ? url : utf8(cutAt(x.routedUrl, keptUrlChars));
  const q = routedUrl.indexOf('?');
  const headers: Record<string, string> = {};
  for (let i = 0; i + 1 < x.rawHeaders.length; i += 2) {
    const name = utf8(cutAt(x.rawHeaders[i]!, keptHeaderNameChars)).toLowerCase();
    const value = utf8(cutAt(x.rawHeaders[i + 1]!, keptHeaderValueChars));
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  const body = utf8(x.requestBody ?? '');
  const response = x.response === undefined ? '' : utf8(x.response);
  return {
    id,
    at: new Date(f.atMs).toISOString(),
    method: f.method,
    url,
    path: q < 0 ? routedUrl : routedUrl.slice(0, q),
    operationId: f.operationId,
    status: f.status,
    durationMs: f.durationMs,
    scenario: f.scenario,
    stubbed: f.stubbed,
    requestHeaders: redactHeaders(headers),
    ...(body !== '' ? { requestBody: redactBody(parse(body)) } : {}),
    ...(response !== '' ? { responseBody: redactBody(parse(response)) } : {}),
  };
}

/** The filters as documented, on the model's entries (oldest first). */
function modelMatching(records: ModelRecord[], f: JournalFilter): ModelRecord[] {
  const sinceMs = f.since === undefined ? undefined : Date.parse(f.since);
  return records.filter(
    ({ entry: e }) =>
      (f.operationId === undefined || e.operationId === f.operationId) &&
      (f.method === undefined || e.method === f.method.toUpperCase()) &&
      (f.path === undefined || e.path === f.path || (f.path.endsWith('*') && e.path.startsWith(f.path.slice(0, -1)))) &&
      (f.status === undefined || e.status === f.status) &&
      (sinceMs === undefined || Date.parse(e.at) >= sinceMs),
  );
}

// ---- generators

const special = fc.constantFrom(
  'ж',
  'Ё',
  'я',
  'ß',
  '€',
  '😀',
  '\ud83d',
  '\udc00',
  '/',
  '?',
  '*',
  '=',
  '&',
  ' ',
  'a',
  'Z',
  '0',
  '"',
);
/** Short text: ASCII, Cyrillic, 4-byte characters, lone surrogates; no NUL or newline (they cannot occur in the real texts). */
const word = fc
  .string({ unit: fc.oneof(special, fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })), maxLength: 12 })
  .map((s) => s.replace(/[\u0000\n]/g, '_'));
/** Text of any size up to several KiB (a short text repeated). */
const text = fc.oneof(
  { weight: 30, arbitrary: word },
  { weight: 15, arbitrary: fc.tuple(word, fc.integer({ min: 0, max: 100 })).map(([w, n]) => w.repeat(n)) },
  { weight: 2, arbitrary: fc.tuple(word, fc.integer({ min: 100, max: 1500 })).map(([w, n]) => w.repeat(n)) },
  { weight: 5, arbitrary: fc.constant('') },
);
const jsonText = fc.oneof(
  fc.json({ maxDepth: 3, stringUnit: fc.oneof(special, fc.constantFrom('a', 'b', 'c')) }),
  text.map((s) => JSON.stringify({ name: s, password: 'hunter2', items: [s.slice(0, 5), { token: 't' }] })),
);

const facts: fc.Arbitrary<JournalFacts> = fc.record({
  atMs: fc.integer({ min: 1_700_000_000_000, max: 1_700_000_100_000 }),
  method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE'),
  operationId: fc.constantFrom(null, 'getProfile', 'listNews', 'createIdea'),
  status: fc.constantFrom(200, 201, 204, 401, 404, 500),
  durationMs: fc.integer({ min: 0, max: 100_000 }).map((n) => n / 100),
  scenario: fc.constantFrom(null, 'default', 'slow-network'),
  stubbed: fc.boolean(),
});

const headerName = fc.constantFrom(
  'Host',
  'Accept',
  'Authorization',
  'X-Service-Session-Code',
  'User-Agent',
  'X-Custom',
  'x-custom',
  'Cookie',
);
const texts: fc.Arbitrary<JournalTexts> = fc
  .record({
    prefix: fc.constantFrom('', '/sandbox/qa', '/мок'),
    path: fc
      .array(fc.oneof(fc.constantFrom('mobile', 'news', 'ideas', 'профиль'), word), { minLength: 0, maxLength: 4 })
      .map((p) => p.join('/')),
    query: fc.option(text, { nil: undefined }),
    headers: fc.array(fc.tuple(headerName, text), { maxLength: 6 }),
    requestBody: fc.option(jsonText, { nil: undefined }),
    response: fc.oneof(fc.constant(undefined), jsonText),
  })
  .map(({ prefix, path, query, headers, requestBody, response }) => {
    const routedUrl = `/${path}${query === undefined ? '' : `?${query}`}`;
    return { url: `${prefix}${routedUrl}`, routedUrl, rawHeaders: headers.flat(), requestBody, response };
  });

const filter: fc.Arbitrary<JournalFilter> = fc.record(
  {
    operationId: fc.option(fc.constantFrom('getProfile', 'listNews', 'createIdea', 'other'), { nil: undefined }),
    method: fc.option(fc.constantFrom('get', 'GET', 'Post', 'delete', 'PATCH'), { nil: undefined }),
    path: fc.option(fc.constantFrom('/', '/mobile', '/mobile*', '/news/', '/*', '*', '/профиль*', '/ideas/news'), {
      nil: undefined,
    }),
    status: fc.option(fc.constantFrom(200, 404, 500), { nil: undefined }),
    since: fc.option(
      fc.integer({ min: 1_700_000_000_000, max: 1_700_000_100_000 }).map((ms) => new Date(ms).toISOString()),
      { nil: undefined },
    ),
    limit: fc.option(fc.integer({ min: 0, max: 30 }), { nil: undefined }),
  },
  { requiredKeys: [] },
);

type Op =
  | { kind: 'add'; facts: JournalFacts; texts: JournalTexts }
  | { kind: 'clear' }
  | { kind: 'read'; filter: JournalFilter };
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 30, arbitrary: fc.tuple(facts, texts).map(([f, x]): Op => ({ kind: 'add', facts: f, texts: x })) },
  { weight: 1, arbitrary: fc.constant<Op>({ kind: 'clear' }) },
  { weight: 4, arbitrary: filter.map((f): Op => ({ kind: 'read', filter: f })) },
);

// ---- the model-based property

const seen = { dropped: 0 };

/** Runs the operations on a journal and on the model, comparing after each. */
function run(limit: number, ops: Op[]): void {
  const journal = new Journal(limit);
  let model: ModelRecord[] = [];
  let nextId = 1;
  let lastId = 0;
  for (const o of ops) {
    if (o.kind === 'add') {
      // about half the requests come again at once, as a client repeating a call does: equal headers in a new
      // array, the same kept answer Buffer (shared by the journal, not copied)
      const times = o.facts.status % 2 === 0 ? 2 : 1;
      for (let k = 0; k < times; k++) {
        const expected = expectedEntry(nextId, o.facts, o.texts);
        if (limit > 0 && journal.size() === limit) seen.dropped++;
        journal.add({ ...o.facts }, { ...o.texts, rawHeaders: [...o.texts.rawHeaders] });
        if (limit > 0) {
          model.push({ id: nextId, entry: expected });
          nextId++;
          if (model.length > limit) model = model.slice(model.length - limit);
        }
      }
    } else if (o.kind === 'clear') {
      journal.clear();
      model = [];
    }
    const f = o.kind === 'read' ? o.filter : {};
    // every kept record reads back exactly
    if (journal.size() !== model.length) throw new Error(`size ${journal.size()} != ${model.length}`);
    if (journal.size() > Math.max(limit, 0)) throw new Error('more than limit');
    const all = journal.list({ limit: limit + 1 });
    const want = model
      .slice()
      .reverse()
      .map((r) => r.entry);
    if (JSON.stringify(all) !== JSON.stringify(want)) {
      throw new Error(`entries differ:\n${JSON.stringify(all).slice(0, 2000)}\n${JSON.stringify(want).slice(0, 2000)}`);
    }
    for (let i = 1; i < all.length; i++)
      if (all[i]!.id >= all[i - 1]!.id) throw new Error('ids do not decrease newest first');
    if (all[0] !== undefined) {
      if (all[0].id < lastId) throw new Error('ids went back');
      lastId = all[0].id;
    }
    const matched = modelMatching(model, f).reverse();
    const listed = journal.list(f);
    const wantListed = matched.slice(0, f.limit ?? 100).map((r) => r.entry);
    if (JSON.stringify(listed) !== JSON.stringify(wantListed)) throw new Error(`list(${JSON.stringify(f)}) differs`);
    if (journal.count(f) !== matched.length)
      throw new Error(`count(${JSON.stringify(f)}) ${journal.count(f)} != ${matched.length}`);
  }
}

t.test('the journal against the model: oldest dropped, filters, clear', (t) => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 40 }),
      fc.array(op, { minLength: 1, maxLength: 200, size: 'max' }),
      (limit, ops) => run(limit, ops),
    ),
    { numRuns: 60, endOnFailure: true },
  );
  t.ok(seen.dropped > 50, `full journals dropped their oldest entry (${seen.dropped} times)`);
  t.end();
});

t.test('a disabled journal (limit 0) keeps nothing', (t) => {
  fc.assert(
    fc.property(fc.array(op, { maxLength: 30 }), (ops) => run(0, ops)),
    { numRuns: 30, endOnFailure: true },
  );
  const j = new Journal(0);
  t.equal(j.enabled, false);
  j.add(
    { atMs: 0, method: 'GET', operationId: null, status: 200, durationMs: 1, scenario: null, stubbed: false },
    { url: '/a', routedUrl: '/a', rawHeaders: [] },
  );
  t.equal(j.size(), 0);
  t.same(j.list(), []);
  t.equal(j.count(), 0);
  t.end();
});

// ---- deterministic cases

const at0 = 1_700_000_000_000;
const f0 = (i: number): JournalFacts => ({
  atMs: at0 + i,
  method: i % 2 ? 'POST' : 'GET',
  operationId: i % 3 ? 'listNews' : null,
  status: 200 + (i % 5),
  durationMs: i / 4,
  scenario: 'default',
  stubbed: i % 2 === 0,
});

t.test('one-time passwords and PINs are redacted, parsed or cut, by the rule of recordings', (t) => {
  const j = new Journal(2);
  const body = '{"otp":"482913","pin":"7731","PIN":7731,"smsOtpCode":"1","name":"n"}';
  j.add(f0(0), { url: '/x', routedUrl: '/x', rawHeaders: [], requestBody: body });
  t.same(j.list()[0]!.requestBody, {
    otp: '[redacted]',
    pin: '[redacted]',
    PIN: '[redacted]',
    smsOtpCode: '[redacted]',
    name: 'n',
  });
  j.add(f0(1), { url: '/x', routedUrl: '/x', rawHeaders: [], requestBody: '{"name":"n","otp":"4829' });
  t.equal(j.list()[0]!.requestBody, '{"name":"n","otp":"[redacted]"', 'a cut text: masked');
  t.same(
    redactBody({ user: { otp: 1, pinned: true }, pin: '1' }),
    { user: { otp: '[redacted]', pinned: true }, pin: '[redacted]' },
    'at any depth; `pinned` is not a PIN',
  );
  t.end();
});

t.test('ids increase and go on after clear; secrets are redacted when read', (t) => {
  const j = new Journal(3);
  const x = (s: string): JournalTexts => ({
    url: s,
    routedUrl: s,
    rawHeaders: ['Authorization', 'secret'],
    requestBody: '{"password":"p","name":"n"}',
  });
  for (let i = 0; i < 5; i++) j.add(f0(i), x(`/a/${i}`));
  t.same(
    j.list().map((e) => e.id),
    [5, 4, 3],
  );
  t.equal(j.list()[0]!.requestHeaders.authorization, '[redacted]');
  t.same(j.list()[0]!.requestBody, { password: '[redacted]', name: 'n' });
  j.clear();
  t.equal(j.size(), 0);
  t.same(j.list(), []);
  t.equal(j.count(), 0);
  j.add(f0(6), x('/b'));
  t.same(
    j.list().map((e) => [e.id, e.url]),
    [[6, '/b']],
    'ids go on after clear',
  );
  t.end();
});

t.test('limit 1 keeps exactly the newest record', (t) => {
  const j = new Journal(1);
  for (let i = 0; i < 50; i++) {
    const s = `/r/${i}/${'ж'.repeat(i)}`;
    j.add(f0(i), { url: s, routedUrl: s, rawHeaders: [], response: '{"a":1}' });
    t.equal(j.size(), 1);
    const [e] = j.list();
    t.equal(e!.id, i + 1, 'the newest id', { diagnostic: false });
    t.equal(e!.url, s, 'its url', { diagnostic: false });
    t.same(e!.responseBody, { a: 1 }, 'its answer', { diagnostic: false });
  }
  t.end();
});

t.test('a journal holds no more than its limit, however many requests', (t) => {
  const j = new Journal(100);
  for (let i = 0; i < 10_000; i++) j.add(f0(i), { url: `/x/${i}`, routedUrl: `/x/${i}`, rawHeaders: [] });
  t.equal(j.size(), 100);
  const inside = j as unknown as { slots: unknown[]; texts: TextChunks };
  t.equal(inside.slots.length, 100, 'the array stays at the limit');
  t.ok(inside.texts.heldBytes() <= 64 * 1024, `the texts' bytes stay bounded: ${inside.texts.heldBytes()} bytes`);
  t.same(
    j.list({ limit: 2 }).map((e) => e.url),
    ['/x/9999', '/x/9998'],
  );
  t.end();
});

t.test('texts kept as bytes read back as written, and a ring of them holds a bounded number of bytes', (t) => {
  const places = 50;
  const part = fc.oneof(
    fc.string({ unit: 'grapheme', maxLength: 40 }),
    fc.string({ unit: 'grapheme', minLength: 2000, maxLength: 9000 }),
    fc.constant(''),
  );
  fc.assert(
    fc.property(fc.array(fc.array(part, { maxLength: 6 }), { minLength: 1, maxLength: 400 }), (texts) => {
      const store = new TextChunks();
      const ring: Array<{ place: TextPlace; parts: string[] }> = [];
      let peakLive = 0;
      for (const [i, parts] of texts.entries()) {
        const at = i % places;
        const old = ring[at];
        if (old) store.drop(old.place);
        const place: TextPlace = { chunk: null, start: 0, length: 0 };
        store.write(place, parts);
        ring[at] = { place, parts };
        const live = ring.reduce((n, r) => n + r.place.length, 0);
        peakLive = Math.max(peakLive, live);
        for (const r of ring) if (JSON.stringify(store.read(r.place)) !== JSON.stringify(r.parts)) return false;
      }
      // what is held: at most twice the most ever kept at once, and the chunks it started with
      return store.heldBytes() <= 2 * peakLive + 2 * 64 * 1024;
    }),
    { numRuns: 40, seed: 20261126 },
  );
  t.pass('every kept text read back as written; held bytes bounded');
  t.end();
});

// ---- bodies kept as text (issue 31): bounded, and read back without ever parsing something too deep to serialize

t.test('a body is kept as its text, cut at keptChars with a note of its length', (t) => {
  t.equal(keptText('{"a":1}'), '{"a":1}', 'a short text is kept as it is');
  const long = `{"password":"hunter2","pad":"${'x'.repeat(100_000)}"}`;
  const kept = keptText(long);
  t.equal(kept, `${long.slice(0, keptChars)}…[cut: ${long.length} characters in all]`);
  t.end();
});

t.test('what cannot be parsed back safely is given as text, its secrets masked', (t) => {
  const j = new Journal(10);
  const add = (requestBody: string) => {
    j.add(f0(0), { url: '/x', routedUrl: '/x', rawHeaders: [], requestBody });
    return j.list({ limit: 1 })[0]!.requestBody;
  };
  const deep = keptText(`${'['.repeat(50_000)}${']'.repeat(50_000)}`);
  t.equal(add(deep), deep, 'a body nested thousands deep (cut or not) is its text');
  t.doesNotThrow(() => JSON.stringify(j.list()), 'and the journal serializes');
  const nested = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
  t.same(add(`{"a":${nested(63)}}`), { a: JSON.parse(nested(63)) }, '64 levels parse');
  t.type(add(`{"a":${nested(64)}}`), 'string', '65 levels are text');
  t.match(
    add(keptText(`{"password":"hunter2","code": 123456,"token":"abc\\"def","x":"${'y'.repeat(9000)}"}`)),
    /^\{"password":"\[redacted\]","code":"\[redacted\]","token":"\[redacted\]","x":"y+…\[cut: \d+ characters/,
    'a cut body: secrets masked in the text',
  );
  t.equal(add('{"name":"n","password":"hunt'), '{"name":"n","password":"[redacted]"', 'a secret cut short is masked');
  t.equal(add('{"password":"p", oops}'), '{"password":"[redacted]", oops}', 'malformed JSON: masked text');
  t.same(add('{"password":"p","name":"n"}'), { password: '[redacted]', name: 'n' }, 'whole JSON: parsed and redacted');
  t.end();
});

t.test('the journal keeps the body as it arrived, not as validation left it', async (t) => {
  const app = await build(t);
  const text = '{"email":"nobody@example.test","password":"p","extra":[1,2]}';
  const bodyOf = async (operationId: string) => {
    const entries = (await app.inject({ url: `/__admin/requests?operationId=${operationId}` })).json();
    return (entries as Array<{ requestBody: unknown }>)[0]!.requestBody;
  };
  const json = { 'content-type': 'application/json' };
  await app.inject({ method: 'POST', url: '/mobile/request-two-factor', headers: json, payload: text });
  t.same(
    await bodyOf('mobileRequestTwoFactor'),
    { email: 'nobody@example.test', password: '[redacted]', extra: [1, 2] },
    'the field validation removed is there',
  );
  // a body of another type, read as text by its route's own parser (the set-user-list quirk)
  const s = await signIn(app);
  const plain = { ...s.headers, 'content-type': 'text/plain' };
  await app.inject({ method: 'POST', url: '/user-list-cache/set-user-list', headers: plain, payload: 'key=k1' });
  t.equal(await bodyOf('userListCacheSet'), 'key=k1', 'a text/plain body as it came');
});

t.test('an admin body nested past 64 levels is a 400 naming the depth, before any route walks it', async (t) => {
  const app = await build(t);
  const deep = `{"seed":1,"x":${'['.repeat(5000)}${']'.repeat(5000)}}`;
  const res = await app.inject({
    method: 'POST',
    url: '/__admin/reset',
    headers: { 'content-type': 'application/json' },
    payload: deep,
  });
  t.equal(res.statusCode, 400);
  t.match(res.json(), { message: /nests 5001 levels deep; admin bodies may nest 64/ });
  const ok = await app.inject({ method: 'POST', url: '/__admin/reset', payload: { seed: 1, x: [[['"]"']]] } });
  t.equal(ok.statusCode, 200, 'a shallow body with brackets inside strings is fine');
});
