// The WireMock core (src/wiremock/) over the documentation's examples: parsing (and WireMock's 422 with the first
// refused field's pointer), matching with priority, scenarios, near misses, templating, bounds.
import t from 'tap';
import { Value } from '@sinclair/typebox/value';
import { evaluateJsonPath, parseJsonPath } from '../../src/wiremock/jsonpath.js';
import { parseMapping, StubMapping } from '../../src/wiremock/mapping.js';
import { findStub, matchRequest } from '../../src/wiremock/match.js';
import { drawDelay } from '../../src/wiremock/response.js';
import { formatDate, offsetDate, renderTemplate } from '../../src/wiremock/template.js';
import { coreAnswers, corpus, newId, seeded, upstreamPlaceholder } from '../support/wiremock-cases.js';

const now = new Date('2024-03-05T10:20:30.456Z');

for (const c of corpus.cases)
  t.test(`documentation example: ${c.name}`, async (t) => {
    const answers = coreAnswers(c, now);
    for (const [i, r] of c.requests.entries()) {
      const a = answers[i]!;
      if (r.expect.fault !== undefined) {
        t.equal(a.fault, r.expect.fault, `${r.method} ${r.url}: fault`);
        continue;
      }
      if (r.expect.proxied) {
        t.equal(a.proxyUrl, `${upstreamPlaceholder}${r.url}`, `${r.method} ${r.url}: forwarded`);
        continue;
      }
      t.equal(a.status, r.expect.status, `${r.method} ${r.url}: status`);
      if (r.expect.statusMessage !== undefined) t.equal(a.statusMessage, r.expect.statusMessage, `${r.url}: reason`);
      if (r.expect.body !== undefined) t.equal(a.body, r.expect.body.replace('{{year}}', '2024'), `${r.url}: body`);
      for (const [name, value] of Object.entries(r.expect.headers ?? {}))
        t.equal(a.headers.find(([n]) => n.toLowerCase() === name)?.[1], value, `${r.url}: header ${name}`);
    }
  });

t.test('accepted mappings fit the TypeBox schema; refused ones answer the 422 naming the first field', async (t) => {
  for (const c of corpus.cases)
    for (const m of c.mappings) {
      const parsed = parseMapping(m, newId);
      t.ok('mapping' in parsed && Value.Check(StubMapping, parsed.mapping), `${c.name}: fits the schema`);
    }
  for (const r of corpus.refused) {
    const parsed = parseMapping(r.mapping, newId);
    if (!('errors' in parsed)) {
      t.fail(`${r.name}: accepted`);
      continue;
    }
    t.equal(parsed.status, 422);
    const [error] = parsed.errors.errors;
    t.equal(error?.code, 10, `${r.name}: code 10`);
    t.equal(error?.source.pointer, r.pointer, `${r.name}: ${error?.detail}`);
    t.ok(error?.title && error.detail, `${r.name}: a title and a detail`);
  }
});

t.test('the first refused field is the first in the document', async (t) => {
  const parsed = parseMapping(
    { request: { urlPath: '/a', bodyPatterns: [{ equalToXml: '<a/>' }], bogus: 1 }, response: { status: 'x' } },
    newId,
  );
  t.same('errors' in parsed && parsed.errors.errors[0]?.source.pointer, '/request/bodyPatterns/0/equalToXml');
  t.match(parseMapping({ request: { urlPath: '/a' } }, newId), { mapping: { response: { status: 200 } } });
  t.match(parseMapping({ response: {} }, newId), {
    status: 422,
    errors: { errors: [{ source: { pointer: '/request' } }] },
  });
  const id = '5a9c4f9e-2a3f-4c9b-8b5c-7f6d1e2a3b4c';
  t.match(parseMapping({ id, request: {} }, newId), { mapping: { id, uuid: id } }, 'the id given is kept');
  t.match(parseMapping({ id, uuid: newId(), request: {} }, newId), { status: 422 }, 'id and uuid must agree');
  t.match(parseMapping({ newScenarioState: 'x', request: {} }, newId), { status: 422 }, 'a state needs a scenario');
  t.match(
    parseMapping({ request: { urlPattern: '((a{30}){30})' } }, newId),
    { errors: { errors: [{ detail: /instructions/ }] } },
    "a regex past RE2's program bound is refused",
  );
});

t.test('near misses rank by distance; scenarios gate matching', async (t) => {
  const mappings = ['/some/thing', '/some/thinx', '/other/place'].map((url) => {
    const p = parseMapping({ request: { method: 'GET', url } }, newId);
    if (!('mapping' in p)) throw new Error('refused');
    return p.mapping;
  });
  const states = new Map<string, string>();
  const found = findStub(mappings, { method: 'GET', url: '/some/thingy', headers: {}, body: '' }, states);
  t.notOk(found.found);
  if (!found.found) {
    t.equal(found.nearMisses[0]?.mapping.request.url, '/some/thing', 'the nearest first');
    t.ok(found.nearMisses[0]!.distance < found.nearMisses[2]!.distance);
  }
  const wrongMethod = matchRequest(mappings[0]!, { method: 'POST', url: '/some/thing', headers: {}, body: '' }, states);
  t.match(wrongMethod, { matched: false });
  t.ok(!wrongMethod.matched && wrongMethod.distance > 0 && wrongMethod.distance < 0.5, 'a wrong method is a near miss');
});

