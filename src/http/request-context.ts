import type { IncomingMessage } from 'node:http';
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { fail } from '../errors.js';
import { isSandboxName } from '../store/sandbox.js';
import type { PrefixInfo } from './context.js';

/**
 * The first hook of every request: the sandbox (the /sandbox/NAME prefix, else the x-mock-sandbox header, else
 * `default`) and the route's config; and, on the way out, the sandbox's commit: a change acknowledged to a client is
 * in the sandbox's log before the answer leaves (a no-op in memory). Every method commits: a read that moves tickets
 * with the clock writes too.
 */
export const requestContextPlugin = fp(async (app: FastifyInstance, opts: { prefixes: WeakMap<IncomingMessage, PrefixInfo> }) => {
  app.decorateRequest('sandbox', null as never);
  app.decorateRequest('sandboxPrefix', '');
  app.decorateRequest('routeConfig', null);
  app.decorateRequest('operationId', null);
  app.decorateRequest('arrivedAt', 0);
  // a thrown error reaches the error handler
  app.addHook('onRequest', async (req) => {
    req.arrivedAt = performance.now();
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
  app.addHook('onSend', async (req, _reply, payload) => {
    req.sandbox?.commit();
    return payload;
  });
}, { name: 'request-context' });
