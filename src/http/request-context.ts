import type { IncomingMessage } from 'node:http';
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { fail } from '../errors.js';
import { isSandboxName } from '../store/sandbox.js';
import { isSideRoute, sandboxKey, type PrefixInfo } from './context.js';

/**
 * The first hook of every request: the sandbox (sandboxKey; on /__admin and /docs only an existing one, else
 * default: the admin part reads the `sandbox` query and decides whether to create it) and the route's config; and, on the way out, the instance's
 * name and the sandbox's commit: a change acknowledged to a client is in the sandbox's log before the answer leaves
 * (a no-op in memory). Every method commits: a read that moves tickets with the clock writes too.
 */
export const requestContextPlugin = fp(
  async (app: FastifyInstance, opts: { prefixes: WeakMap<IncomingMessage, PrefixInfo> }) => {
    app.decorateRequest('sandbox', null as never);
    app.decorateRequest('sandboxPrefix', '');
    app.decorateRequest('prefixSandbox', null);
    app.decorateRequest('apiPrefix', '');
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
      const name = sandboxKey(req.headers['x-mock-sandbox'], prefix?.sandbox);
      // a malformed prefix is refused even when the header names the sandbox: answers would hand out its URLs
      for (const n of prefix?.sandbox != null ? [name, prefix.sandbox] : [name]) {
        if (!isSandboxName(n))
          throw fail.badRequest(`sandbox name "${n.slice(0, 80)}" is invalid: use 1 to 64 letters, digits, "-" or "_"`);
      }
      req.sandboxPrefix = prefix?.sandboxPrefix ?? '';
      req.prefixSandbox = prefix?.sandbox ?? null;
      req.apiPrefix = prefix?.apiPrefix ?? '';
      req.sandbox = isSideRoute(req.url)
        ? (app.sandboxes.find(name) ?? app.sandboxes.get('default'))
        : app.sandboxes.get(name);
    });
    app.addHook('onSend', async (req, reply, payload) => {
      if (!reply.hasHeader('x-mock-instance')) reply.header('x-mock-instance', app.instance.name); // a forwarded answer names its owner
      req.sandbox?.commit();
      return payload;
    });
  },
  { name: 'request-context' },
);
