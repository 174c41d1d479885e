// Scenarios defined while the mock runs (issue 34, part 1): PUT/GET/DELETE /__admin/scenarios/{name}, a scenario
// inline in PUT /__admin/scenario, checked as files are, saved with --data. All through real HTTP.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { buildApp } from '../../src/app.js';
import { AdminError, adminClient } from '../../src/client/control.js';
import { listening, stubbing } from '../support/scenario-calls.js';

t.test('define, use, replace and delete a scenario at run time', async (t) => {
  const { call, oauthList } = await listening(t);

  const created = await call('PUT', '/__admin/scenarios/qa-busy', stubbing('qa-busy', 503));
  t.equal(created.status, 201, 'a new name is created');
  t.same(created.body, { name: 'qa-busy', description: 'oauth-list answers 503', extends: [] });
  const listed = (await call('GET', '/__admin/scenarios')).body as { name: string }[];
  t.ok(
    listed.some((s) => s.name === 'qa-busy'),
    'listed beside the files',
  );
  const view = await call('GET', '/__admin/scenarios/qa-busy');
  t.equal(view.body.source, 'admin');
  t.equal(view.body.definition.stubs[0].status, 503, 'the definition as given');
  t.equal((await call('GET', '/__admin/scenarios/offline')).body.source, 'file', 'a bundled one is a file');

  t.equal(await oauthList('qa-1'), 200, 'not active yet');
  t.equal((await call('PUT', '/__admin/scenario?sandbox=qa-1', { name: 'qa-busy' })).status, 200);
  t.equal(await oauthList('qa-1'), 503, 'its stub answers');
  t.equal(await oauthList('qa-2', { 'x-mock-scenario': 'qa-busy' }), 503, 'known to x-mock-scenario');

  const replaced = await call('PUT', '/__admin/scenarios/qa-busy', stubbing('qa-busy', 429));
  t.equal(replaced.status, 200, 'an existing name is replaced');
  t.equal(await oauthList('qa-1'), 429, 'the edit takes effect on the next request');

  const inUse = await call('DELETE', '/__admin/scenarios/qa-busy');
  t.equal(inUse.status, 409, 'a sandbox is set to it');
  t.match(inUse.body.message, /in use by sandbox qa-1/);
  t.equal((await call('DELETE', '/__admin/scenarios/offline')).status, 409, "a file's scenario stays");

  await call('PUT', '/__admin/scenario?sandbox=qa-1', { name: 'default' });
  t.same((await call('DELETE', '/__admin/scenarios/qa-busy')).body, { deleted: 'qa-busy' });
  t.equal((await call('GET', '/__admin/scenarios/qa-busy')).status, 404, 'gone');
  t.equal((await call('DELETE', '/__admin/scenarios/qa-busy')).status, 404);
  t.equal(await oauthList('qa-3', { 'x-mock-scenario': 'qa-busy' }), 400, 'x-mock-scenario no longer knows it');
});

t.test('a definition over a file of the same name; deleting it brings the file back', async (t) => {
  const { call, oauthList } = await listening(t);
  await call('PUT', '/__admin/scenario?sandbox=over', { name: 'offline' });
  t.equal((await call('PUT', '/__admin/scenarios/offline', stubbing('offline', 418))).status, 200);
  t.equal((await call('GET', '/__admin/scenarios/offline')).body.source, 'admin');
  t.equal(await oauthList('over'), 418, 'the definition answers');
  t.equal((await call('DELETE', '/__admin/scenarios/offline')).status, 200, 'a file remains under it');
  t.equal((await call('GET', '/__admin/scenarios/offline')).body.source, 'file');
});

t.test('extends, and definitions refused with their JSON path (nothing changes)', async (t) => {
  const { call, oauthList } = await listening(t);
  const child = {
    name: 'qa-child',
    description: 'slow and busy',
    extends: 'qa-parent',
    latency: [{ fixedMs: 1 }],
  };
  t.equal((await call('PUT', '/__admin/scenarios/qa-child', child)).status, 400, 'its parent is unknown');
  t.equal((await call('PUT', '/__admin/scenarios/qa-parent', stubbing('qa-parent', 502))).status, 201);
  const made = await call('PUT', '/__admin/scenarios/qa-child', child);
  t.equal(made.status, 201);
  t.same(made.body.extends, ['qa-parent']);
  t.equal(await oauthList('kid', { 'x-mock-scenario': 'qa-child' }), 502, "the parent's stub applies");
  const parentInUse = await call('DELETE', '/__admin/scenarios/qa-parent');
  t.equal(parentInUse.status, 409, 'another scenario extends it');
  t.match(parentInUse.body.message, /qa-parent/);

  const refused: Array<[string, unknown, RegExp]> = [
    ['a status out of range', stubbing('qa-bad', 99), /at \/stubs\/0\/status/],
    [
      'times 0',
      { ...stubbing('qa-bad', 500), stubs: [{ operationId: 'mobileOauthList', status: 500, times: 0 }] },
      /at \/stubs\/0\/times/,
    ],
    [
      'an unknown operationId',
      { ...stubbing('qa-bad', 500), stubs: [{ operationId: 'nope', status: 500 }] },
      /at \/stubs\/0\/operationId: unknown operationId "nope"/,
    ],
    ['a misspelt field', { ...stubbing('qa-bad', 500), stubz: [] }, /stubz|additional/i],
    ['another name in the body', stubbing('qa-other', 500), /at \/name: expected "qa-bad"/],
    [
      'a regex RE2 refuses',
      {
        ...stubbing('qa-bad', 500),
        stubs: [{ operationId: 'mobileOauthList', status: 500, match: { query: { q: { regex: '(?=x)' } } } }],
      },
      /at \/stubs\/0\/match\/query\/q/,
    ],
    [
      'a body matcher on an operation without a JSON body',
      {
        ...stubbing('qa-bad', 500),
        stubs: [{ operationId: 'mobileOauthList', status: 500, match: { body: { a: 1 } } }],
      },
      /at \/stubs\/0\/match\/body: operation "mobileOauthList" takes no JSON body/,
    ],
    [
      'a body matcher on a GET',
      { ...stubbing('qa-bad', 500), stubs: [{ method: 'GET', path: '/x', status: 500, match: { body: { a: 1 } } }] },
      /at \/stubs\/0\/match\/body: a GET request carries no body/,
    ],
    ['a cycle', { name: 'qa-bad', description: 'x', extends: 'qa-bad' }, /cycle/],
    ['an unknown finding code', { ...stubbing('qa-bad', 500), findings: { off: ['nope'] } }, /at \/findings\/off\/0/],
  ];
  for (const [what, body, message] of refused) {
    const res = await call('PUT', '/__admin/scenarios/qa-bad', body);
    t.equal(res.status, 400, what);
    t.match(res.body.message, message, what);
  }
  t.equal((await call('GET', '/__admin/scenarios/qa-bad')).status, 404, 'none of them was defined');
  t.equal((await call('PUT', '/__admin/scenarios/qa-bad', '[')).status, 400, 'not an object');
});

