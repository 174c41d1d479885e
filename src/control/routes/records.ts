import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { fail } from '../../errors.js';
import { errors, ref } from '../../schemas/common.js';
import { storedRecords, type StoredRecord } from '../../schemas/stored-records.js';
import { DataEntry } from '../../schemas/scenario.js';
import { dataChanges, exportedCollections } from '../../domain/data-changes.js';
import {
  draftRecordsInSlices,
  deleteRecord,
  getRecord,
  listRecords,
  patchRecord,
  recordCollections,
  recordTenant,
} from '../../domain/records.js';
import { adminWork, SandboxQuery } from '../sandbox.js';
import { sendJsonStream } from '../export-stream.js';
import { jsonIsShort } from '../../shared/json-stream.js';
import { keptChars } from '../../store/journal.js';
import { strictJsonBodies } from '../../http/json-body.js';

const tags = ['mock'];

const TenantParams = Type.Object({ tenantId: Type.String({ minLength: 1, maxLength: 200 }) });
const RecordParams = Type.Object({ ...TenantParams.properties, id: Type.String({ minLength: 1, maxLength: 200 }) });
const CreateQuery = Type.Object({
  count: Type.Integer({ minimum: 1, maximum: 1000, default: 1, description: 'how many records alike to create' }),
  ...SandboxQuery.properties,
});
const Deleted = Type.Object({ deleted: Type.String() });
// a record another collection's record needs (a user's employment): any collection, so its own schema is not known
const DependentRecord = Type.Object(
  { id: Type.String() },
  { additionalProperties: true, description: 'a record of the collection it is listed under' },
);

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

/**
 * The records API (/__admin/data): any record of a tenant's data in the sandbox of the call, read and written
 * through the store's one write path (copy-on-write, logged with --data, undone by a reset, seen at once by the
 * portal's operations); the collections it serves; and a sandbox's changes as a scenario's data block.
 */
