// Validate fully, then change (issue 46, build 1): every write route of the control plane, enumerated from the app
// as onRoute reports it (POST, PUT, PATCH and DELETE under /__admin, the catch-alls included), is sent inputs it must
// refuse, for a sandbox that exists and for one that does not; each answers a 4xx with the error body, and the state
// afterwards equals the state before. A route this file has no refused input for fails the test until it gets one
// (or joins `noRefusedInput` with the reason). Over a real socket, with --data, so the files count as state too.
//
// "The state", read through the admin API and the disk:
// - of the instance: the sandbox listing (names, scenarios, clocks, journal and outbox sizes), the scenario names and
//   every definition, whether it records;
// - of each of `default`, `probe` (exists) and `ghost` (must never be made by a refused write): its records (every
//   change since the seed, GET /__admin/data/changes), its clock, scenario, journal, outbox, findings, upstream and
//   comparisons (a 404 for ghost, before and after);
// - the files under --data, byte for byte.
import t from 'tap';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RouteOptions } from 'fastify';
import { accounts, build, tenants } from '../helper.js';
import { httpSignIn } from '../support/process.js';

t.setTimeout(20 * 60_000);

type Route = { method: string; url: string; operationId: string | null; sandboxQuery: boolean };
type Attempt = { why: string; method?: string; path: string; body?: unknown; headers?: Record<string, string> };

const writeMethods = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const sandboxes = ['default', 'probe', 'ghost'] as const;
const nobody = 'nobody@example.test';
const unknownId = '00000000-0000-4000-8000-00000000dead';

/**
 * Routes with no input to refuse, and why. Every other write route takes a sandbox key or a path, and a bad one is
 * refused; most have refusals of their own as well (below).
 */
const noRefusedInput: Record<string, string> = {
  'DELETE /__admin/mcp': 'answers every call 405 with a JSON-RPC error (a stateless endpoint has no session to end)',
};

