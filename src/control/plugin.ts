// The control plane: the mock's own routes under /__admin (and the landing page at /). One context, its hooks in
// the order a call meets them, then one plugin per resource in src/control/routes/, registered under the prefix.
// What a route needs it says in its config, as the portal's routes say `auth`: `sandbox` (read or write),
// `sandboxFrom`, `answersHere`, `adminToken` (see RouteConfig in src/http/request-state.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest, FastifySchemaCompiler } from 'fastify';
import { fail } from '../errors.js';
import { exactBodyValidators } from '../http/validators.js';
import { lenientJsonBodies } from '../http/json-body.js';
import { secretMatches, hashSecret } from '../store/ids.js';
import { mcpRoute } from '../mcp/route.js';
import { abandonWork, finishWork, ownerFirst, pickSandbox } from './sandbox.js';
import { rootRoute } from './routes/root.js';
import { consoleRoutes } from './routes/console.js';
import { healthRoutes } from './routes/health.js';
import { scenarioRoutes } from './routes/scenarios.js';
import { sandboxRoutes } from './routes/sandboxes.js';
import { stateRoutes } from './routes/state.js';
import { journalRoutes } from './routes/journal.js';
import { outboxRoutes } from './routes/outbox.js';
import { clockRoutes } from './routes/clock.js';
import { userRoutes } from './routes/users.js';
import { recordRoutes } from './routes/records.js';
import { proxyRoutes } from './routes/proxy.js';
import { findingRoutes } from './routes/findings.js';
import { wiremockAdminApi } from './routes/wiremock/index.js';

/** The control plane's OpenAPI tag: one, so the document never mixes it with the portal's own admin API. */
export const openapiTags = [
  {
    name: 'mock',
    description: "The mock's own control plane (/__admin): sandboxes, scenarios, journal, clock; not the portal API",
  },
  {
    name: 'wiremock',
    description:
      "WireMock 3.13's admin API per sandbox, at /sandbox/NAME/wiremock/__admin (docs/wiremock.md): WireMock's bodies and errors",
  },
];

type Options = { version: string; startedAt: number };

/** The side routes QA scripts rely on; see the admin contract in the README and docs/admin.md. */
export const adminRoutes: FastifyPluginAsyncTypebox<Options> = async (app, opts) => {
  // where a route is registered says what it is: the API document gives these the control plane's security
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, controlPlane: true };
  });
  lenientJsonBodies(app);
  // bodies are checked as given (no coercion): the query string and path are text, coerced as everywhere
  app.setValidatorCompiler(exactBodyValidators(app.getSchemas()) as unknown as FastifySchemaCompiler<unknown>);

  // 1. --admin-token, as the route takes it: a header (most), also ?token= (a QR image: an <img> and a phone send
  //    no header), or none (the console page, its document and ca.pem, which hold nothing secret)
  if (app.config.adminToken) app.addHook('onRequest', adminTokenHook(app.config.adminToken));
  // 2. with --peers, a call about a sandbox another instance holds is done there (docs/cluster.md)
  app.addHook('preValidation', ownerFirst);
  // 3. the route's sandbox, and a write's unit of work
  app.addHook('preHandler', pickSandbox);
  // 4. the unit of work committed before a success leaves, undone on a refusal or a lost connection
  app.addHook('onSend', finishWork);
  app.addHook('onResponse', abandonWork);

  await app.register(rootRoute, { version: opts.version });
  await app.register(
    async (admin) => {
      await admin.register(consoleRoutes);
      await admin.register(healthRoutes, opts);
      await admin.register(scenarioRoutes);
      await admin.register(sandboxRoutes);
      await admin.register(stateRoutes);
      await admin.register(journalRoutes);
      await admin.register(outboxRoutes);
      await admin.register(clockRoutes);
      await admin.register(userRoutes);
      await admin.register(recordRoutes);
      await admin.register(proxyRoutes);
      await admin.register(findingRoutes);
      await admin.register(mcpRoute, { version: opts.version }); // its own context: Host and Origin checks, JSON only
      // A path under /__admin that no admin route answers is the control plane's own 404, so a typo in a QA script
      // is never stubbed, faulted or passed through by the scenario of the sandbox it names.
      admin.route({
        method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
        url: '/*',
        schema: { hide: true },
        handler: (_req, reply) => reply.callNotFound(),
      });
    },
    { prefix: '/__admin' },
  );
  // WireMock's admin API of a sandbox: /sandbox/NAME/wiremock/__admin/… (the prefix stripped as for every path)
  await app.register(wiremockAdminApi, { ...opts, prefix: '/wiremock/__admin' });
};

/** The onRequest hook of --admin-token: in a header, or as `?token=` where the route says so. */
function adminTokenHook(token: string) {
  const tokenHash = hashSecret(token);
  return async (req: FastifyRequest) => {
    const taken = req.mock.routeConfig.adminToken ?? 'header';
    if (taken === 'none') return;
    const query = taken === 'header-or-query';
    const tokenScheme = taken === 'wiremock';
    const auth = req.headers.authorization;
    const fromQuery = query ? (req.query as { token?: unknown } | undefined)?.token : undefined;
    const presented =
      typeof auth === 'string' && auth.startsWith('Bearer ')
        ? auth.slice(7)
        : tokenScheme && typeof auth === 'string' && auth.startsWith('Token ')
          ? auth.slice(6)
          : (req.headers['x-mock-admin-token'] ?? fromQuery);
    const also = query ? ', or ?token=' : tokenScheme ? ', or Authorization: Token TOKEN' : '';
    const ways = `Authorization: Bearer TOKEN (or x-mock-admin-token${also})`;
    if (typeof presented !== 'string') throw fail.unauthorized(`admin token required: ${ways}`);
    // a wrong token is not a missing one: the caller sent something, and should check its value, not its header
    if (!secretMatches(presented, tokenHash))
      throw fail.unauthorized(
        `the admin token given does not match this server's --admin-token: send the one it was started with, as ${ways}`,
      );
  };
}
