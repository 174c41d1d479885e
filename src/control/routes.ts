import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { errors, ref } from '../schemas/common.js';
import { fail } from '../errors.js';
import { jsonDepth } from '../shared/json-depth.js';
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
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../paths.js';
import { adminUserRoutes } from './user-routes.js';
import { adminCaRoute } from './ca-route.js';
import { adminProxyRoutes } from './proxy-routes.js';
import { adminFindingRoutes } from './findings-routes.js';

/** The control plane's OpenAPI tag: one, so the document never mixes it with the portal's own admin API. */
export const openapiTags = [
  {
    name: 'mock',
    description: "The mock's own control plane (/__admin): sandboxes, scenarios, journal, clock; not the portal API",
  },
];

const tags = ['mock'];
const maxAdminBodyDepth = 64;

/** The side routes QA scripts rely on; see the admin contract in the README. */
export const adminRoutes: FastifyPluginAsyncTypebox<{ version: string; startedAt: number }> = async (app, opts) => {
  // where a route is registered says what it is: the API document gives these the control plane's security
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, controlPlane: true };
  });
  // QA scripts call admin routes with curl and fetch as they come: `curl -X POST .../reset` (no body), `-d '{}'`
  // (form content type), an empty body with content-type JSON. In this scope a body is JSON whatever its content
  // type, and an admin route whose body is all optional takes no body as {}.
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (req, body, done) => {
    if (typeof body === 'string' && body.trim() === '') return done(null, undefined);
    // admin bodies are records and scenarios, a few levels deep: a deeper one would only overflow what walks it
    const depth = jsonDepth(String(body));
    if (depth > maxAdminBodyDepth) {
      return done(fail.badRequest(`the body nests ${depth} levels deep; admin bodies may nest ${maxAdminBodyDepth}`));
    }
    json(req, String(body), done);
  });
  app.addHook('preValidation', async (req) => {
    if (req.body === undefined && req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'DELETE')
      req.body = {};
  });

  // Which routes need the admin token is decided by the sibling context they are registered in (docs/admin.md):
  // a browser and a phone open the console page and ca.pem as they are, they hold nothing secret; a QR image
  // carries a bind token (whoever scans it gets an account secret), so it takes the admin token in the query too,
  // as an <img> and a phone cannot send a header; every other route takes it in a header only.
  await app.register(publicAdminRoutes);
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
    await app.register(adminUserRoutes);
    await app.register(adminProxyRoutes);
    await app.register(adminFindingRoutes);
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

/** Served without the admin token: the console page (it asks for the token) and the CA certificate. */
const publicAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  await app.register(adminCaRoute);
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
      preHandler: ownerFirst,
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
      preHandler: ownerFirst,
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
