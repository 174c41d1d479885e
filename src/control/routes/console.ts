// The control plane's public routes: what a browser or a phone opens as it is, without the admin token. They hold
// nothing secret (the console page asks for the token itself).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors } from '../../schemas/common.js';
import { fail } from '../../errors.js';
import { packageRoot } from '../../paths.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** the local CA certificate (PEM) when the server runs with --https on the local CA, else null */
    caCertificate: string | null;
  }
}

const tags = ['mock'];
const openApiMediaType = 'application/vnd.oai.openapi+json';

/** The web console (public/console.html), the control plane's API document and the local CA certificate. */
export const consoleRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // One self-contained page over the admin JSON routes: no build step, read once.
  const consoleHtml = readFileSync(join(packageRoot, 'public/console.html'), 'utf8');
  app.get(
    '',
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
      config: { adminToken: 'none' },
    },
    async (_req, reply) => reply.type('text/html; charset=utf-8').send(consoleHtml),
  );

  app.get(
    '/openapi.json',
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
      config: { adminToken: 'none' },
    },
    // the document as built for the control plane's context (src/app.ts registers its @fastify/swagger)
    async (_req, reply) => reply.type(openApiMediaType).send(app.swagger()),
  );

  app.get(
    '/ca.pem',
    {
      schema: {
        operationId: 'mockCaCertificate',
        tags,
        summary:
          'The local certificate authority (PEM) that signed the HTTPS certificate: install it on the phone and trust ' +
          'it',
        description:
          'iOS: open this address in Safari, install the profile (Settings › General › VPN & Device Management), then ' +
          'turn on full trust in Settings › General › About › Certificate Trust Settings. Android: Settings › ' +
          'Security › Encryption & credentials › Install a certificate › CA certificate; debug builds also need a ' +
          'network_security_config with <certificates src="user"/>. 404 when the server does not run with --https on ' +
          'the local CA.',
        produces: ['application/x-x509-ca-cert'],
        response: { 200: Type.String({ description: 'the CA certificate, PEM' }), ...errors(401, 404) },
      },
      config: { adminToken: 'none' },
    },
    async (_req, reply) => {
      if (!app.caCertificate)
        throw fail.notFound('no local CA: start portal-mock with --https (without --tls-cert) to get one');
      return reply
        .type('application/x-x509-ca-cert')
        .header('content-disposition', 'attachment; filename="portal-mock-ca.pem"')
        .send(app.caCertificate);
    },
  );
};