/** The refused inputs of each write route other than the records API's (generated below), for sandbox `sb`. */
function attemptsFor(route: Route, sb: string, ids: Record<string, string>, exported: object): Attempt[] | undefined {
  const q = `sandbox=${sb}`;
  const key = `${route.method} ${route.url}`;
  switch (key) {
    case 'PUT /__admin/scenario':
      return [
        { why: 'an unknown scenario', path: `/__admin/scenario?${q}`, body: { name: 'no-such-scenario' } },
        { why: 'name and inline both', path: `/__admin/scenario?${q}`, body: { name: 'mine', scenario: {} } },
        {
          why: 'an inline scenario with an invalid stub answer',
          path: `/__admin/scenario?${q}`,
          body: {
            scenario: { name: 'inline-bad', description: 'd', stubs: [{ operationId: 'dashboard', status: 103 }] },
          },
        },
        {
          why: 'an inline scenario whose data does not apply',
          path: `/__admin/scenario?${q}`,
          body: {
            scenario: {
              name: 'inline-data',
              description: 'd',
              data: [{ patch: 'users', id: unknownId, set: { statusText: 'x' } }],
            },
          },
        },
        { why: 'a scenario whose data does not apply', path: `/__admin/scenario?${q}`, body: { name: 'broken-data' } },
      ];
    case 'DELETE /__admin/sandboxes/:name':
      return [
        { why: 'the default sandbox', path: '/__admin/sandboxes/default' },
        { why: 'one that does not exist', path: `/__admin/sandboxes/${sb === 'probe' ? 'ghost' : sb}` },
      ];
    case 'PUT /__admin/sandboxes/:name':
      return [
        { why: 'an invalid name', path: '/__admin/sandboxes/bad%20name', body: {} },
        { why: 'an unknown scenario', path: `/__admin/sandboxes/${sb}`, body: { scenario: 'no-such-scenario' } },
        {
          why: 'a scenario whose data does not apply',
          path: '/__admin/sandboxes/ghost',
          body: { scenario: 'broken-data' },
        },
        { why: 'another scenario than its own', path: '/__admin/sandboxes/probe', body: { scenario: 'offline' } },
        { why: 'the key names another sandbox', path: `/__admin/sandboxes/${sb}?sandbox=other`, body: {} },
      ];
    case 'DELETE /__admin/sandboxes':
    case 'POST /__admin/sandboxes/reset':
      return [{ why: 'an empty prefix', path: `${route.url}?prefix=` }];
    case 'POST /__admin/reset':
      return [{ why: 'a negative seed', path: `/__admin/reset?${q}`, body: { seed: -1 } }];
    case 'PUT /__admin/state':
      return [
        { why: 'no data', path: `/__admin/state?${q}`, body: { format: 'portal-mock-state', version: 1, data: {} } },
        {
          why: 'a clock before 1970',
          path: `/__admin/state?${q}`,
          body: { format: 'portal-mock-state', version: 1, data: {}, clock: { mode: 'offset', offsetMs: -1e14 } },
        },
        { why: 'another format', path: `/__admin/state?${q}`, body: { format: 'other', version: 1, data: {} } },
        // valid data, checked whole: the unknown scenario is found after it, and still nothing is replaced
        {
          why: 'an unknown scenario',
          path: `/__admin/state?${q}`,
          body: { ...exported, scenario: 'no-such-scenario' },
        },
        {
          why: 'a clock before 1970 with valid data',
          path: `/__admin/state?${q}`,
          body: { ...exported, clock: { mode: 'frozen', at: '1969-12-31T23:59:59Z' } },
        },
      ];
    case 'PUT /__admin/clock':
      return [
        { why: 'offsetMs 1e20', path: `/__admin/clock?${q}`, body: { offsetMs: 1e20 } },
        { why: 'advanceMs 1e300', path: `/__admin/clock?${q}`, body: { advanceMs: 1e300 } },
        { why: 'offsetMs past the end of time', path: `/__admin/clock?${q}`, body: { offsetMs: 8640000000000001 } },
        { why: 'an advance to before 1970', path: `/__admin/clock?${q}`, body: { advanceMs: -1e14 } },
        { why: 'a leap second', path: `/__admin/clock?${q}`, body: { freeze: '2026-12-31T23:59:60Z' } },
        { why: 'two changes', path: `/__admin/clock?${q}`, body: { mode: 'real', advanceMs: 1 } },
        { why: 'none', path: `/__admin/clock?${q}`, body: {} },
      ];
    case 'POST /__admin/bind-links':
      return [
        { why: 'an unknown user', path: `/__admin/bind-links?${q}`, body: { email: nobody } },
        { why: 'no user', path: `/__admin/bind-links?${q}`, body: {} },
        { why: 'a ttl of 0', path: `/__admin/bind-links?${q}`, body: { email: accounts.admin.email, ttlSeconds: 0 } },
      ];
    case 'PUT /__admin/scenarios/:name':
      return [
        {
          why: 'an invalid redefinition',
          path: '/__admin/scenarios/mine',
          body: {
            name: 'mine',
            description: 'd',
            stubs: [{ operationId: 'dashboard', status: 200, headers: { 'x a': '1' } }],
          },
        },
        {
          why: 'a name other than the path',
          path: '/__admin/scenarios/mine',
          body: { name: 'other', description: 'd' },
        },
        {
          why: 'an unknown operationId',
          path: '/__admin/scenarios/new-one',
          body: { name: 'new-one', description: 'd', stubs: [{ operationId: 'nope', status: 200 }] },
        },
      ];
    case 'DELETE /__admin/scenarios/:name':
      return [
        { why: 'an unknown scenario', path: '/__admin/scenarios/no-such-scenario' },
        { why: 'a scenario file', path: '/__admin/scenarios/offline' },
        { why: 'one another extends', path: '/__admin/scenarios/mine' },
      ];
    case 'POST /__admin/notifications':
      return [
        { why: 'an unknown user', path: `/__admin/notifications?${q}`, body: { email: nobody, title: 'x' } },
        { why: 'no title', path: `/__admin/notifications?${q}`, body: { email: accounts.admin.email } },
      ];
    // a refused tool call is a tool result (test/control/mcp-tools.test.ts); these are the HTTP's
    case 'POST /__admin/mcp':
      return [
        { why: 'a form body', path: '/__admin/mcp', body: 'a=1', headers: { 'content-type': 'text/plain' } },
        { why: 'JSON that is no JSON-RPC message', path: '/__admin/mcp', body: 'hello' },
      ];
    case 'POST /__admin/users/block':
      return [{ why: 'an unknown user', path: `/__admin/users/block?${q}`, body: { email: nobody } }];
    case 'PUT /__admin/proxy':
      return [
        { why: 'not http', path: `/__admin/proxy?${q}`, body: { url: 'ftp://example.test' } },
        { why: 'credentials in the URL', path: `/__admin/proxy?${q}`, body: { url: 'http://u:p@example.test' } },
      ];
    case 'POST /__admin/recording':
      return [
        { why: 'start without a directory', path: '/__admin/recording', body: { action: 'start' } },
        { why: 'an unknown action', path: '/__admin/recording', body: { action: 'pause' } },
        // Node 20's recursive mkdir never returned for a path below /proc: the whole server hung on this request
        { why: 'a directory below /proc', path: '/__admin/recording', body: { action: 'start', dir: '/proc/nope/x' } },
        {
          why: 'a directory below a file',
          path: '/__admin/recording',
          body: { action: 'start', dir: '/etc/hostname/x' },
        },
      ];
    case 'POST /__admin/compare':
      return [{ why: 'no upstream', path: `/__admin/compare?${q}`, body: { url: '/dashboard' } }];
    case 'POST /__admin/data/*':
    case 'PUT /__admin/data/*':
    case 'PATCH /__admin/data/*':
    case 'DELETE /__admin/data/*':
      return [{ why: 'no such collection', path: `/__admin/data/${tenants.romashka}/noSuchCollection?${q}`, body: {} }];
    case 'POST /__admin/*':
    case 'PUT /__admin/*':
    case 'PATCH /__admin/*':
    case 'DELETE /__admin/*':
      return [{ why: 'no such route', path: `/__admin/no-such-route?${q}`, body: {} }];
  }
  // the records API: /__admin/data/:tenantId/COLLECTION[/:id]
  const records = /^\/__admin\/data\/:tenantId\/(\w+)(\/:id)?$/.exec(route.url);
  if (records) {
    const [, collection, byId] = records;
    const base = `/__admin/data/${tenants.romashka}/${collection}`;
    const id = ids[collection!];
    if (!byId)
      return sb === 'ghost'
        ? [{ why: 'an unknown tenant', path: `/__admin/data/no-such-tenant/${collection}?${q}`, body: {} }]
        : [{ why: 'a field of the wrong type', path: `${base}?${q}&count=2`, body: { id: { not: 'an id' } } }];
    // an existing record given a value no type coercion makes valid, in the sandbox that exists
    if (route.method === 'PATCH' && id && sb === 'probe')
      return [{ why: 'a field of the wrong type', path: `${base}/${id}?${q}`, body: { id: { not: 'an id' } } }];
    return [{ why: 'an unknown id', path: `${base}/${unknownId}?${q}`, body: {} }];
  }
  return undefined;
}

