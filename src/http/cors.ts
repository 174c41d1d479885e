import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { errorBody } from '../errors.js';
import { ErrorBody } from '../schemas/common.js';

/**
 * Cross-origin access for app builds that run in a browser (web previews of React Native, Flutter or Ionic apps):
 * any origin is allowed, with credentials, as a development server would. Our own few lines instead of
 * @fastify/cors: its hook cost about 1 µs of the light read's ~25 µs, on requests that almost never carry an Origin.
 */
export const allowedMethods = 'GET,HEAD,PUT,PATCH,POST,DELETE';

/** Called first for every request (src/http/request-context.ts), so error answers carry the headers too. */
export function corsHeaders(req: FastifyRequest, reply: FastifyReply): void {
  // the answer differs with the Origin header, so shared caches must key on it
  reply.header('vary', 'Origin');
  const origin = req.headers.origin;
  if (origin === undefined) return;
  reply.header('access-control-allow-origin', origin);
  reply.header('access-control-allow-credentials', 'true');
}

/** Preflight requests (OPTIONS with Origin and Access-Control-Request-Method) for every path. */
export async function corsPreflightRoute(app: FastifyInstance): Promise<void> {
  app.options('*', {
    schema: {
      hide: true,
      response: { 204: Type.Null(), 400: ErrorBody },
    },
  }, async (req, reply) => {
    const method = req.headers['access-control-request-method'];
    if (req.headers.origin === undefined || typeof method !== 'string') {
      return reply.code(400).send(errorBody(400, 'BAD_REQUEST', 'invalid preflight request: the Origin and Access-Control-Request-Method headers are required'));
    }
    reply.header('access-control-allow-methods', allowedMethods);
    const asked = req.headers['access-control-request-headers'];
    if (typeof asked === 'string' && asked !== '') {
      reply.header('access-control-allow-headers', asked);
      reply.header('vary', 'Origin, Access-Control-Request-Headers');
    }
    reply.header('access-control-max-age', '600');
    return reply.code(204).send();
  });
}
