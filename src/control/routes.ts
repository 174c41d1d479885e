import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest, FastifySchemaCompiler } from 'fastify';
import { errors, ref } from '../schemas/common.js';
import { fail } from '../errors.js';
import { exactBodyValidators } from '../http/validators.js';
import { lenientJsonBodies } from './json-body.js';
import { bindLinkContent, bindUrl, describeFixtures, phoneBase, qrSvg } from './fixtures.js';
import { FixturesAnswer, Health } from '../schemas/control.js';
import { readLoopDelay } from './loop-delay.js';
import { secretMatches, hashSecret } from '../store/ids.js';
import { existingSandbox, ownerFirst, sandboxFindings, SandboxQuery } from './sandbox.js';
import { adminSandboxRoutes } from './sandbox-routes.js';
import { adminScenarioRoutes } from './scenario-routes.js';
import { adminDataRoutes } from './data-routes.js';
import { adminDataCollectionsRoute } from './data-collections-route.js';
import { adminDataChangesRoute } from './data-changes-route.js';
import { adminCaptureRoute } from './capture-route.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../paths.js';
import { adminUserRoutes } from './user-routes.js';
import { adminCaRoute } from './ca-route.js';
import { adminProxyRoutes } from './proxy-routes.js';
import { adminFindingRoutes } from './findings-routes.js';
import { rootRoute } from './root-route.js';
import { mcpRoute } from '../mcp/route.js';

/** The control plane's OpenAPI tag: one, so the document never mixes it with the portal's own admin API. */
export const openapiTags = [
  {
    name: 'mock',
    description: "The mock's own control plane (/__admin): sandboxes, scenarios, journal, clock; not the portal API",
  },
];

const tags = ['mock'];
const openApiMediaType = 'application/vnd.oai.openapi+json';

/** The side routes QA scripts rely on; see the admin contract in the README. */
export const adminRoutes: FastifyPluginAsyncTypebox<{ version: string; startedAt: number }> = async (app, opts) => {
  // where a route is registered says what it is: the API document gives these the control plane's security
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, controlPlane: true };
  });
  lenientJsonBodies(app);
  // bodies are checked as given (no coercion): the query string and path are text, coerced as everywhere
  app.setValidatorCompiler(exactBodyValidators(app.getSchemas()) as unknown as FastifySchemaCompiler<unknown>);
  // one copy of each sandbox (docs/cluster.md): with --peers, a call about a sandbox another instance holds is done
  // there, whichever route it is, as a balancer would have sent it there by its key
  app.addHook('preValidation', ownerFirst);

  // Which routes need the admin token is decided by the sibling context they are registered in (docs/admin.md):
  // a browser and a phone open the console page and ca.pem as they are, they hold nothing secret; a QR image
  // carries a bind token (whoever scans it gets an account secret), so it takes the admin token in the query too,
  // as an <img> and a phone cannot send a header; every other route takes it in a header only.
  await app.register(publicAdminRoutes);
  await app.register(rootRoute, { version: opts.version });
  await app.register(async (app) => {
    if (app.config.adminToken) app.addHook('onRequest', adminTokenHook(app.config.adminToken, { query: true }));
    await app.register(adminQrRoute);
  });
  await app.register(async (app) => {
    if (app.config.adminToken) app.addHook('onRequest', adminTokenHook(app.config.adminToken, { query: false }));
    await app.register(adminSandboxRoutes);
    await app.register(adminScenarioRoutes);
    await app.register(adminDataRoutes, { prefix: '/__admin/data' });
    await app.register(adminDataCollectionsRoute);
    await app.register(adminDataChangesRoute);
    await app.register(adminCaptureRoute);
    await app.register(adminUserRoutes);
    await app.register(adminProxyRoutes);
    await app.register(adminFindingRoutes);
    await app.register(mcpRoute, { version: opts.version }); // its own context: Host and Origin checks, JSON only
    await app.register(adminStatusRoutes, opts);
  });
};

/** The onRequest hook of a context whose routes need --admin-token: a header, or with `query` also `?token=`. */
function adminTokenHook(token: string, accept: { query: boolean }) {
  const tokenHash = hashSecret(token);
  return async (req: FastifyRequest) => {
    const auth = req.headers.authorization;
    const fromQuery = accept.query ? (req.query as { token?: unknown } | undefined)?.token : undefined;
    const presented =
      typeof auth === 'string' && auth.startsWith('Bearer ')
        ? auth.slice(7)
        : (req.headers['x-mock-admin-token'] ?? fromQuery);
    if (typeof presented !== 'string' || !secretMatches(presented, tokenHash)) {
      throw fail.unauthorized(
        `admin token required: Authorization: Bearer TOKEN (or x-mock-admin-token${accept.query ? ', or ?token=' : ''})`,
      );
    }
  };
}

/**
 * Served without the admin token: the console page (it asks for the token), the CA certificate and the control
 * plane's API document (it holds no secret, as the portal's at /docs/json).
 */
const publicAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  await app.register(adminCaRoute);
  app.get(
    '/__admin/openapi.json',
    {
      schema: {
        operationId: 'mockOpenApi',
        tags,
        summary: "The control plane's OpenAPI document",
        description:
          "This document: the mock's own routes under /__admin, apart from the portal's API (/docs/json). Its " +
          'Swagger UI page is /__admin/docs.',
        response: {
          200: {
            description: 'an OpenAPI 3.0 document',
            // the registered media type of an OpenAPI document (a JSON text): it carries no example of itself
            content: { [openApiMediaType]: { schema: Type.Object({}, { additionalProperties: true }) } },
          },
        },
      },
    },
    // the document as built for this context (src/app.ts registers its @fastify/swagger)
    async (_req, reply) => reply.type(openApiMediaType).send(app.swagger()),
  );
  // One self-contained page over the admin JSON routes (public/console.html): no build step, read once.
  const consoleHtml = readFileSync(join(packageRoot, 'public/console.html'), 'utf8');
  app.get(
    '/__admin',
    {
      schema: {
        operationId: 'mockConsole',
        tags,
        summary: 'The web console (HTML)',
        description:
          'The web console: scenarios, QR codes of the demo accounts, the outbox and the request journal, in a ' +
          'browser.',
        response: {
          200: { description: 'the console page', content: { 'text/html': { schema: Type.String() } } },
          ...errors(401),
        },
      },
    },
    async (_req, reply) => reply.type('text/html; charset=utf-8').send(consoleHtml),
  );
};

/** The QR image of a bind link: the admin token in a header or `?token=` (an <img> or a phone sends no header). */
const adminQrRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/__admin/bind-links/:id/qr.svg',
    {
      schema: {
        operationId: 'mockBindLinkQr',
        tags,
        summary: 'The QR code of a bind link, as SVG (scan it with the app)',
        description:
          'The QR code of a bind link as SVG: scan it with the app to bind a device. It carries the bind token, so ' +
          'with --admin-token it needs the token, in a header or as ?token=.',
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) }),
        querystring: Type.Object({
          ...SandboxQuery.properties,
          token: Type.Optional(
            Type.String({ description: 'the --admin-token, for an <img> or a phone that cannot send a header' }),
          ),
        }),
        response: {
          200: { description: 'the QR code', content: { 'image/svg+xml': { schema: Type.String() } } },
          ...errors(400, 401, 404, 502, 503),
        },
      },
    },
    async (req, reply) => {
      const sandbox = existingSandbox(req);
      const link = sandbox.store
        .tenants()
        .flatMap((t) => t.bindLinks)
        .find((l) => l.id === req.params.id);
      if (!link) throw fail.notFound(`bind link ${req.params.id} not found in sandbox ${sandbox.name}`);
      const svg = await qrSvg(bindLinkContent(bindUrl(phoneBase(req, sandbox.name), link.id, link.token)));
      return reply.type('image/svg+xml').send(svg);
    },
  );
};

/** GET /__admin/health's query: the sandbox, and whether to read the event-loop delay (src/control/loop-delay.ts). */
const HealthQuery = Type.Object({
  ...SandboxQuery.properties,
  loop: Type.Optional(
    Type.Boolean({
      description: 'add eventLoop: the delay since the previous ?loop=true read (the first read starts the sampling)',
    }),
  ),
});

/** The control plane's own status and fixtures, and its 404. */
const adminStatusRoutes: FastifyPluginAsyncTypebox<{ version: string; startedAt: number }> = async (app, opts) => {
  app.get(
    '/__admin/health',
    {
      schema: {
        operationId: 'mockHealth',
        tags,
        summary: 'Liveness and what is running',
        description:
          'Liveness for scripts and container health checks: version, scenario and seed of the sandbox, uptime, ' +
          'sandbox count, memory and the kept answers; with ?loop=true the event-loop delay since the previous such read.',
        querystring: HealthQuery,
        response: {
          200: Health,
          ...errors(400, 401, 404),
        },
      },
      config: { answersHere: true },
    },
    async (req) => {
      // never asks the peers: it answers for the instance reached (scripts/move-sandboxes.mjs relies on it)
      const sandbox = existingSandbox(req, { peersAsked: false });
      return {
        status: 'ok' as const,
        instance: app.instance.name,
        version: opts.version,
        scenario: sandbox.scenario,
        seed: sandbox.store.meta.seed,
        uptimeMs: Math.round(performance.now() - opts.startedAt),
        sandbox: sandbox.name,
        sandboxes: app.sandboxes.size,
        sandboxLimit: app.sandboxes.limit,
        memory: { rssBytes: process.memoryUsage.rss(), heapUsedBytes: process.memoryUsage().heapUsed },
        findings: sandboxFindings(req, sandbox).counts(),
        keptAnswers: app.answers.stats(),
        ...(req.query.loop ? { eventLoop: readLoopDelay() } : {}),
      };
    },
  );

  app.get(
    '/__admin/fixtures',
    {
      schema: {
        operationId: 'mockFixtures',
        tags,
        summary: 'Demo tenants, accounts, devices, API keys and bind links',
        description:
          'The demo data to sign in with: tenants, accounts and their passwords, devices, API keys and bind links ' +
          'with their QR codes.',
        querystring: SandboxQuery,
        response: { 200: ref(FixturesAnswer), ...errors(400, 401, 404, 502, 503) },
      },
    },
    async (req) => describeFixtures(app.fixtures, req, existingSandbox(req).name),
  );

  // A path under /__admin that no admin route answers is the control plane's own 404, so a typo in a QA script is
  // never stubbed, faulted or passed through by the scenario of the sandbox it names.
  app.route({
    method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    url: '/__admin/*',
    schema: { hide: true },
    handler: (_req, reply) => reply.callNotFound(),
  });
};
