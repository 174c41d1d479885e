// What happened in a sandbox: the journal (with a count to assert), the findings with their explanations, the
// outbox (two-factor codes, pushes). Reads only; a sandbox that does not exist is the admin API's 404.
import { Type } from '@sinclair/typebox';
import type { McpServer } from '@modelcontextprotocol/server';
import {
  Finding,
  FindingQuery,
  JournalEntry,
  JournalFieldFilters,
  JournalQuery,
  OutboxMessage,
  OutboxQuery,
} from '../../schemas/control.js';
import { toolSchema } from '../json-schema.js';
import { accepted, fromAnswer, refusal, structured, toolError } from '../results.js';
import { adminUrl, SandboxName, type ToolContext } from './context.js';

/** Entries the journal tool answers unless asked for more: each may carry 8 KiB of body, and agents pay per byte. */
export const defaultJournalLimit = 20;
/** Most entries one read hands back (8 KiB of body each at most): page with `since` for more. */
export const maxJournalEntries = 200;

const { sandbox: _s1, limit: _l, ...journalFilters } = JournalQuery.properties;
const { sandbox: _s2, ...findingFilters } = FindingQuery.properties;
const { sandbox: _s3, ...outboxFilters } = OutboxQuery.properties;
const closed = { additionalProperties: false };

const JournalInput = Type.Object(
  {
    sandbox: SandboxName,
    ...journalFilters,
    fields: Type.Optional(
      Type.Object(
        {},
        {
          patternProperties: JournalFieldFilters.patternProperties,
          additionalProperties: false,
          description: 'header.NAME, query.NAME, body or body.PATH (+ :regex, :contains, :present) = value',
        },
      ),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: maxJournalEntries,
        description: `entries returned (default ${defaultJournalLimit}; 0: count only)`,
      }),
    ),
    expectCount: Type.Optional(
      Type.Integer({ minimum: 0, description: 'assert: the tool fails unless exactly this many entries match' }),
    ),
  },
  closed,
);

const schemas = {
  journalIn: toolSchema(JournalInput),
  journalOut: toolSchema(
    Type.Object({
      count: Type.Integer({ description: 'entries matching, in all' }),
      entries: Type.Array(JournalEntry, { description: 'the newest matching entries' }),
    }),
  ),
  findingsIn: toolSchema(Type.Object({ sandbox: SandboxName, ...findingFilters }, closed)),
  findingsOut: toolSchema(Type.Object({ findings: Type.Array(Finding) })),
  outboxIn: toolSchema(Type.Object({ sandbox: SandboxName, ...outboxFilters }, closed)),
  outboxOut: toolSchema(Type.Object({ messages: Type.Array(OutboxMessage) })),
};

const readOnly = { readOnlyHint: true, idempotentHint: true, openWorldHint: false };
type Query = Record<string, string | number | boolean | undefined>;

export function registerObserveTools(server: McpServer, { call }: ToolContext): void {
  server.registerTool(
    'read_journal',
    {
      title: 'Read and assert the journal',
      description:
        'The requests a sandbox received, newest first, with their answers: filter by operationId, method, path, ' +
        'status, fault, finding, since, and fields. expectCount asserts the number matching (an error says the ' +
        "count found). Returns count and entries; an entry's id is the requestId a finding (read_findings) names.",
      inputSchema: schemas.journalIn,
      outputSchema: schemas.journalOut,
      annotations: readOnly,
    },
    async ({ sandbox, fields, limit, expectCount, ...filters }) => {
      const query: Query = { ...(filters as Query), ...fields, sandbox };
      const counted = await call({ method: 'GET', url: adminUrl('/__admin/requests/count', query) });
      if (!accepted(counted)) return toolError(refusal(counted));
      const count = (counted.body as { count: number }).count;
      const wanted = limit ?? defaultJournalLimit;
      let entries: unknown[] = [];
      if (wanted > 0) {
        const listed = await call({ method: 'GET', url: adminUrl('/__admin/requests', { ...query, limit: wanted }) });
        if (!accepted(listed)) return toolError(refusal(listed));
        entries = listed.body as unknown[];
      }
      if (expectCount !== undefined && count !== expectCount) {
        const seen = entries.slice(0, 5).map((e) => {
          const entry = e as { method?: string; path?: string; status?: number };
          return `${entry.method} ${entry.path} ${entry.status}`;
        });
        return toolError(
          `expected ${expectCount} matching journal entries, found ${count}` +
            (seen.length > 0 ? ` (newest: ${seen.join('; ')})` : ''),
        );
      }
      return structured({ count, entries });
    },
  );

  server.registerTool(
    'read_findings',
    {
      title: 'Read findings',
      description:
        'What the app did in a sandbox that the real portal answers differently: each finding has a code, ' +
        'severity, the requestId of the request (an entry of read_journal) and a message saying what the portal does and ' +
        'what to change.',
      inputSchema: schemas.findingsIn,
      outputSchema: schemas.findingsOut,
      annotations: readOnly,
    },
    async ({ sandbox, ...filters }) =>
      fromAnswer(
        await call({ method: 'GET', url: adminUrl('/__admin/findings', { ...filters, sandbox }) }),
        (body) => ({
          findings: body,
        }),
      ),
  );

  server.registerTool(
    'read_outbox',
    {
      title: 'Read the outbox',
      description:
        'What the mock "sent" in a sandbox, newest first: two-factor codes (by e-mail) and pushes (by token). ' +
        'sign_in reads the code itself; use this to test push notifications. Returns the messages, for assertions.',
      inputSchema: schemas.outboxIn,
      outputSchema: schemas.outboxOut,
      annotations: readOnly,
    },
    async ({ sandbox, ...filters }) =>
      fromAnswer(await call({ method: 'GET', url: adminUrl('/__admin/outbox', { ...filters, sandbox }) }), (body) => ({
        messages: body,
      })),
  );
}
