import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors } from '../schemas/common.js';
import {
  createRecords,
  deleteRecord,
  getRecord,
  listRecords,
  patchRecord,
  recordCollections,
  recordTenant,
} from '../domain/records.js';
import { adminSandbox, existingSandbox, ownerFirst, SandboxQuery } from './sandbox.js';

const tags = ['mock'];

const CollectionParams = Type.Object({
  tenantId: Type.String({ minLength: 1, maxLength: 200 }),
  collection: Type.String({ minLength: 1, maxLength: 80, description: `one of ${recordCollections.join(', ')}` }),
});
const RecordParams = Type.Object({ ...CollectionParams.properties, id: Type.String({ minLength: 1, maxLength: 200 }) });
// a record of any collection: each is checked against its own collection's schema by the handler (docs/data.md)
const AnyRecord = Type.Object({ id: Type.String() }, { additionalProperties: true });
const RecordBody = Type.Object({}, { additionalProperties: true, description: 'fields of a record of the collection' });
const CreateBody = Type.Object(
  {},
  {
    additionalProperties: true,
    description: 'a record of the collection, or {count: N, record: {...}} for N records alike (docs/data.md)',
  },
);
const CreatedRecords = Type.Object({
  records: Type.Array(AnyRecord, { description: 'the records of the collection named, in the order made' }),
  dependents: Type.Record(Type.String(), Type.Array(AnyRecord), {
    description:
      "records of other collections made because those need them, by collection (a user's employment); records " +
      'changed for them (the user groups a user joins) are not repeated',
  }),
});
const ListQuery = Type.Object(
  {
    offset: Type.Integer({ minimum: 0, default: 0 }),
    limit: Type.Integer({ minimum: 1, maximum: 1000, default: 50 }),
    ...SandboxQuery.properties,
  },
  { additionalProperties: Type.String(), description: 'any other parameter: a field the records must equal' },
);

/**
 * The records API: any record of a tenant's data in the sandbox of the call, read and written through the store's
 * one write path (copy-on-write, logged with --data, undone by a reset, seen at once by the portal's operations).
 */
export const adminDataRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/__admin/data/:tenantId/:collection',
    {
      schema: {
        operationId: 'mockRecordList',
        tags,
        summary: 'The records of a collection of a tenant, filtered by field equality, paged',
        description:
          'Every query parameter but offset, limit and sandbox is a field the records must equal (compared as text: ' +
          'isActive=true); a field the records do not have is a 400. Reads never make a sandbox (404).',
        params: CollectionParams,
        querystring: ListQuery,
        response: {
          200: Type.Object({ total: Type.Integer(), records: Type.Array(AnyRecord) }),
          ...errors(400, 401, 404, 502, 503),
        },
      },
      preHandler: ownerFirst,
    },
    async (req) => {
      const { offset, limit, sandbox: _sandbox, ...where } = req.query;
      const tenant = recordTenant(existingSandbox(req).store, req.params.tenantId);
      return listRecords(tenant, req.params.collection, { offset, limit, where: where as Record<string, string> });
    },
  );

  app.get(
    '/__admin/data/:tenantId/:collection/:id',
    {
      schema: {
        operationId: 'mockRecordGet',
        tags,
        summary: 'One record by id',
        description: 'The record as the store holds it. Reads never make a sandbox (404).',
        params: RecordParams,
        querystring: SandboxQuery,
        response: { 200: AnyRecord, ...errors(400, 401, 404, 502, 503) },
      },
      preHandler: ownerFirst,
    },
    async (req) => {
      const tenant = recordTenant(existingSandbox(req).store, req.params.tenantId);
      return getRecord(tenant, req.params.collection, req.params.id);
    },
  );

  app.post(
    '/__admin/data/:tenantId/:collection',
    {
      schema: {
        operationId: 'mockRecordCreate',
        tags,
        summary: 'Create records, filling what is not given as the seeder would',
        description:
          'The body is a record, whole or partial, or {count, record} for several alike. Fields not given are ' +
          "filled as the seeder fills them, from the sandbox's seed, stamped by the sandbox clock (docs/data.md); " +
          "each record is then checked whole against its collection's schema and its references (400 naming the " +
          'field; nothing is written). An id that exists is a 409.',
        params: CollectionParams,
        querystring: SandboxQuery,
        body: CreateBody,
        response: { 201: CreatedRecords, ...errors(400, 401, 404, 409, 502, 503) },
      },
      preHandler: ownerFirst,
    },
    async (req, reply) => {
      const sandbox = adminSandbox(req);
      const tenant = recordTenant(sandbox.store, req.params.tenantId);
      // a refused record leaves no trace, not even a minted id: the same calls give the same ids
      const create = () => createRecords(sandbox.store, tenant, req.params.collection, req.body, sandbox.clock.now());
      const created = sandbox.change(() => sandbox.store.transaction(create));
      reply.code(201);
      return created;
    },
  );

  app.patch(
    '/__admin/data/:tenantId/:collection/:id',
    {
      schema: {
        operationId: 'mockRecordPatch',
        tags,
        summary: 'Change fields of a record',
        description:
          "The fields given replace the record's; id and tenantId cannot change. The result is checked whole, and " +
          'the fields given against the records they name (400 naming the field; nothing is written).',
        params: RecordParams,
        querystring: SandboxQuery,
        body: RecordBody,
        response: { 200: AnyRecord, ...errors(400, 401, 404, 502, 503) },
      },
      preHandler: ownerFirst,
    },
    async (req) => {
      const sandbox = existingSandbox(req);
      const { tenantId, collection, id } = req.params;
      const tenant = recordTenant(sandbox.store, tenantId);
      return sandbox.change(() => patchRecord(sandbox.store, tenant, collection, id, req.body));
    },
  );

  app.delete(
    '/__admin/data/:tenantId/:collection/:id',
    {
      schema: {
        operationId: 'mockRecordDelete',
        tags,
        summary: 'Delete a record',
        description:
          'Removes the record. One that other records name (a field equal to its id, or a list holding it) is ' +
          'a 409 naming them: delete or patch those first. Nothing cascades.',
        params: RecordParams,
        querystring: SandboxQuery,
        response: { 200: Type.Object({ deleted: Type.String() }), ...errors(400, 401, 404, 409, 502, 503) },
      },
      preHandler: ownerFirst,
    },
    async (req) => {
      const sandbox = existingSandbox(req);
      const { tenantId, collection, id } = req.params;
      const tenant = recordTenant(sandbox.store, tenantId);
      sandbox.change(() => deleteRecord(sandbox.store, tenant, collection, id));
      return { deleted: id };
    },
  );
};
