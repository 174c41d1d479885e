// WireMock's clients, unchanged, against portal-mock (issue 55): wiremock-rest-client and wiremock-captain from npm,
// and WireMock's own Java client from the standalone jar, each driving two sandboxes at once with the same scenario
// names. Each sandbox is a WireMock of its own at /sandbox/NAME/wiremock: its stubs, its scenario states, its journal.
import t from 'tap';
import { spawn, spawnSync } from 'node:child_process';
import { WireMockRestClient } from 'wiremock-rest-client';
import { WireMock as Captain } from 'wiremock-captain';
import { build } from '../helper.js';
import { noJarMessage, wiremockJar } from '../support/wiremock-jar.js';

const app = await build(t, { logLevel: 'silent' });
const base = await app.listen({ port: 0, host: '127.0.0.1' });
const port = Number(new URL(base).port);

async function call(path: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`${base}${path}`);
  return { status: res.status, body: await res.text() };
}

t.test('wiremock-rest-client: two sandboxes, the same scenario, states apart', async (t) => {
  // its base URL ends with a slash: the client resolves `__admin/` against it
  const clients = ['rest-a', 'rest-b'].map(
    (name) => [name, new WireMockRestClient(`${base}/sandbox/${name}/wiremock/`, { logLevel: 'silent' })] as const,
  );
  for (const [name, wm] of clients) {
    await wm.mappings.deleteAllMappings();
    for (const [required, next] of [
      ['Started', 'second'],
      ['second', undefined],
    ] as const)
      await wm.mappings.createMapping({
        scenarioName: 'login',
        requiredScenarioState: required,
        ...(next ? { newScenarioState: next } : {}),
        request: { method: 'GET', urlPath: '/profile' },
        response: { status: 200, jsonBody: { sandbox: name, state: required } },
      });
  }
  const [a, b] = clients.map(([, wm]) => wm) as [WireMockRestClient, WireMockRestClient];
  t.same(JSON.parse((await call('/sandbox/rest-a/wiremock/profile')).body), { sandbox: 'rest-a', state: 'Started' });
  t.same(JSON.parse((await call('/sandbox/rest-a/profile')).body), { sandbox: 'rest-a', state: 'second' });
  t.same(
    JSON.parse((await call('/sandbox/rest-b/wiremock/profile')).body),
    { sandbox: 'rest-b', state: 'Started' },
    "the other sandbox's scenario did not move",
  );
  t.equal((await a.mappings.getAllMappings()).mappings?.length, 2);
  t.match(await a.scenarios.getAllScenarios(), { scenarios: [{ name: 'login', state: 'second' }] });
  t.match(await b.scenarios.getAllScenarios(), { scenarios: [{ name: 'login', state: 'second' }] });
  t.match(await a.requests.getCount({ method: 'GET', urlPath: '/profile' }), { count: 2 });
  t.match(await b.requests.getCount({ method: 'GET', urlPath: '/profile' }), { count: 1 });
  await a.scenarios.resetAllScenarios();
  t.match(await a.scenarios.getAllScenarios(), { scenarios: [{ name: 'login', state: 'Started' }] });
  await a.global.resetAll();
  t.equal((await a.mappings.getAllMappings()).mappings?.length, 0, 'reset: no mappings in a');
  t.equal((await b.mappings.getAllMappings()).mappings?.length, 2, 'and b keeps its own');
});

t.test('wiremock-captain: register, call, the journal by API, unmatched', async (t) => {
  const captains = ['cap-a', 'cap-b'].map((name) => [name, new Captain(`${base}/sandbox/${name}/wiremock/`)] as const);
  for (const [name, wm] of captains) {
    await wm.clearAll();
    await wm.register(
      { method: 'POST', endpoint: '/orders', body: { item: 'pen' } },
      { status: 201, body: { sandbox: name } },
      { scenario: { scenarioName: 'order', requiredScenarioState: 'Started', newScenarioState: 'placed' } },
    );
  }
  const [, a] = captains[0]!;
  const [, b] = captains[1]!;
  const posted = await fetch(`${base}/sandbox/cap-a/wiremock/orders`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ item: 'pen' }),
  });
  t.equal(posted.status, 201);
  t.same(await posted.json(), { sandbox: 'cap-a' });
  t.equal((await call('/sandbox/cap-a/wiremock/nothing-here')).status, 404, 'unmatched: 404');
  t.equal((await a.getRequestsForAPI('POST', '/orders')).length, 1, 'the journal names the URL after the base');
  t.equal((await b.getRequestsForAPI('POST', '/orders')).length, 0, "b's journal has none of a's");
  t.equal((await a.getUnmatchedRequests()).length, 1);
  t.match(await a.getAllScenarios(), [{ name: 'order', state: 'placed' }]);
  t.match(await b.getAllScenarios(), [{ name: 'order', state: 'Started' }]);
  t.equal((await b.getAllMappings()).length, 1);
});

const javac = spawnSync('javac', ['-version']).status === 0;

t.test("WireMock's Java client from the jar", { skip: javac ? false : 'no JDK (.ci/run installs one)' }, async (t) => {
  if (!wiremockJar) return t.fail(noJarMessage);
  const source = new URL('../support/wiremock-java/ClientCheck.java', import.meta.url).pathname;
  // single-file source launch: compiled in memory, run with the jar on the class path
  const child = spawn('java', ['-cp', wiremockJar, source, '127.0.0.1', String(port), 'java-a', 'java-b']);
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d));
  child.stderr.on('data', (d: Buffer) => (err += d));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  t.equal(code, 0, `the Java client ran without an exception${code === 0 ? '' : `: ${err.slice(0, 2000)}`}`);
  const facts = new Map(
    out
      .trim()
      .split('\n')
      .map((line) => [line.slice(0, line.indexOf(' ')), line.slice(line.indexOf(' ') + 1)] as const),
  );
  t.equal(facts.get('java-a.mappings'), '2');
  t.equal(facts.get('java-a.call1'), '200 {"sandbox":"java-a","state":"open"}');
  t.equal(facts.get('java-a.call2'), '200 {"sandbox":"java-a","state":"paid"}');
  t.equal(facts.get('java-b.call1'), '200 {"sandbox":"java-b","state":"open"}', "b's scenario stayed");
  t.equal(facts.get('java-a.verified'), '2');
  t.equal(facts.get('java-b.verified'), '1');
  t.equal(facts.get('java-a.state'), 'paid');
  t.equal(facts.get('java-b.state'), 'paid');
  t.equal(facts.get('java-a.reset'), 'Started');
});