t.test('JSONPath: the documented subset, bounded', async (t) => {
  const doc = {
    store: {
      book: [
        { price: 8, title: 'a' },
        { price: 22, title: 'b' },
      ],
      bicycle: { price: 19 },
    },
  };
  const run = (e: string) => {
    const p = parseJsonPath(e);
    if ('problem' in p) throw new Error(p.problem);
    return evaluateJsonPath(p, doc);
  };
  t.same(run('$.store.book[1].title'), ['b']);
  t.same(run('$.store.book[-1].price'), [22]);
  t.same(run('$..price'), [8, 22, 19]);
  t.same(run('$.store.book[*].title'), ['a', 'b']);
  t.same(run("$.store.book[?(@.price > 10 && @.title == 'b')].title"), ['b']);
  t.same(run("$['store']['bicycle'].price"), [19]);
  t.match(parseJsonPath('$.a[?(@.b =~ /x/)]'), { problem: /expected/ });
  let deep: unknown = 1;
  for (let i = 0; i < 100_000; i++) deep = [deep];
  const p = parseJsonPath('$..*..*');
  t.equal('steps' in p && evaluateJsonPath(p, deep), null, 'a deep scan past the work bound selects nothing');
});

t.test('templates: deterministic, bounded, no prototype access', async (t) => {
  const request = { method: 'GET', url: '/a?n=3', headers: {}, body: '' };
  const context = (seed: number) => ({ now, random: seeded(seed), baseUrl: 'http://127.0.0.1:1', pathParameters: {} });
  const tpl = "{{randomValue length=12 type='ALPHANUMERIC'}} {{randomValue type='UUID'}} {{randomInt lower=1 upper=6}}";
  t.same(renderTemplate(tpl, request, context(7)), renderTemplate(tpl, request, context(7)), 'same seed, same bytes');
  t.not(
    JSON.stringify(renderTemplate(tpl, request, context(7))),
    JSON.stringify(renderTemplate(tpl, request, context(8))),
  );
  t.same(
    renderTemplate("{{now}} {{now format='epoch'}} {{now offset='3 days' format='yyyy-MM-dd'}}", request, context(1)),
    {
      text: `2024-03-05T10:20:30Z ${now.getTime()} 2024-03-08`,
    },
  );
  t.equal(formatDate(offsetDate(now, '-1 months'), "EEE, dd MMM yyyy HH:mm:ss 'GMT'"), 'Mon, 05 Feb 2024 10:20:30 GMT');
  t.match(renderTemplate('{{#each (range 1 200000)}}x{{/each}}', request, context(1)), { error: /bound/ });
  // regexExtract runs on RE2: a pattern that backtracks exponentially on JS RegExp answers at once, no match
  const aaa = { ...request, body: `${'a'.repeat(40_000)}!` };
  t.same(renderTemplate("[{{regexExtract request.body '(a+)+$'}}]", aaa, context(1)), { text: '[]' });
  t.same(renderTemplate("{{regexExtract 'id=42;x' '[0-9]+'}}", request, context(1)), { text: '42' });
  t.match(renderTemplate("{{regexExtract 'ab' 'a(?=b)'}}", request, context(1)), { error: /RE2/ });
  t.match(
    renderTemplate('{{#each (range 1 1000)}}{{#each (range 1 1000)}}x{{/each}}{{/each}}', request, context(1)),
    { error: /iterations/ },
    'nested loops count every iteration',
  );
  t.match(renderTemplate("{{randomValue length=100000000 type='NUMERIC'}}", request, context(1)), { error: /length/ });
  t.same(renderTemplate('[{{request.constructor}}][{{request.__proto__}}]', request, context(1)), { text: '[][]' });
  t.match(renderTemplate('{{#if}}', request, context(1)), { error: /./ }, 'a broken template is an error, not a throw');
});

t.test('delay distributions draw from the seeded source, within their bounds', async (t) => {
  const r = seeded(3);
  for (let i = 0; i < 200; i++) {
    const u = drawDelay({ type: 'uniform', lower: 10, upper: 20 }, r);
    t.ok(u >= 10 && u <= 20 && Number.isInteger(u));
    t.ok(drawDelay({ type: 'lognormal', median: 80, sigma: 0.4, maxValue: 200 }, r) <= 200);
  }
  t.equal(
    drawDelay({ type: 'uniform', lower: 1, upper: 100 }, seeded(9)),
    drawDelay({ type: 'uniform', lower: 1, upper: 100 }, seeded(9)),
  );
});
