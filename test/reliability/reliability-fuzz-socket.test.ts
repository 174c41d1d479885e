// Hostile requests to EVERY registered route (as `onRoute` reports them, HEAD and the catch-alls included) over a real
// socket to a listening app: bodies nested thousands deep, tens of thousands of keys, long strings, wrong types, bad
// UTF-8, UTF-16 and NUL; the same in query strings, path parameters and headers (test/support/fuzz.ts,
// hostileRequests). No answer may be a 5xx or missing, a JSON 4xx is the one error body, nothing may throw outside a
// request (a 'close' listener, a timer), and after each route's batch the server still answers GET /__admin/health
// and its request journal still reads, as JSON and as HAR. Issue 31: such a body once ended the process from the
// journal's 'close' listener, which only a real connection fires.
//
// Replay: the seed is printed; FUZZ_SEED=N replays a run, FUZZ_ROUTE='POST /mobile/request-two-factor' runs one route,
// FUZZ_SOCKET_RUNS=N sets the requests per route (CI: 2, seed 20261121).
import t from 'tap';
import fc from 'fast-check';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { accounts, build, signIn } from '../helper.js';
import { exchange } from '../support/raw-http.js';
import { describeHostile, hostileRequests, targetOf, type RouteTarget } from '../support/fuzz.js';
import { isErrorBody, isWireMockErrorBody } from '../support/openapi.js';

/**
 * The MCP endpoint answers the refusals of its protocol (a foreign Host or Origin, GET and DELETE, what the SDK
 * refuses) as JSON-RPC errors, as MCP clients read them (docs/mcp.md); its other refusals are the error body.
 */
const isJsonRpcError = (body: unknown) => {
  const b = body as { jsonrpc?: unknown; error?: { code?: unknown; message?: unknown } } | null;
  return b?.jsonrpc === '2.0' && typeof b.error?.code === 'number' && typeof b.error.message === 'string';
};

const seed = Number(process.env.FUZZ_SEED ?? 20261121);
const runs = Number(process.env.FUZZ_SOCKET_RUNS ?? 2);
const only = process.env.FUZZ_ROUTE;

type Schema = { properties?: Record<string, unknown>; $ref?: string } | undefined;

const parsed = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** The property names a route schema declares (through one $ref to a shared schema). */
function keysOf(app: FastifyInstance, schema: unknown): string[] {
  let s = schema as Schema;
  if (s?.$ref) s = app.getSchema(s.$ref.replace(/#$/, '')) as Schema;
  return Object.keys(s?.properties ?? {});
}

/** Each route its own stream of inputs, the same on every run with the same seed. */
function seedOf(key: string): number {
  let h = seed | 0;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 16777619);
  return h;
}

t.test(`hostile requests to every registered route over a socket (FUZZ_SEED=${seed}, ${runs} per route)`, async (t) => {
  const routes: RouteOptions[] = [];
  // a journal that holds about one batch: each read after a batch reads all of it, and no more
  const app = await build(t, {
    users: 10,
    journalLimit: Math.max(8, runs),
    onRoute: (r) => {
      routes.push(r);
    },
  });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const port = Number(new URL(base).port);
  // the default sandbox: requests whose sandbox header a change removes or empties are journaled there too
  const session = await signIn(app, accounts.admin);
  const targets: RouteTarget[] = routes
    .flatMap((r) =>
      [r.method].flat().map((method) => ({
        method,
        url: r.url,
        queryKeys: keysOf(app, r.schema?.querystring),
        bodyKeys: keysOf(app, r.schema?.body),
      })),
    )
    .filter((r) => only === undefined || `${r.method} ${r.url}` === only);
  t.ok(targets.length > (only ? 0 : 200), `${targets.length} routes to fuzz`);

  // a throw outside Fastify's error handling would end a real server; tap catches it (and ends this test), so it is
  // watched for here and reported with what was being sent
  const thrown: unknown[] = [];
  let current = { name: '', request: '' };
  const watch = (err: unknown) => {
    thrown.push(err);
    t.comment(
      `thrown outside a request while ${current.name} was fuzzed: ${String((err as Error)?.message ?? err)}\n` +
        `  replay: FUZZ_SEED=${seed} FUZZ_ROUTE='${current.name}'; last request: ${current.request.slice(0, 1500)}`,
    );
  };
  process.on('uncaughtExceptionMonitor', watch);
  process.on('unhandledRejection', watch);
  t.teardown(() => {
    process.off('uncaughtExceptionMonitor', watch);
    process.off('unhandledRejection', watch);
  });
  const noThrow = (where: string) => {
    if (thrown.length === 0) return;
    const err = thrown.splice(0)[0] as Error;
    throw new Error(`thrown outside a request ${where}: ${String(err?.stack ?? err).slice(0, 800)}`);
  };

  const statuses = new Map<number, number>();
  let sent = 0;
  for (const route of targets) {
    const name = `${route.method} ${route.url}`;
    const property = fc.asyncProperty(hostileRequests(route, session), async (r) => {
      current = { name, request: describeHostile(r) };
      const answer = await exchange(port, { method: r.method, target: targetOf(r), headers: r.headers, body: r.body });
      sent++;
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      noThrow('after it');
      const text = answer.body.toString('utf8');
      if (answer.problem) throw new Error(`no whole answer (${answer.problem}), status ${answer.status}`);
      if (answer.status >= 500) throw new Error(`answered ${answer.status}: ${text.slice(0, 300)}`);
      if (answer.status >= 400 && r.method !== 'HEAD' && /json/.test(answer.headers['content-type'] ?? '')) {
        const body = parsed(text);
        const ownShape =
          (route.url === '/__admin/mcp' && isJsonRpcError(body)) ||
          (route.url.startsWith('/wiremock/__admin') && isWireMockErrorBody(body));
        if (!isErrorBody(body, answer.status) && !ownShape)
          throw new Error(`not the error body: ${text.slice(0, 300)}`);
      }
    });
    const out = await fc.check(property, { seed: seedOf(name), numRuns: runs, endOnFailure: true });
    if (out.failed) {
      const input = out.counterexample ? describeHostile(out.counterexample[0]) : '(none)';
      const why = String((out.errorInstance as Error | undefined)?.message ?? 'interrupted').slice(0, 1200);
      t.fail(
        `${name}: ${why}\n  replay: FUZZ_SEED=${seed} FUZZ_ROUTE='${name}' (fast-check seed ${out.seed}, ` +
          `path ${out.counterexamplePath}); request: ${input.slice(0, 1500)}`,
      );
    }

    // still alive, and what it journaled still reads
    const health = await fetch(`${base}/__admin/health`);
    if (health.status !== 200) t.fail(`after ${name}: GET /__admin/health answered ${health.status}`);
    for (const query of ['', '&format=har']) {
      const res = await fetch(`${base}/__admin/requests?limit=1000${query}`);
      const text = await res.text();
      if (res.status !== 200 || parsed(text) === undefined) {
        t.fail(`after ${name}: GET /__admin/requests?limit=1000${query} answered ${res.status} ${text.slice(0, 300)}`);
      }
    }
    try {
      noThrow(`while ${name} was fuzzed`);
    } catch (err) {
      t.fail((err as Error).message);
    }
  }
  const counts = [...statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`);
  t.comment(`${sent} hostile requests; statuses: ${counts.join(' ')}`);
  t.ok(sent >= targets.length * runs, `${sent} requests sent`);
});