export const recordRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // the collections, asked of the server (the console's data panel) rather than a copy of the names that drifts
  app.get(
    '/data/collections',
    {
      schema: {
        operationId: 'mockDataCollections',
        tags,
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

  app.get(
    '/data/changes',
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
      config: { sandbox: 'read' },
    },
    async (req) => {
      const { sandbox } = req.mock;
      const collections = exportedCollections(req.query.collections);
      const { seed, refDate } = sandbox.store.meta;
      return { sandbox: sandbox.name, seed, refDate, data: dataChanges(sandbox.store, collections) };
    },
  );

  await app.register(recordsApi, { prefix: '/data' });
};

/** One set of routes per collection, so each has its record's schema in the API document. JSON bodies only. */
const recordsApi: FastifyPluginAsyncTypebox = async (app) => {
  strictJsonBodies(app);
  for (const collection of storedRecords) await app.register(collectionRoutes(collection));
  // a path below /__admin/data that no collection's routes answer: named with the collections there are (before the
  // control plane's own 404 for /__admin/*, as the longer path wins)
  app.route({
    method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    url: '/*',
    schema: { hide: true },
    handler: async (req) => {
      const path = req.url.split('?')[0]?.slice(0, 200);
      throw fail.notFound(
        `no records API route answers ${req.method} ${path}; collections: ${recordCollections.join(', ')}`,
      );
    },
  });
};

function collectionRoutes({ name, pascalName, schema, plain }: StoredRecord): FastifyPluginAsyncTypebox {
  const record = ref(schema);
  const fields = Type.Partial(plain, { description: `fields of a ${name} record` });
  const listQuery = Type.Object(
    {
      offset: Type.Integer({ minimum: 0, default: 0 }),
      limit: Type.Integer({ minimum: 1, maximum: 1000, default: 50 }),
      ...SandboxQuery.properties,
    },
    { additionalProperties: Type.String(), description: 'any other parameter: a field the records must equal' },
  );
  const path = `/:tenantId/${name}`;
  return async (app) => {
    app.get(
      path,
      {
        schema: {
          operationId: `mockData${pascalName}List`,
          tags,
          summary: `The ${name} records of a tenant, filtered by field equality, paged`,
          description:
            'Every query parameter but offset, limit and sandbox is a field the records must equal (compared as ' +
            'text: isActive=true); a field the records do not have is a 400. Reads never make a sandbox (404).',
          params: TenantParams,
          querystring: listQuery,
          response: {
            200: Type.Object({ total: Type.Integer(), records: Type.Array(record) }),
            ...errors(400, 401, 404, 502, 503),
          },
        },
        config: { sandbox: 'read' },
      },
      async (req) => {
        const { offset, limit, sandbox: _sandbox, ...where } = req.query;
        const tenant = recordTenant(req.mock.sandbox.store, req.params.tenantId);
        return listRecords(tenant, name, { offset, limit, where: where as Record<string, string> });
      },
    );

    app.get(
      `${path}/:id`,
      {
        schema: {
          operationId: `mockData${pascalName}Get`,
          tags,
          summary: `One ${name} record by id`,
          description: 'The record as the store holds it. Reads never make a sandbox (404).',
          params: RecordParams,
          querystring: SandboxQuery,
          response: { 200: record, ...errors(400, 401, 404, 502, 503) },
        },
        config: { sandbox: 'read' },
      },
      async (req) => {
        const tenant = recordTenant(req.mock.sandbox.store, req.params.tenantId);
        return getRecord(tenant, name, req.params.id);
      },
    );

    app.post(
      path,
      {
        schema: {
          operationId: `mockData${pascalName}Create`,
          tags,
          summary: `Create ${name} records, filling what is not given as the seeder would`,
          description:
            `The body is a ${name} record, whole or partial (\`?count=N\`: N alike). Fields not given are filled ` +
            "as the seeder fills them, from the sandbox's seed, stamped by the sandbox clock (docs/data.md); each " +
            `record is then checked whole against the ${name} schema and its references (400 naming the field; ` +
            'nothing is written). An id that exists is a 409; a collection that would pass its bound ' +
            '(--max-records over its seeded records) is a 422 and nothing is written.',
          params: TenantParams,
          querystring: CreateQuery,
          body: fields,
          response: {
            201: Type.Object({
              records: Type.Array(record, { description: 'the records made, in order' }),
              dependents: Type.Record(Type.String(), Type.Array(DependentRecord), {
                description:
                  "records of other collections made because these need them, by collection (a user's " +
                  'employment); records changed for them (the groups a user joins) are not repeated',
              }),
            }),
            ...errors(400, 401, 404, 409, 415, 422, 502, 503),
          },
        },
        config: { sandbox: 'write' },
      },
      async (req, reply) => {
        const full = app.memory.pastLimit();
        if (full) throw fail.unprocessable(`no records are made: ${full}`);
        const { sandbox } = req.mock;
        const options = { count: req.query.count, now: sandbox.clock.now(), maxRecords: app.config.maxRecords };
        // made in slices that let other requests through, then written at once in this call's unit of work
        const { created } = await adminWork(req).commitDraft(() =>
          draftRecordsInSlices(sandbox.store, req.params.tenantId, name, req.body, options),
        );
        reply.code(201);
        // A large answer (up to 1,000 records and their dependents, about 1 MB) is written in slices while the
        // client reads: serialized at once after the draft's slices it held the event loop for 10-270 ms (issue 54).
        // A short one goes as before, through the schema's serializer, and is kept in the journal.
        if (jsonIsShort(created, keptChars)) return created;
        return sendJsonStream(reply, created);
      },
    );

    app.patch(
      `${path}/:id`,
      {
        schema: {
          operationId: `mockData${pascalName}Patch`,
          tags,
          summary: `Change fields of a ${name} record`,
          description:
            "The fields given replace the record's; id and tenantId cannot change. The result is checked whole, " +
            'and the fields given against the records they name (400 naming the field; nothing is written).',
          params: RecordParams,
          querystring: SandboxQuery,
          body: fields,
          response: { 200: record, ...errors(400, 401, 404, 415, 502, 503) },
        },
        config: { sandbox: 'write' },
      },
      async (req) => {
        const { store } = req.mock.sandbox;
        return patchRecord(store, recordTenant(store, req.params.tenantId), name, req.params.id, req.body);
      },
    );

    app.delete(
      `${path}/:id`,
      {
        schema: {
          operationId: `mockData${pascalName}Delete`,
          tags,
          summary: `Delete a ${name} record`,
          description:
            'Removes the record. One that other records name (a field equal to its id, or a list holding it) is ' +
            'a 409 naming them: delete or patch those first. Nothing cascades.',
          params: RecordParams,
          querystring: SandboxQuery,
          response: { 200: Deleted, ...errors(400, 401, 404, 409, 502, 503) },
        },
        config: { sandbox: 'write' },
      },
      async (req) => {
        const { store } = req.mock.sandbox;
        deleteRecord(store, recordTenant(store, req.params.tenantId), name, req.params.id);
        return { deleted: req.params.id };
      },
    );
  };
}
