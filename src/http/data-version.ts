import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { dataChanged } from '../store/data-version.js';

/**
 * Any request that may write (every method but GET and HEAD, API or admin) marks every sandbox's data as changed,
 * before and after it runs, so the indexes of large tenants (src/domain/people-index.ts) are rebuilt on next use.
 */
export const dataVersionPlugin = fp(async (app: FastifyInstance) => {
  // callback style: no promise per request
  const changed = (req: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') for (const sandbox of app.sandboxes.list()) dataChanged(sandbox.data);
    done();
  };
  app.addHook('onRequest', changed);
  app.addHook('onResponse', changed);
}, { name: 'data-version' });
