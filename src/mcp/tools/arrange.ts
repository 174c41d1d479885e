// arrange_sandbox, the composite tool: from nothing to an arranged, signed-in sandbox in one call (sandbox,
// scenario, clock, records by factory, sign-in), where the thin tools would take five or more.
import { Type } from '@sinclair/typebox';
import type { McpServer } from '@modelcontextprotocol/server';
import { ClockChange } from '../../schemas/control.js';
import type { AdminCall } from '../admin-call.js';
import { toolSchema } from '../json-schema.js';
import { accepted, refusal, structured, toolError } from '../results.js';
import { adminUrl, SandboxName, type ToolContext } from './context.js';
import { Collection, Fields, maxCount, TenantId, tenantOf } from './records.js';
import { Session, signIn, SignInFields } from './session.js';

/** Record entries one arrange takes; each makes at most `maxCount` records, within --max-records. */
export const maxArrangeEntries = 20;

const ArrangeInput = Type.Object(
  {
    sandbox: SandboxName,
    reset: Type.Optional(Type.Boolean({ description: 'reset it first when it exists (default false: reuse as is)' })),
    scenario: Type.Optional(Type.String({ minLength: 1, description: 'a known scenario to activate' })),
    scenarioDefinition: Type.Optional(
      Type.Object({}, { additionalProperties: true, description: 'or a whole scenario inline' }),
    ),
    clock: Type.Optional(Type.Object(ClockChange.properties, { additionalProperties: false })),
    tenantId: Type.Optional(TenantId),
    records: Type.Optional(
      Type.Array(
        Type.Object(
          {
            collection: Collection,
            fields: Type.Optional(Fields),
            count: Type.Optional(Type.Integer({ minimum: 1, maximum: maxCount })),
          },
          { additionalProperties: false },
        ),
        {
          maxItems: maxArrangeEntries,
          description: 'made in order by factory; a field value "$N" is the id of the first record of entry N',
        },
      ),
    ),
    signIn: Type.Optional(
      Type.Object(
        {
          email: Type.Optional(SignInFields.email),
          record: Type.Optional(Type.Integer({ minimum: 0, description: 'or the user made by records entry N' })),
          password: SignInFields.password,
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
type ArrangeArgs = {
  sandbox: string;
  reset?: boolean;
  scenario?: string;
  scenarioDefinition?: Record<string, unknown>;
  clock?: Record<string, unknown>;
  tenantId?: string;
  records?: { collection: string; fields?: Record<string, unknown>; count?: number }[];
  signIn?: { email?: string; record?: number; password?: string };
};

const Made = Type.Object({
  collection: Type.String(),
  ids: Type.Array(Type.String()),
  first: Type.Object({}, { additionalProperties: true, description: 'the first record made, whole' }),
  dependents: Type.Record(Type.String(), Type.Array(Type.String()), {
    description: 'ids made with them, by collection',
  }),
});
const ArrangeOutput = Type.Object({
  sandbox: Type.String(),
  created: Type.Boolean({ description: 'the sandbox was made by this call' }),
  scenario: Type.String(),
  now: Type.String({ description: 'the sandbox clock' }),
  tenantId: Type.String(),
  made: Type.Array(Made, { description: 'per records entry, in order' }),
  session: Type.Optional(Session),
});
const schemas = { in: toolSchema(ArrangeInput), out: toolSchema(ArrangeOutput) };

const placeholder = /^\$(\d+)$/;

/** Fields with each "$N" replaced by the id of entry N's first record; a "$N" not made yet is a problem. */
function resolveRefs(value: unknown, made: { ids: string[] }[]): unknown {
  if (typeof value === 'string') {
    const m = placeholder.exec(value);
    if (!m) return value;
    const id = made[Number(m[1])]?.ids[0];
    if (id === undefined) throw new Error(`"${value}" names records entry ${m[1]}, which is not made before this one`);
    return id;
  }
  if (Array.isArray(value)) return value.map((v) => resolveRefs(v, made));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveRefs(v, made)]));
  return value;
}

/** What the input asks that can be refused before anything is done. */
function problems(args: ArrangeArgs): string[] {
  const found: string[] = [];
  if (args.scenario !== undefined && args.scenarioDefinition !== undefined)
    found.push('give scenario or scenarioDefinition, not both');
  const entries = args.records ?? [];
  entries.forEach((entry, index) => {
    const refs = JSON.stringify(entry.fields ?? {}).match(/"\$\d+"/g) ?? [];
    for (const ref of refs) {
      const n = Number(ref.slice(2, -1));
      if (n >= index) found.push(`records[${index}].fields: ${ref} must name an earlier entry (0 to ${index - 1})`);
    }
  });
  const who = args.signIn;
  if (who) {
    if ((who.email === undefined) === (who.record === undefined))
      found.push('signIn: give email or record, one of them');
    if (who.record !== undefined && entries[who.record]?.collection !== 'users')
      found.push(`signIn.record: records[${who.record}] must be a users entry`);
  }
  return found;
}

type Step = { done: string[] };

async function arrange(call: AdminCall, args: ArrangeArgs, log: Step) {
  const { sandbox } = args;
  const q = { sandbox };
  const fail = (what: string, answer: Parameters<typeof refusal>[0]) => new Error(`${what}: ${refusal(answer)}`);

  const made = await call({ method: 'PUT', url: `/__admin/sandboxes/${encodeURIComponent(sandbox)}`, body: {} });
  if (!accepted(made)) throw fail('making the sandbox', made);
  const created = made.status === 201;
  log.done.push(created ? 'sandbox made' : 'sandbox reused');
  if (args.reset && !created) {
    const reset = await call({ method: 'POST', url: adminUrl('/__admin/reset', q), body: {} });
    if (!accepted(reset)) throw fail('reset', reset);
    log.done.push('reset');
  }
  if (args.scenario !== undefined || args.scenarioDefinition !== undefined) {
    const body = args.scenario !== undefined ? { name: args.scenario } : { scenario: args.scenarioDefinition };
    const set = await call({ method: 'PUT', url: adminUrl('/__admin/scenario', q), body });
    if (!accepted(set)) throw fail('scenario', set);
    log.done.push('scenario set');
  }
  if (args.clock !== undefined) {
    const clock = await call({ method: 'PUT', url: adminUrl('/__admin/clock', q), body: args.clock });
    if (!accepted(clock)) throw fail('clock', clock);
    log.done.push('clock set');
  }
  const tenant = await tenantOf(call, args.tenantId);
  if (typeof tenant !== 'string') throw new Error(tenant.error);
  const results: { collection: string; ids: string[]; first: unknown; dependents: Record<string, string[]> }[] = [];
  for (const [index, entry] of (args.records ?? []).entries()) {
    const fields = resolveRefs(entry.fields ?? {}, results);
    const url = adminUrl(`/__admin/data/${encodeURIComponent(tenant)}/${entry.collection}`, {
      sandbox,
      count: entry.count,
    });
    const answer = await call({ method: 'POST', url, body: fields });
    if (!accepted(answer)) throw fail(`records[${index}] (${entry.collection})`, answer);
    const body = answer.body as { records: { id: string }[]; dependents: Record<string, { id: string }[]> };
    results.push({
      collection: entry.collection,
      ids: body.records.map((r) => r.id),
      first: body.records[0],
      dependents: Object.fromEntries(Object.entries(body.dependents).map(([c, list]) => [c, list.map((r) => r.id)])),
    });
    log.done.push(`records[${index}] made`);
  }
  let session: Awaited<ReturnType<typeof signIn>> | undefined;
  if (args.signIn) {
    const who = args.signIn;
    const user =
      who.record === undefined ? undefined : (results[who.record]?.first as { email?: string; password?: string });
    const email = who.email ?? user?.email ?? '(no e-mail)';
    // a made user's record holds its password (demo1234 unless the fields gave another)
    const password = who.password ?? user?.password;
    session = await signIn(call, { sandbox, email, ...(password === undefined ? {} : { password }) });
    if ('error' in session) throw new Error(`sign-in as ${email}: ${session.error}`);
  }
  const info = await call({ method: 'GET', url: `/__admin/sandboxes/${encodeURIComponent(sandbox)}` });
  if (!accepted(info)) throw fail('reading the sandbox', info);
  const { scenario, now } = info.body as { scenario: string; now: string };
  return { sandbox, created, scenario, now, tenantId: tenant, made: results, ...(session ? { session } : {}) };
}

export function registerArrangeTool(server: McpServer, { call }: ToolContext): void {
  server.registerTool(
    'arrange_sandbox',
    {
      title: 'Arrange a sandbox and sign in',
      description:
        'Start here. In one call: make (or reuse, or reset) a sandbox, set its scenario and clock, make records by ' +
        'factory (partial records filled as the seeder does; "$N" refers to an earlier entry) and sign in as a ' +
        'demo account or a made user. Returns the made ids (for call_portal pathParams/query and records) and ' +
        '`session`: pass it as is to call_portal as `session`. A refused step stops it; a sandbox it made is ' +
        'deleted again.',
      inputSchema: schemas.in,
      outputSchema: schemas.out,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    async (args) => {
      const found = problems(args);
      if (found.length > 0) return toolError(`nothing was done: ${found.join('; ')}`);
      const log: Step = { done: [] };
      try {
        return structured(await arrange(call, args, log));
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        // a sandbox this call made leaves with it: a refused arrange does not leave half a sandbox behind
        if (log.done[0] === 'sandbox made') {
          await call({ method: 'DELETE', url: `/__admin/sandboxes/${encodeURIComponent(args.sandbox)}` });
          return toolError(`${message} (the sandbox it made was deleted again)`);
        }
        return toolError(`${message} (done before: ${log.done.join(', ') || 'nothing'})`);
      }
    },
  );
}
