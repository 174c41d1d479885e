import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { dataChanged } from '../store/data-version.js';

/**
 * Any request that may write (every method but GET and HEAD, API or admin) marks every sandbox's data as changed,
 * before and after it runs, so the indexes of large tenants (src/domain/people-index.ts) are rebuilt on next use.
 */
export const dataVersionPlugin = fp(async (app: FastifyInstance) => {
  const changed = (req: FastifyRequest) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') for (const sandbox of app.sandboxes.list()) dataChanged(sandbox.data);
  };
  app.pipeline.onRequest(changed);
  app.pipeline.onFinal(changed);
}, { name: 'data-version', dependencies: ['pipeline'] });
