// Scenarios act on every portal operation, the portal's own admin API (operationIds admin*) included, and never on
// the mock's control plane (/__admin, WireMock's /wiremock/__admin) or the docs: decided by where a route is
// registered, not by its name or URL.
import t from 'tap';
import { request } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RouteOptions } from 'fastify';
import { build, signIn } from '../helper.js';

type Route = { method: string; url: string; operationId: string | null };

/** Every route the app registers, as onRoute sees it (HEAD twins included), with path parameters filled in. */
function collector() {
  const routes: Route[] = [];
  const onRoute = (route: RouteOptions) => {
    const id = route.schema?.operationId;
    for (const method of [route.method].flat()) {
      routes.push({ method, url: route.url, operationId: typeof id === 'string' ? id : null });
    }
  };
  return { routes, onRoute };
}

const concrete = (url: string) => url.replace(/:[A-Za-z_]+/g, 'x1').replace(/\*$/, 'no-such-thing');
const isControlPlane = (url: string) =>
  url.startsWith('/__admin') || url.startsWith('/wiremock/__admin') || url.startsWith('/docs') || url === '/';

/** What became of one request on its own connection: a status, or the socket error that ended it. */
function outcome(address: string, route: Route, headers: Record<string, string>): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request(`${address}${concrete(route.url)}`, { method: route.method, headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    req.end();
  });
}

t.test('offline: every portal operation (enumerated) is reset; every control-plane route answers', async (t) => {
  const { routes, onRoute } = collector();
  const app = await build(t, { onRoute });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  // OPTIONS: CORS preflights, answered before any scenario as a browser's own step, not a portal operation
  const portal = routes.filter((r) => !isControlPlane(r.url) && r.method !== 'OPTIONS');
  const side = routes.filter((r) => isControlPlane(r.url) && r.url !== '/__admin/reset');
  t.ok(portal.length > 100, `${portal.length} portal routes enumerated`);
  t.ok(
    portal.some((r) => r.operationId === 'adminWalletIndex'),
    "the portal's own admin API is among them",
  );
  t.ok(side.length > 20, `${side.length} control-plane routes enumerated`);

  const s = await signIn(app);
  const offline = await app.inject({ method: 'PUT', url: '/__admin/scenario', payload: { name: 'offline' } });
  t.equal(offline.statusCode, 200, 'offline from now on');
  for (const route of portal) {
    t.equal(await outcome(address, route, s.headers), 'ECONNRESET', `${route.method} ${route.url}: reset`);
  }
  for (const route of side) {
    const result = await outcome(address, route, {});
    t.type(result, 'number', `${route.method} ${route.url}: answered ${result}`);
  }
});

t.test("a stub answers the portal's admin API operations like any other", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pm-cp-'));
  writeFileSync(
    join(dir, 'wallet-down.json'),
    JSON.stringify({
      name: 'wallet-down',
      description: 'the wallet index is down',
      stubs: [{ operationId: 'adminWalletIndex', status: 503, body: { name: 'Service Unavailable', message: 'down' } }],
    }),
  );
  const app = await build(t, { scenarios: [dir], scenario: 'wallet-down' });
  const s = await signIn(app);
  const res = await app.inject({ url: '/admin/wallet', headers: s.headers });
  t.equal(res.statusCode, 503, 'the stub answered, not the route (which would need the right)');
  t.same(res.json(), { name: 'Service Unavailable', message: 'down' });
  const health = await app.inject({ url: '/__admin/health' });
  t.equal(health.statusCode, 200, 'the control plane is not stubbed');
  const typo = await app.inject({ url: '/__admin/no-such-route' });
  t.equal(typo.statusCode, 404, 'an unknown admin path is the control plane 404');
  t.match(typo.json(), { code: 'ROUTE_NOT_FOUND' });
});