t.test('a scenario inline in PUT /__admin/scenario', async (t) => {
  const { call, oauthList } = await listening(t);
  const set = await call('PUT', '/__admin/scenario?sandbox=inline', { scenario: stubbing('qa-inline', 504) });
  t.equal(set.status, 200);
  t.same(set.body, { sandbox: 'inline', name: 'qa-inline', description: 'oauth-list answers 504' });
  t.equal(await oauthList('inline'), 504, 'active at once');
  t.equal((await call('GET', '/__admin/scenario?sandbox=inline')).body.name, 'qa-inline');

  const bad = await call('PUT', '/__admin/scenario?sandbox=inline2', { scenario: stubbing('qa-inline2', 700) });
  t.equal(bad.status, 400);
  t.match(bad.body.message, /scenario \(inline\): at \/stubs\/0\/status/);
  t.equal((await call('GET', '/__admin/scenario?sandbox=inline2')).status, 404, 'no sandbox was made for it');
  const both = await call('PUT', '/__admin/scenario', { name: 'default', scenario: stubbing('x', 500) });
  t.equal(both.status, 400, 'a name or a scenario, not both');
  t.equal((await call('PUT', '/__admin/scenario', {})).status, 400, 'nor neither');
});

t.test('with --data, definitions and the sandboxes set to them survive a restart', async (t) => {
  const data = mkdtempSync(join(tmpdir(), 'scenario-admin-'));
  const first = await buildApp({ data });
  const base = await first.listen({ port: 0, host: '127.0.0.1' });
  const put = (path: string, body: unknown) =>
    fetch(base + path, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  t.equal((await put('/__admin/scenarios/qa-kept', stubbing('qa-kept', 503))).status, 201);
  t.equal((await put('/__admin/scenario?sandbox=kept', { name: 'qa-kept' })).status, 200);
  await first.close();

  const { call, oauthList } = await listening(t, { data });
  t.equal((await call('GET', '/__admin/scenarios/qa-kept')).body.source, 'admin', 'the definition is back');
  t.equal((await call('GET', '/__admin/scenario?sandbox=kept')).body.name, 'qa-kept', 'so is the sandbox on it');
  t.equal(await oauthList('kept'), 503, 'and its stub answers');

  const damaged = mkdtempSync(join(tmpdir(), 'scenario-admin-'));
  writeFileSync(join(damaged, 'portal-mock.scenarios.json'), JSON.stringify({ scenarios: [{ name: 'x' }] }));
  await t.rejects(
    buildApp({ data: damaged }),
    /portal-mock\.scenarios\.json: at \/scenarios\/0/,
    'a damaged file stops the start',
  );
});

t.test('the typed client: scenarioDefinitions, scenario.setInline, sandboxes.resetAll', async (t) => {
  const { app, oauthList } = await listening(t);
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  const admin = adminClient({ baseUrl: base, sandbox: 'typed' });
  t.same(await admin.scenarioDefinitions.put(stubbing('qa-typed', 503)), {
    name: 'qa-typed',
    description: 'oauth-list answers 503',
    extends: [],
  });
  t.equal((await admin.scenarioDefinitions.get('qa-typed')).source, 'admin');
  await admin.scenario.set('qa-typed');
  t.equal(await oauthList('typed'), 503);
  const refused = await admin.scenarioDefinitions.put(stubbing('qa-typed', 42)).catch((err: unknown) => err);
  t.ok(refused instanceof AdminError && refused.status === 400, 'a bad one is an AdminError, 400');
  t.equal((await admin.scenario.setInline(stubbing('qa-typed-inline', 502))).name, 'qa-typed-inline');
  t.equal(await oauthList('typed'), 502);
  const { reset } = await admin.sandboxes.resetAll({ prefix: 'typ' });
  t.same(reset, ['typed']);
  t.equal(await oauthList('typed'), 200, 'back on the start scenario');
  t.same(await admin.scenarioDefinitions.delete('qa-typed'), { deleted: 'qa-typed' });
});
