import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorBody, ref } from '../schemas/common.js';
import { fail } from '../errors.js';
import { bindLinkContent, bindUrl, describeFixtures, phoneBase, qrSvg } from './fixtures.js';
import { FixturesAnswer } from '../schemas/admin.js';
import { secretMatches, hashSecret } from '../store/ids.js';
import { adminSandbox, SandboxQuery } from './sandbox.js';
import { adminSandboxRoutes } from './sandbox-routes.js';
import { consoleHtml } from './console.js';
import { adminUserRoutes } from './user-routes.js';
import { adminCaRoute } from './ca-route.js';
import { adminProxyRoutes } from './proxy-routes.js';

const tags = ['admin'];
const err = ref(ErrorBody);


/** The side routes QA scripts rely on; see the admin contract in the README. */
export const adminRoutes: FastifyPluginAsyncTypebox<{ version: string; startedAt: number }> = async (app, opts) => {
  const token = app.config.adminToken;
  if (token) {
    const tokenHash = hashSecret(token);
    app.addHook('onRequest', async (req) => {
      const auth = req.headers.authorization;
      const presented = typeof auth === 'string' && auth.startsWith('Bearer ') ? auth.slice(7) : req.headers['x-mock-admin-token'];
      if (typeof presented !== 'string' || !secretMatches(presented, tokenHash)) {
        throw fail.unauthorized('admin token required: Authorization: Bearer TOKEN (or x-mock-admin-token)');
      }
    });
  }

  // QA scripts call admin routes with curl and fetch as they come: `curl -X POST .../reset` (no body), `-d '{}'`
  // (form content type), an empty body with content-type JSON. In this scope a body is JSON whatever its content
  // type, and an admin route whose body is all optional takes no body as {}.
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (req, body, done) => {
    if (typeof body === 'string' && body.trim() === '') return done(null, undefined);
    json(req, String(body), done);
  });
  app.addHook('preValidation', async (req) => {
    if (req.body === undefined && req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'DELETE') req.body = {};
  });

  await app.register(adminSandboxRoutes);
  await app.register(adminUserRoutes);
  await app.register(adminCaRoute);
  await app.register(adminProxyRoutes);

  app.get('/__admin', {
    schema: { operationId: 'adminConsole', tags, summary: 'The web console (HTML)', response: { 200: { description: 'the console page', content: { 'text/html': { schema: Type.String() } } }, 401: err } },
  }, async (_req, reply) => reply.type('text/html; charset=utf-8').send(consoleHtml));

  app.get('/__admin/health', {
    schema: {
      operationId: 'adminHealth', tags, summary: 'Liveness and what is running',
      querystring: SandboxQuery,
      response: {
        200: Type.Object({
          status: Type.Literal('ok'), version: Type.String(), scenario: Type.String(), seed: Type.Integer(),
          uptimeMs: Type.Integer(), sandbox: Type.String(), sandboxes: Type.Integer({ description: 'sandboxes that exist now' }),
          sandboxLimit: Type.Integer({ description: '--max-sandboxes: a request that would create one more gets 429' }),
          memory: Type.Object({
            rssBytes: Type.Integer({ description: 'resident memory of the process' }),
            heapUsedBytes: Type.Integer({ description: 'JavaScript heap in use' }),
          }),
        }),
        400: err, 401: err,
      },
    },
  }, async (req) => {
    const sandbox = adminSandbox(req, false);
    return {
      status: 'ok' as const, version: opts.version, scenario: sandbox.scenario, seed: sandbox.store.meta.seed,
      uptimeMs: Math.round(performance.now() - opts.startedAt), sandbox: sandbox.name, sandboxes: app.sandboxes.size,
      sandboxLimit: app.sandboxes.limit, memory: { rssBytes: process.memoryUsage.rss(), heapUsedBytes: process.memoryUsage().heapUsed },
    };
  });

  app.get('/__admin/fixtures', {
    schema: {
      operationId: 'adminFixtures', tags, summary: 'Demo tenants, accounts, devices, API keys and bind links',
      querystring: SandboxQuery,
      response: { 200: ref(FixturesAnswer), 400: err, 401: err },
    },
  }, async (req) => describeFixtures(app.fixtures, req, adminSandbox(req).name));

  app.get('/__admin/bind-links/:id/qr.svg', {
    schema: {
      operationId: 'adminBindLinkQr', tags, summary: 'The QR code of a bind link, as SVG (scan it with the app)',
      params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) }),
      querystring: SandboxQuery,
      response: { 200: { description: 'the QR code', content: { 'image/svg+xml': { schema: Type.String() } } }, 400: err, 401: err, 404: err },
    },
  }, async (req, reply) => {
    const sandbox = adminSandbox(req);
    const link = sandbox.store.tenants().flatMap((t) => t.bindLinks).find((l) => l.id === req.params.id);
    if (!link) throw fail.notFound(`bind link ${req.params.id} not found in sandbox ${sandbox.name}`);
    const svg = await qrSvg(bindLinkContent(bindUrl(phoneBase(req, sandbox.name), link.id, link.token)));
    return reply.type('image/svg+xml').send(svg);
  });
};
