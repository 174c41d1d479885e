import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors } from '../schemas/common.js';
import { fail } from '../errors.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** the local CA certificate (PEM) when the server runs with --https on the local CA, else null */
    caCertificate: string | null;
  }
}

/** GET /__admin/ca.pem: the local CA certificate, for a phone to install and trust (see the console). */
export const adminCaRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/__admin/ca.pem',
    {
      schema: {
        operationId: 'mockCaCertificate',
        tags: ['mock'],
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
