// A sandbox's WireMock stubs (src/wiremock/state.ts): a value that changes only by replacement, undone with the
// sandbox's unit of work, bounded, put back by a reset, and under --data written and read back across a restart.
import t from 'tap';
import { writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from '../helper.js';
import { tempDir } from '../support/temp-dir.js';
import { parseMapping, type StubMapping } from '../../src/wiremock/mapping.js';
import { WireMockStubs } from '../../src/wiremock/state.js';

let n = 0;
const newId = () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
function mapping(json: object): StubMapping {
  const parsed = parseMapping(json, newId);
  if (!('mapping' in parsed)) throw new Error(JSON.stringify(parsed.errors));
  return parsed.mapping;
}

t.test('a value: each change is a new one, the old one unchanged', async (t) => {
  const a = mapping({ request: { urlPath: '/a' }, response: { status: 200 } });
  const b = mapping({ priority: 1, request: { urlPath: '/b' }, response: { status: 201 } });
  const one = WireMockStubs.empty.with(a);
  const two = one.with(b);
  t.equal(WireMockStubs.empty.mappings.length, 0);
  t.same(
    one.mappings.map((m) => m.id),
    [a.id],
  );
  t.same(
    two.servingOrder.map((m) => m.id),
    [b.id, a.id],
    'priority 1 before the default 5',
  );
  const replaced = two.with({ ...a, response: { status: 418 } });
  t.same(
    replaced.mappings.map((m) => m.response.status),
    [418, 201],
    'a replaced mapping keeps its place',
  );
  t.equal(two.get(a.id.toUpperCase())?.response.status, 200, 'ids compare without case');
  t.equal(two.filter((m) => m.id !== a.id).mappings.length, 1);
  t.equal(
    two.filter(() => true),
    two,
    'a filter keeping all is the same value',
  );
  t.equal(replaced.bytes, two.bytes - JSON.stringify(a).length + JSON.stringify(replaced.get(a.id)).length);
});

t.test('scenario states: Started is not kept; the list names every state a mapping mentions', async (t) => {
  const m = mapping({
    scenarioName: 'cart',
    requiredScenarioState: 'Started',
    newScenarioState: 'full',
    request: { urlPath: '/cart' },
  });
  const stubs = WireMockStubs.empty.with(m);
  const full = stubs.withState('cart', 'full');
  t.equal(stubs.stateOf('cart'), 'Started');
  t.equal(full.stateOf('cart'), 'full');
  t.equal(full.withState('cart', 'full'), full, 'the same state is the same value');
  t.equal(full.withState('cart', 'Started').states.size, 0);
  t.equal(full.withStatesReset().states.size, 0);
  t.same(full.scenarios(), [{ id: 'cart', name: 'cart', state: 'full', possibleStates: ['Started', 'full'] }]);
  t.same(WireMockStubs.fromStored(full.toStored()), full, 'written and read back, the same');
});

t.test('bounds: the count and the bytes, each naming its flag', async (t) => {
  const stubs = WireMockStubs.of([mapping({ request: { urlPath: '/a' } }), mapping({ request: { urlPath: '/b' } })]);
  t.equal(WireMockStubs.overLimits(stubs, { maxMappings: 2, maxBytes: 1e6 }), null, 'at the count: accepted');
  t.match(WireMockStubs.overLimits(stubs, { maxMappings: 1, maxBytes: 1e6 }), /--wiremock-max-mappings/);
  t.equal(WireMockStubs.overLimits(stubs, { maxMappings: 9, maxBytes: stubs.bytes }), null, 'at the bytes');
  t.match(WireMockStubs.overLimits(stubs, { maxMappings: 9, maxBytes: stubs.bytes - 1 }), /--wiremock-sandbox-kb/);
});

t.test('a stored mapping that no longer parses is a problem naming it', async (t) => {
  const problem = WireMockStubs.fromStored({ mappings: [{ request: { urlPath: '/a' } }, { nope: 1 }], scenarios: {} });
  t.match(problem, { problem: /mapping 1: \/nope/ });
});

t.test('in a sandbox: undone with its unit of work, put back by a reset', async (t) => {
  const app = await build(t);
  const sandbox = app.sandboxes.get('wm-undo');
  const m = mapping({ request: { urlPath: '/a' } });
  const work = sandbox.begin();
  sandbox.wiremock = sandbox.wiremock.with(m);
  t.equal(sandbox.wiremock.mappings.length, 1);
  work.undo();
  t.equal(sandbox.wiremock, WireMockStubs.empty, 'undone: as before');
  sandbox.change(() => {
    sandbox.wiremock = sandbox.wiremock.with(m).withState('s', 'x');
  });
  t.equal(sandbox.settings().wiremock?.mappings.length, 1, 'its own: in its settings');
  app.sandboxes.reset(sandbox);
  t.equal(sandbox.wiremock, WireMockStubs.empty, 'a reset puts back the start stubs');
  t.equal(sandbox.settings().wiremock, undefined, 'and they are no longer its own');
});

t.test('under --data: written at once, read back after a restart; damaged ones stop the start', async (t) => {
  const dir = tempDir(t, 'pm-wm-state-');
  const m = mapping({
    request: { urlPath: '/json', bodyPatterns: [{ equalToJson: '{"a":1}' }] },
    response: { status: 202 },
  });
  const first = await build(t, { data: dir });
  const sandbox = first.sandboxes.get('wm-data');
  sandbox.wiremock = sandbox.wiremock.with(m).withState('cart', 'full');
  await first.close();

  const second = await build(t, { data: dir });
  const back = second.sandboxes.get('wm-data').wiremock;
  t.same(back.toStored(), { mappings: [m], scenarios: { cart: 'full' } });
  const { findStub } = await import('../../src/wiremock/match.js');
  const found = findStub(back.mappings, { method: 'GET', url: '/json', headers: {}, body: '{ "a": 1 }' }, new Map());
  t.equal(found.found?.mapping.id, m.id, 'read back ready to match (its JSON text parsed again)');
  await second.close();

  const log = join(dir, 'wm-data.log');
  writeFileSync(log, readFileSync(log, 'utf8').replace('"urlPath":"/json"', '"urlPath":"/json","bogus":1'));
  await t.rejects(build(t, { data: dir }), /sandbox wm-data: its settings hold a wiremock mapping 0: \/request\/bogus/);
});
