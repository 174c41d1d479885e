import type { IncomingMessage } from 'node:http';
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { fail } from '../errors.js';
import { isSandboxName } from '../store/sandbox.js';
import type { PrefixInfo } from './context.js';
import { corsHeaders } from './cors.js';

/** The first hook of every request: CORS headers (src/http/cors.ts), then the sandbox: the /sandbox/NAME prefix, else the x-mock-sandbox header, else `default`. */
export const requestContextPlugin = fp(async (app: FastifyInstance, opts: { prefixes: WeakMap<IncomingMessage, PrefixInfo> }) => {
  app.decorateRequest('sandbox', null as never);
  app.decorateRequest('sandboxPrefix', '');
  app.decorateRequest('routeConfig', null);
  app.decorateRequest('operationId', null);
  app.decorateRequest('answerPlain', null);
  app.decorateRequest('arrivedAt', 0);
  // the first step of every request (src/http/pipeline.ts); a thrown error reaches the error handler
  app.pipeline.onRequest((req, reply) => {
    // the journal's duration: Fastify's reply.elapsedTime counts from listeners it sets up only when there are
    // onResponse hooks (there are none) or a logger (not in every app)
    req.arrivedAt = performance.now();
    corsHeaders(req, reply);
    const route = req.routeOptions;
    req.routeConfig = route.config ?? null;
    req.operationId = typeof route.schema?.operationId === 'string' ? route.schema.operationId : null;
    const prefix = opts.prefixes.get(req.raw);
    const fromHeader = req.headers['x-mock-sandbox'];
    const name = prefix?.sandbox ?? (typeof fromHeader === 'string' && fromHeader !== '' ? fromHeader : 'default');
    if (!isSandboxName(name)) {
      throw fail.badRequest(`sandbox name "${name.slice(0, 80)}" is invalid: use 1 to 64 letters, digits, "-" or "_"`);
    }
    req.sandboxPrefix = prefix?.sandboxPrefix ?? '';
    req.sandbox = app.sandboxes.get(name);
  });
}, { name: 'request-context', dependencies: ['pipeline'] });
