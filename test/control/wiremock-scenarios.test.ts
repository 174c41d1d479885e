// Scenario files carry WireMock mappings (the `wiremock` key, issue 55 part 5): checked when the definition is read
// (a mapping portal-mock cannot serve refuses it, naming the JSON pointer), applied when the scenario is applied to
// a sandbox, after those of --wiremock and parents first, all or nothing with the scenario's data side; within a
// sandbox's bounds. Through real HTTP (the admin API on a listening app).
import { join } from 'node:path';
import { mkdirSync, writeFileSync } from 'node:fs';
import t, { type Test } from 'tap';
import { buildApp, type AppOptions } from '../../src/app.js';
import { ScenarioRegistry, ScenarioError } from '../../src/scenarios/registry.js';
import { WireMockStubs } from '../../src/wiremock/state.js';
import { derivedId } from '../../src/wiremock/root.js';
import { parseMapping } from '../../src/wiremock/mapping.js';
import { httpCaller, tenants } from '../helper.js';
import { tempDir } from '../support/temp-dir.js';

const put = (dir: string, path: string, value: unknown) => {
  const file = join(dir, path);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, JSON.stringify(value, null, 2));
  return file;
};
const mapping = (url: string, extra: Record<string, unknown> = {}) => ({
  request: { method: 'GET', url },
  response: { status: 200, body: url },
  ...extra,
});
const overrideId = '3f1a9c2e-7b4d-4e8f-a1b2-c3d4e5f60718';

/** A --wiremock root of two mappings (the first with a fixed id), and scenarios with mappings of their own. */
function dirs(t: Test) {
  const root = tempDir(t, 'pm-wm-root-');
  put(root, 'mappings/a.json', mapping('/root-a', { id: overrideId }));
  put(root, 'mappings/b.json', mapping('/root-b'));
  const scenarios = tempDir(t, 'pm-wm-scenarios-');
  put(scenarios, 'parent.json', { name: 'parent', description: 'p', wiremock: { mappings: [mapping('/parent')] } });
  put(scenarios, 'child.json', {
    name: 'child',
    description: 'c',
    extends: 'parent',
    // the second replaces the root's mapping of the same id, in its place
    wiremock: { mappings: [mapping('/child'), mapping('/root-a-overridden', { id: overrideId })] },
  });
  return { root, scenarios };
}

async function listening(t: Test, options: AppOptions) {
  const app = await buildApp({ logLevel: 'silent', ...options });
  t.teardown(() => app.close());
  return { app, call: httpCaller(await app.listen({ port: 0, host: '127.0.0.1' })) };
}

const urls = (stubs: WireMockStubs) => stubs.mappings.map((m) => m.request.url);

t.test("applied to a sandbox: --wiremock's, then the chain's, parents first; ids made from the scenario", async (t) => {
  const { root, scenarios } = dirs(t);
  const { app, call } = await listening(t, { wiremock: root, scenarios: [scenarios] });
  t.same(urls(app.scenarios.wiremockOf('child')), ['/root-a-overridden', '/root-b', '/parent', '/child']);
  t.same(urls(app.scenarios.wiremockOf('parent')), ['/root-a', '/root-b', '/parent']);
  t.equal(app.scenarios.wiremockOf('default'), app.wiremockRoot.stubs, "a scenario without mappings: the root's");
  t.equal(app.scenarios.wiremockOf('child').mappings[2]!.id, derivedId('scenario:parent#0'), 'id from the parent');
  t.equal(app.scenarios.wiremockOf('child').mappings[3]!.id, derivedId('scenario:child#0'));

  t.equal((await call('PUT', '/__admin/scenario?sandbox=s1', { name: 'child' })).status, 200);
  const s1 = app.sandboxes.get('s1');
  t.same(urls(s1.wiremock), ['/root-a-overridden', '/root-b', '/parent', '/child']);
  // a served stub moved a WireMock scenario; applying a scenario starts them over
  s1.wiremock = s1.wiremock.withState('flow', 'Second');
  t.equal((await call('PUT', '/__admin/scenario?sandbox=s1', { name: 'parent' })).status, 200);
  t.same(urls(app.sandboxes.get('s1').wiremock), ['/root-a', '/root-b', '/parent'], "the parent's: the child's gone");
  t.equal(app.sandboxes.get('s1').wiremock.states.size, 0, 'every WireMock scenario back in "Started"');

  t.equal((await call('PUT', '/__admin/sandboxes/s2', { scenario: 'child' })).status, 201);
  t.same(
    urls(app.sandboxes.get('s2').wiremock),
    ['/root-a-overridden', '/root-b', '/parent', '/child'],
    'made with it',
  );
  t.equal((await call('POST', '/__admin/reset?sandbox=s2')).status, 200);
  t.equal(app.sandboxes.get('s2').wiremock, app.wiremockRoot.stubs, 'reset: the start scenario, --wiremock alone');
});