const concrete = (url: string) =>
  url.replace(':tenantId', tenants.romashka).replace(/:\w+/g, 'x1').replace(/\*$/, 'x1');

/** Every route the app registers, as onRoute sees it. */
function collector() {
  const routes: Route[] = [];
  const onRoute = (route: RouteOptions) => {
    const id = route.schema?.operationId;
    const query = route.schema?.querystring as { properties?: Record<string, unknown> } | undefined;
    for (const method of [route.method].flat())
      routes.push({
        method,
        url: route.url,
        operationId: typeof id === 'string' ? id : null,
        sandboxQuery: query?.properties?.sandbox !== undefined,
      });
  };
  return { routes, onRoute };
}

t.test('every control-plane write refuses bad input with a 4xx and leaves the state as it was', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pm-refused-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const { routes, onRoute } = collector();
  const app = await build(t, { users: 10, data: dir, onRoute });
  // the state read after each refusal can outlast the 5 s keep-alive on a busy machine: the server then closes the
  // idle socket just as fetch reuses it (ECONNRESET), which is the race of keep-alive, not a refusal
  app.server.keepAliveTimeout = 120_000;
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const send = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(base + path, {
      method,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(120_000), // a guard against a hang (a request that never returns), not a speed check
    });
    return { status: res.status, text: await res.text() };
  };
  // the state is read in-process (the same routes, without a socket): some 25 reads after every refusal, thousands
  // in all, which over fetch took most of the file's CPU; the refused writes themselves go over the socket
  const read = async (path: string) => {
    const res = await app.inject({ url: path });
    return { status: res.statusCode, text: res.body };
  };

  // the world the refusals must leave as it is: a sandbox with a scenario of its own, a clock, a journal, records
  const define = (name: string, body: unknown) => send('PUT', `/__admin/scenarios/${name}`, body);
  t.equal((await define('mine', { name: 'mine', description: 'the probe scenario' })).status, 201);
  t.equal((await define('child', { name: 'child', description: 'extends mine', extends: 'mine' })).status, 201);
  const broken = {
    name: 'broken-data',
    description: 'd',
    data: [{ patch: 'users', id: unknownId, set: { statusText: 'x' } }],
  };
  t.equal((await define('broken-data', broken)).status, 201);
  t.equal((await send('PUT', '/__admin/sandboxes/probe', { scenario: 'mine' })).status, 201);
  t.equal((await send('PUT', '/__admin/clock?sandbox=probe', { freeze: '2026-04-01T10:00:00Z' })).status, 200);
  const headers = await httpSignIn(base, accounts.admin.email, 'refused-writes', 'probe');
  t.equal((await send('GET', '/dashboard', undefined, headers)).status, 200);
  t.equal(
    (await send('POST', '/__admin/notifications?sandbox=probe', { email: accounts.admin.email, title: 'hi' })).status,
    200,
  );
  const exported = JSON.parse((await send('GET', '/__admin/state?sandbox=probe')).text);
  const ids: Record<string, string> = {};
  for (const [name, records] of Object.entries(exported.data.tenants[tenants.romashka] as Record<string, unknown>))
    if (Array.isArray(records) && typeof records[0]?.id === 'string') ids[name] = records[0].id;

  const reads = (sb: string) =>
    ['data/changes', 'clock', 'scenario', 'requests', 'outbox', 'findings', 'proxy', 'compare'].map(
      (what) => `/__admin/${what}?sandbox=${sb}`,
    );
  const state = async () => {
    const parts: string[] = [];
    const scenarioNames = JSON.parse((await read('/__admin/scenarios')).text) as Array<{ name: string }>;
    const paths = [
      '/__admin/sandboxes?scope=local',
      '/__admin/scenarios',
      '/__admin/recording',
      ...scenarioNames.map((s) => `/__admin/scenarios/${s.name}`),
      ...sandboxes.flatMap(reads),
    ];
    for (const path of paths) {
      const res = await read(path);
      parts.push(`${path} ${res.status} ${res.text}`);
    }
    // every file, those in folders too (the scenario definitions: portal-mock.scenarios/NAME.json)
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) =>
      statSync(join(dir, f)).isFile(),
    );
    for (const file of files.sort()) parts.push(`${file}: ${readFileSync(join(dir, file), 'utf8')}`);
    return parts;
  };

  const writes = routes.filter((r) => r.url.startsWith('/__admin') && writeMethods.has(r.method));
  t.ok(writes.length > 100, `${writes.length} write routes enumerated`);
  const uncovered: string[] = [];
  let refusals = 0;
  let before = await state();
  for (const route of writes) {
    const key = `${route.method} ${route.url}`;
    const attempts = [
      ...['probe', 'ghost'].flatMap((sb) => attemptsFor(route, sb, ids, exported) ?? []),
      ...(route.sandboxQuery
        ? [{ why: 'an invalid sandbox name', path: `${concrete(route.url)}?sandbox=bad%20name`, body: {} }]
        : []),
    ];
    if (attempts.length === 0) {
      if (!(key in noRefusedInput)) uncovered.push(key);
      continue;
    }
    for (const attempt of attempts) {
      if (attempt.path.includes(':')) continue; // a path pattern with parameters: covered by the route's own cases
      const res = await send(attempt.method ?? route.method, attempt.path, attempt.body, attempt.headers);
      const where = `${key} (${attempt.why}, ${attempt.path})`;
      refusals++;
      if (res.status < 400 || res.status >= 500) {
        t.fail(`${where}: answered ${res.status}, not a refusal: ${res.text.slice(0, 200)}`);
        continue;
      }
      const body = JSON.parse(res.text) as Record<string, unknown>;
      if (!['statusCode', 'error', 'code', 'message'].every((k) => k in body))
        t.fail(`${where}: not the error body: ${res.text.slice(0, 200)}`);
      const after = await state();
      const changed = after.findIndex((part, i) => part !== before[i]);
      if (changed >= 0 || after.length !== before.length)
        t.fail(
          `${where}: answered ${res.status} but changed the state: ${(before[changed] ?? '').slice(0, 300)} → ` +
            (after[changed] ?? '<more parts>').slice(0, 300),
        );
      before = after; // the state after one refusal is the state before the next
      if (after.some((part) => part.startsWith('/__admin/clock?sandbox=ghost 200'))) {
        await send('DELETE', '/__admin/sandboxes/ghost'); // made by that refusal: gone again for the next ones
        before = await state();
      }
    }
  }
  t.same(uncovered, [], 'every write route has refused inputs (or a reason in noRefusedInput)');
  t.ok(refusals > 200, `${refusals} refused writes, each compared before and after`);
});
