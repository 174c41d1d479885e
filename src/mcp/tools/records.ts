// The records API as one tool (a collection enum instead of five tools per collection, which would make the tool
// list hundreds of entries long); each collection's record schema is the resource portal-mock://records/{name}.
import { Type } from '@sinclair/typebox';
import type { McpServer } from '@modelcontextprotocol/server';
import { storedRecords } from '../../schemas/stored-records.js';
import type { AdminCall } from '../admin-call.js';
import { oneOf, toolSchema } from '../json-schema.js';
import { accepted, fromAnswer, refusal, toolError } from '../results.js';
import { adminUrl, SandboxName, type ToolContext } from './context.js';

export const collectionNames = storedRecords.map((r) => r.name);
export const Collection = oneOf(collectionNames, {
  description: 'a collection of tenant data; its record schema is the resource portal-mock://records/{collection}',
});
export const TenantId = Type.String({
  format: 'uuid',
  description: 'the tenant (default: the first of the fixtures, resource portal-mock://fixtures)',
});
export const Fields = Type.Object(
  {},
  { additionalProperties: true, description: "fields of the collection's record; on create the rest is filled" },
);
/** Most records one call makes: the records API's own bound for one create (?count=). */
export const maxCount = 1000;

const RecordsInput = Type.Object(
  {
    sandbox: SandboxName,
    action: oneOf(['list', 'get', 'create', 'patch', 'delete']),
    collection: Collection,
    tenantId: Type.Optional(TenantId),
    id: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'the record (get, patch, delete)' })),
    fields: Type.Optional(Fields),
    count: Type.Optional(Type.Integer({ minimum: 1, maximum: maxCount, description: 'create: this many alike' })),
    filters: Type.Optional(
      Type.Record(Type.String(), Type.String(), { description: 'list: fields the records must equal (as text)' }),
    ),
    offset: Type.Optional(Type.Integer({ minimum: 0 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  },
  { additionalProperties: false },
);
const AnyRecord = Type.Object({}, { additionalProperties: true });
const RecordsOutput = Type.Object({
  records: Type.Array(AnyRecord, { description: 'the records listed, read, made or changed' }),
  total: Type.Optional(Type.Integer({ description: 'list: how many match in all' })),
  dependents: Type.Optional(
    Type.Record(Type.String(), Type.Array(AnyRecord), {
      description: "create: records made with them (a user's employment)",
    }),
  ),
  deleted: Type.Optional(Type.String()),
});

const schemas = { in: toolSchema(RecordsInput), out: toolSchema(RecordsOutput) };

/** The tenant a call names, else the fixtures' first; a refusal says why there is none. */
export async function tenantOf(call: AdminCall, tenantId?: string): Promise<string | { error: string }> {
  if (tenantId) return tenantId;
  // the fixtures are the server's, the same in every sandbox: the default one always exists
  const answer = await call({ method: 'GET', url: '/__admin/fixtures' });
  const first = (answer.body as { tenants?: { id: string }[] } | null)?.tenants?.[0]?.id;
  if (!accepted(answer) || !first) return { error: `no tenant to default to: ${refusal(answer)}` };
  return first;
}

export function registerRecordTools(server: McpServer, { call }: ToolContext): void {
  server.registerTool(
    'records',
    {
      title: 'Read and write records',
      description:
        "A sandbox's data, one collection at a time: list (filters, offset, limit), get, create (a partial record " +
        'filled as the seeder does; count makes N alike), patch, delete by id. Checked against the record schema ' +
        'and references (refusals name the field). Returns the records: their ids feed call_portal (pathParams, ' +
        'query) and later records calls.',
      inputSchema: schemas.in,
      outputSchema: schemas.out,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    async (args) => {
      const tenant = await tenantOf(call, args.tenantId);
      if (typeof tenant !== 'string') return toolError(tenant.error);
      const base = `/__admin/data/${encodeURIComponent(tenant)}/${args.collection}`;
      const one = (id: string | undefined) => `${base}/${encodeURIComponent(id ?? '')}`;
      const needId = () => toolError(`${args.action} needs id: the record's id`);
      switch (args.action) {
        case 'list': {
          const query = { ...args.filters, offset: args.offset, limit: args.limit, sandbox: args.sandbox };
          return fromAnswer(
            await call({ method: 'GET', url: adminUrl(base, query) }),
            (b) => b as Record<string, unknown>,
          );
        }
        case 'get':
          if (!args.id) return needId();
          return fromAnswer(
            await call({ method: 'GET', url: adminUrl(one(args.id), { sandbox: args.sandbox }) }),
            (b) => ({ records: [b] }),
          );
        case 'create':
          return fromAnswer(
            await call({
              method: 'POST',
              url: adminUrl(base, { sandbox: args.sandbox, count: args.count }),
              body: args.fields ?? {},
            }),
            (b) => b as Record<string, unknown>,
          );
        case 'patch':
          if (!args.id) return needId();
          return fromAnswer(
            await call({
              method: 'PATCH',
              url: adminUrl(one(args.id), { sandbox: args.sandbox }),
              body: args.fields ?? {},
            }),
            (b) => ({ records: [b] }),
          );
        case 'delete':
          if (!args.id) return needId();
          return fromAnswer(
            await call({ method: 'DELETE', url: adminUrl(one(args.id), { sandbox: args.sandbox }) }),
            (b) => ({ records: [], deleted: (b as { deleted: string }).deleted }),
          );
      }
    },
  );
}