t.test(
  'a definition with a mapping portal-mock cannot serve is refused, naming the pointer; nothing changes',
  async (t) => {
    const { root, scenarios } = dirs(t);
    const { app, call } = await listening(t, { wiremock: root, scenarios: [scenarios] });
    const bad = {
      name: 'bad',
      description: 'b',
      wiremock: {
        mappings: [mapping('/ok'), { request: { url: '/x', headers: { a: { equalToXml: '<a/>' } } }, response: {} }],
      },
    };
    const refused = await call('PUT', '/__admin/scenarios/bad', bad);
    t.equal(refused.status, 400);
    t.match(
      refused.body.message,
      /scenario "bad": at \/wiremock\/mappings\/1\/request\/headers\/a\/equalToXml: Unsupported by portal-mock/,
    );
    t.notOk(app.scenarios.get('bad'), 'not defined');
    const inline = await call('PUT', '/__admin/scenario?sandbox=s3', { scenario: bad });
    t.equal(inline.status, 400, 'inline, too');
    t.equal(app.sandboxes.get('s3').wiremock, app.wiremockRoot.stubs, "the sandbox keeps --wiremock's");
    const dup = await call('PUT', '/__admin/scenarios/dup', {
      name: 'dup',
      description: 'd',
      wiremock: { mappings: [mapping('/1', { id: overrideId }), mapping('/2', { id: overrideId })] },
    });
    t.equal(dup.status, 400);
    t.match(
      dup.body.message,
      /at \/wiremock\/mappings\/1\/id: Duplicate id: the id of the mapping at \/wiremock\/mappings\/0/,
    );

    const good = await call('PUT', '/__admin/scenarios/good', {
      ...bad,
      name: 'good',
      wiremock: { mappings: [mapping('/ok')] },
    });
    t.equal(good.status, 201);
    t.same(urls(app.scenarios.wiremockOf('good')), ['/root-a', '/root-b', '/ok']);
  },
);

t.test(
  'with its data side, all or nothing: a data entry that does not apply leaves the stubs as they were',
  async (t) => {
    const { root, scenarios } = dirs(t);
    const { app, call } = await listening(t, { wiremock: root, scenarios: [scenarios] });
    const broken = {
      name: 'broken',
      description: 'x',
      wiremock: { mappings: [mapping('/never')] },
      data: [{ patch: 'users', tenant: tenants.romashka, id: 'no-such-user', set: { statusText: 'x' } }],
    };
    t.equal((await call('PUT', '/__admin/scenarios/broken', broken)).status, 201);
    t.equal((await call('PUT', '/__admin/scenario?sandbox=s4', { name: 'child' })).status, 200);
    const before = app.sandboxes.get('s4').wiremock;
    const refused = await call('PUT', '/__admin/scenario?sandbox=s4', { name: 'broken' });
    t.equal(refused.status, 422);
    t.equal(app.sandboxes.get('s4').wiremock, before, 'the same stubs, not /never');
    t.equal(app.sandboxes.get('s4').scenario, 'child');
  },
);

t.test("past a sandbox's bounds with --wiremock's: refused, naming the flag", async (t) => {
  const { root, scenarios } = dirs(t);
  const failed = buildApp({ logLevel: 'silent', wiremock: root, scenarios: [scenarios], wiremockMaxMappings: 3 });
  await t.rejects(failed, {
    constructor: ScenarioError,
    message: /child\.json: at \/wiremock: .*--wiremock-max-mappings/,
  });
  const { call } = await listening(t, { wiremock: root, wiremockMaxMappings: 3 });
  const over = await call('PUT', '/__admin/scenarios/big', {
    name: 'big',
    description: 'b',
    wiremock: { mappings: [mapping('/1'), mapping('/2')] },
  });
  t.equal(over.status, 400);
  t.match(over.body.message, /at most 3 stub mappings \(--wiremock-max-mappings\); it would hold 4/);
});

t.test('the registry on its own: no --wiremock, the defaults', async (t) => {
  const { scenarios } = dirs(t);
  const registry = new ScenarioRegistry([scenarios], new Set());
  t.teardown(() => registry.close());
  t.same(urls(registry.wiremockOf('child')), ['/parent', '/child', '/root-a-overridden']);
  t.equal(registry.wiremockOf('nope'), WireMockStubs.empty);
  const parsed = parseMapping(mapping('/parent'), () => derivedId('scenario:parent#0'));
  t.same(
    registry.wiremockOf('parent').mappings,
    ['mapping' in parsed && parsed.mapping],
    'parsed as parseMapping does',
  );
});
