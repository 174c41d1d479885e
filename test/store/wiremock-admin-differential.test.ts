// The WireMock admin API of a sandbox against the real WireMock 3.13 (the jar of the `wiremock` devDependency): the
// same calls in the same order to both, and the same status and JSON body (generated ids set aside). Where we
// answer differently on purpose (docs/wiremock.md, "The admin API"), the call is not in this list. Skipped, saying
// why, only when `java` is not installed (.ci/run installs a JRE).
import t, { type Test } from 'tap';
import { build } from '../helper.js';
import { tempDir } from '../support/temp-dir.js';
import { javaInstalled, noJarMessage, startWireMockJar, wiremockJar } from '../support/wiremock-jar.js';

type Answer = { status: number; body: unknown };

if (!javaInstalled)
  t.plan(
    0,
    'java is not installed: the differential test runs the real WireMock jar (apt-get install default-jre-headless)',
  );
else if (!wiremockJar) t.fail(noJarMessage);
else {
  t.setTimeout(5 * 60_000);
  const root = tempDir(t, 'pm-wiremock-admin-');
  const port = await startWireMockJar(t, wiremockJar, root);
  const app = await build(t);
  const ours = `${await app.listen({ port: 0, host: '127.0.0.1' })}/sandbox/wm-diff/wiremock`;
  const theirs = `http://127.0.0.1:${port}`;

  const send = async (base: string, method: string, path: string, body?: unknown): Promise<Answer> => {
    const res = await fetch(`${base}/__admin${path}`, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
    const text = await res.text();
    return { status: res.status, body: text.trim() === '' ? '' : JSON.parse(text) };
  };
  /** The answer with generated ids replaced: the same call makes different ids on each server. */
  const withoutIds = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(withoutIds);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        (k === 'id' || k === 'uuid') && typeof v === 'string' && !v.startsWith('aaaaaaaa')
          ? '(generated)'
          : withoutIds(v),
      ]),
    );
  };

  /**
   * Differences on purpose, set aside: an error's detail names the Java class in WireMock ("class
   * com.github.tomakehurst.wiremock.matching.RequestPattern", here "class RequestPattern"); a scenario's
   * possibleStates come in a Java hash set's order there, in the order the mappings name them here; see also `same`.
   */
  const comparable = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(comparable);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => k !== 'detail')
        .map(([k, v]) => [k, k === 'possibleStates' && Array.isArray(v) ? [...v].sort() : comparable(v)]),
    );
  };
  const same = async (t: Test, method: string, path: string, body?: unknown) => {
    const [a, b] = [await send(ours, method, path, body), await send(theirs, method, path, body)];
    // a success WireMock answers without a body is {} here (every success of the control plane is JSON)
    if (b.status === 200 && b.body === '' && a.status === 200) b.body = {};
    // WireMock's 404 of an unknown mapping id has no body; ours names the id
    if (b.status === 404 && b.body === '' && a.status === 404) a.body = '';
    t.same(
      comparable(withoutIds(a)),
      comparable(withoutIds(b)),
      `${method} ${path}: the same status and body as WireMock`,
    );
    return a;
  };
  const fixed = (n: number) => `aaaaaaaa-0000-4000-8000-00000000000${n}`;

  t.equal((await send(theirs, 'GET', '/health')).status, 200, 'WireMock is up');

  t.test('mappings', async (t) => {
    await same(t, 'GET', '/mappings');
    await same(t, 'POST', '/mappings', { request: { url: '/a', method: 'GET' }, response: { status: 200 } });
    await same(t, 'POST', '/mappings', {
      id: fixed(1),
      request: { urlPath: '/b' },
      response: {},
      metadata: { team: 'red', n: { k: 1 } },
    });
    await same(t, 'POST', '/mappings', { id: fixed(2), priority: 1, request: { url: '/p' }, response: { body: 'p' } });
    await same(t, 'GET', '/mappings');
    await same(t, 'GET', '/mappings?limit=1&offset=1');
    await same(t, 'GET', '/mappings?limit=0');
    await same(t, 'GET', `/mappings/${fixed(1)}`);
    await same(t, 'GET', `/mappings/${fixed(9)}`);
    await same(t, 'GET', '/mappings/not-a-uuid');
    await same(t, 'PUT', `/mappings/${fixed(1)}`, { request: { urlPath: '/b2' }, response: { status: 202 } });
    await same(t, 'PUT', `/mappings/${fixed(9)}`, { request: { url: '/x' }, response: {} });
    await same(t, 'POST', '/mappings', { request: { url: '/x', bogus: 1 }, response: {} });
    await same(t, 'POST', '/mappings/find-by-metadata', { matchesJsonPath: '$.team' });
    await same(t, 'POST', '/mappings/find-by-metadata', { matchesJsonPath: { expression: '$.team', equalTo: 'no' } });
    await same(t, 'DELETE', `/mappings/${fixed(2)}`);
    await same(t, 'DELETE', `/mappings/${fixed(2)}`);
    await same(t, 'POST', '/mappings/import', {
      mappings: [
        { id: fixed(3), request: { url: '/i' }, response: {} },
        { id: fixed(4), request: { url: '/j' }, response: {} },
      ],
    });
    await same(t, 'GET', '/mappings');
    await same(t, 'POST', '/mappings/import', {
      mappings: [{ request: { url: '/k' }, response: {} }, { request: { url: '/l', bogus: 1 } }],
    });
    await same(t, 'GET', '/mappings');
    await same(t, 'POST', '/mappings/remove-by-metadata', { matchesJsonPath: '$.team' });
    await same(t, 'POST', '/mappings/save');
    await same(t, 'DELETE', '/mappings');
    await same(t, 'GET', '/mappings');
  });

  t.test('scenarios', async (t) => {
    const step = (id: number, url: string, required: string, next: string) => ({
      id: fixed(id),
      scenarioName: 'cart',
      requiredScenarioState: required,
      newScenarioState: next,
      request: { url, method: 'POST' },
      response: { status: 200 },
    });
    await same(t, 'POST', '/reset');
    await same(t, 'POST', '/mappings', step(5, '/add', 'Started', 'full'));
    await same(t, 'POST', '/mappings', step(6, '/pay', 'full', 'paid'));
    await same(t, 'GET', '/scenarios');
    await same(t, 'PUT', '/scenarios/cart/state', { state: 'paid' });
    await same(t, 'GET', '/scenarios');
    await same(t, 'PUT', '/scenarios/cart/state', { state: 'lost' });
    await same(t, 'PUT', '/scenarios/nope/state', { state: 'x' });
    await same(t, 'POST', '/scenarios/reset');
    await same(t, 'GET', '/scenarios');
    await same(t, 'POST', '/reset');
    await same(t, 'GET', '/mappings');
  });

  t.test('unmatched mappings: those no request was served by', async (t) => {
    const call = async (base: string, path: string) => (await fetch(`${base}${path}`)).status;
    await same(t, 'POST', '/reset');
    await same(t, 'POST', '/mappings', { id: fixed(7), request: { url: '/used', method: 'GET' }, response: {} });
    await same(t, 'POST', '/mappings', { id: fixed(8), request: { url: '/idle', method: 'GET' }, response: {} });
    await same(t, 'POST', '/mappings', { id: fixed(9), priority: 1, request: { urlPath: '/z' }, response: {} });
    await same(t, 'GET', '/mappings/unmatched');
    for (const base of [ours, theirs]) {
      t.equal(await call(base, '/used'), 200, `${base}: /used served`);
      t.equal(await call(base, '/nothing'), 404, `${base}: /nothing unmatched`);
    }
    await same(t, 'GET', '/mappings/unmatched');
    await same(t, 'DELETE', '/mappings/unmatched');
    await same(t, 'GET', '/mappings');
    await same(t, 'GET', '/mappings/unmatched');
    // an emptied journal names no mapping: every mapping is unmatched again
    await same(t, 'DELETE', '/requests');
    await same(t, 'GET', '/mappings/unmatched');
  });

  t.test('system', async (t) => {
    await same(t, 'GET', '/recordings/status');
    await same(t, 'GET', '/mappings/unknown-path-is-not-a-uuid');
    const [a, b] = [await send(ours, 'GET', '/health'), await send(theirs, 'GET', '/health')];
    t.same(Object.keys(a.body as object).sort(), Object.keys(b.body as object).sort(), 'health: the same fields');
    t.equal((a.body as { status: string }).status, (b.body as { status: string }).status);
  });
}
