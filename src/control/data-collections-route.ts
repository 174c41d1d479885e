import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors } from '../schemas/common.js';
import { recordCollections } from '../domain/records.js';

/**
 * GET /__admin/data/collections: the collections the records API serves, so a client (the console's data panel)
 * asks the server rather than keeping a copy of the names that drifts from src/schemas/tenant-data.ts.
 */
export const adminDataCollectionsRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/__admin/data/collections',
    {
      schema: {
        operationId: 'mockDataCollections',
        tags: ['mock'],
        summary: 'The collections of the records API',
        description:
          'The names that /__admin/data/{tenantId}/{collection} takes, sorted: the same for every tenant and sandbox.',
        response: {
          200: Type.Object({
            collections: Type.Array(Type.String(), { description: 'collection names, sorted' }),
          }),
          ...errors(401),
        },
      },
    },
    async () => ({ collections: recordCollections }),
  );
};
