import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors } from '../schemas/common.js';
import { DataEntry } from '../schemas/scenario.js';
import { dataChanges, exportedCollections } from '../domain/data-changes.js';
import { recordCollections } from '../domain/records.js';
import { existingSandbox, SandboxQuery } from './sandbox.js';

const tags = ['mock'];

const ChangesQuery = Type.Object({
  ...SandboxQuery.properties,
  collections: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 2000,
      description: `only these collections, comma-separated (of ${recordCollections.join(', ')})`,
    }),
  ),
});

export const DataChanges = Type.Object({
  sandbox: Type.String(),
  seed: Type.Integer({ description: 'the seed of the base world the changes are against' }),
  refDate: Type.String({
    format: 'date-time',
    description:
      "that base world's reference date (the day it was seeded around): replayed on a world of another day, the " +
      'records the block does not name differ; GET /__admin/sandboxes/{name}/capture pins both',
  }),
  data: Type.Array(DataEntry, {
    description: "a scenario's data block: put it in a scenario file as `data` to replay these changes",
  }),
});

/** The export of a sandbox's data changes as a scenario's data block (docs/data.md, "Exporting changes"). */
export const adminDataChangesRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/__admin/data/changes',
    {
      schema: {
        operationId: 'mockDataChanges',
        tags,
        summary: "The sandbox's data changes against its seed, as a scenario's data block",
        description:
          'Records the sandbox made (create, whole), changed (patch, the changed fields) and removed (remove), ' +
          'against the base world it was made from, in an order that replays: referenced records are created first, ' +
          'records naming others are removed first. Signing in makes sessions, devices and two-factor challenges ' +
          'too: name the collections you want with `collections`. Reads never make a sandbox (404).',
        querystring: ChangesQuery,
        response: { 200: DataChanges, ...errors(400, 401, 404, 502, 503) },
      },
    },
    async (req) => {
      const sandbox = existingSandbox(req);
      const collections = exportedCollections(req.query.collections);
      const { seed, refDate } = sandbox.store.meta;
      return { sandbox: sandbox.name, seed, refDate, data: dataChanges(sandbox.store, collections) };
    },
  );
};
