import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { errors, ref } from '../../schemas/common.js';
import { fail } from '../../errors.js';
import { Har, JournalEntry, JournalQuery } from '../../schemas/control.js';
import { JournalCleared, JournalCount } from '../../schemas/control-answers.js';
import type { Sandbox } from '../../store/sandbox.js';
import { fieldFilter, isFieldFilterKey, type RegexLimits } from '../../shared/matchers.js';
import { version } from '../../version.js';
import { journalToHar } from '../har.js';
import { journalValueCheck } from '../filter-values.js';
import { sandboxFindings, SandboxQuery } from '../sandbox.js';
import { sendJsonStream } from '../export-stream.js';

const tags = ['mock'];

const JournalListQuery = Type.Object(
  {
    ...JournalQuery.properties,
    format: Type.Optional(
      Type.Union([Type.Literal('json'), Type.Literal('har')], {
        description: 'har: a HAR 1.2 log (oldest first) that opens in browser devtools',
      }),
    ),
  },
  { patternProperties: JournalQuery.patternProperties },
);

const filterSyntax =
  'header.NAME, query.NAME, body or body.PATH, each optionally followed by :regex, :contains or :present';

/**
 * The journal's filters are its schema's properties and the field filters' keys; anything else is a 400 naming it
 * (ajv's removeAdditional would drop it silently, and a misspelt filter would then match every entry). Runs before
 * validation, so it sees every key the client sent.
 */
const journalFilterCheck = (known: readonly string[]) => async (req: FastifyRequest) => {
  for (const [key, value] of Object.entries(req.query as Record<string, unknown>)) {
    if (known.includes(key)) continue;
    const field = typeof value === 'string' ? fieldFilter(key, value, req.server.config.regexMaxProgram) : null;
    if (field === null && !isFieldFilterKey(key))
      throw fail.validation(`unknown filter "${key}"; known: ${known.join(', ')}, ${filterSyntax}`, [
        { field: `query.${key}`, message: 'is not a filter' },
      ]);
    const problem = field === null ? 'expected one value' : 'problem' in field ? field.problem : null;
    if (problem)
      throw fail.validation(`invalid filter ${key}: ${problem}`, [{ field: `query.${key}`, message: problem }]);
  }
};

/** The regex bounds of a journal read (--regex-max-program, --regex-max-text, --regex-budget). */
const regexLimits = (req: FastifyRequest): RegexLimits => ({
  maxProgram: req.server.config.regexMaxProgram,
  maxText: req.server.config.regexMaxText,
  budget: req.server.config.regexBudget,
});

/** The journal entries that raised a finding of this code (the findings name their request's journal id). */
const raisedFinding = (req: FastifyRequest, sandbox: Sandbox, code: string | undefined) =>
  code === undefined
    ? undefined
    : new Set(
        sandboxFindings(req, sandbox)
          .list()
          .filter((f) => f.code === code)
          .map((f) => f.requestId),
      );

/** The request journal of a sandbox: filtered, counted, as HAR, emptied. */
export const journalRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/requests',
    {
      schema: {
        operationId: 'mockRequests',
        tags,
        summary: 'The request journal, newest first (or as HAR 1.2 with format=har)',
        querystring: JournalListQuery,
        description:
          'The requests the sandbox received, newest first, with their answers; filter by operationId, method, path, ' +
          'status (0: dropped before any answer), fault, finding, since, and by request header, query parameter ' +
          'or body field (header.NAME, query.NAME, body.PATH; :regex, :contains or :present after the key; ' +
          'docs/admin.md), or get a HAR 1.2 log with format=har (streamed: a client that reads nothing for ' +
          '--export-stall-timeout ms is cut). An unknown filter is a 400 naming it; an ' +
          'operationId, finding or fault that names nothing known is a 400 naming the closest known ones. A read ' +
          'whose :regex filters would take more than --regex-budget is a 422 saying how to narrow it. A sandbox ' +
          'that does not exist is a 404 (SANDBOX_NOT_FOUND); reading creates nothing.',
        response: {
          200: Type.Union([Type.Array(ref(JournalEntry)), ref(Har)]),
          ...errors(400, 401, 404, 422, 502, 503),
        },
      },
      config: { sandbox: 'read' },
      preValidation: [journalFilterCheck(Object.keys(JournalListQuery.properties)), journalValueCheck],
    },
    async (req, reply) => {
      const { sandbox } = req.mock;
      const har = req.query.format === 'har';
      const ids = raisedFinding(req, sandbox, req.query.finding);
      const entries = sandbox.journal.listed(req.query, ids, regexLimits(req), har ? 'oldest' : 'newest');
      // streamed, each entry read back as the writer reaches it: JSON.stringify's bytes
      if (!har) return sendJsonStream(reply, entries);
      const findings = sandboxFindings(req, sandbox).list();
      const log = journalToHar(entries, {
        protocol: req.protocol,
        fallbackHost: req.host,
        version,
        sandbox: sandbox.name,
        findings,
      });
      return sendJsonStream(reply, log, `portal-mock-${sandbox.name}.har`);
    },
  );

  app.get(
    '/requests/count',
    {
      schema: {
        operationId: 'mockRequestsCount',
        tags,
        summary: 'How many journal entries match',
        querystring: JournalQuery,
        description:
          'How many journal entries match the filters of GET /__admin/requests: for assertions in tests (a 422 ' +
          'as there when the :regex filters would take more than --regex-budget). A sandbox that does not exist is ' +
          'a 404 (SANDBOX_NOT_FOUND); reading creates nothing.',
        response: { 200: JournalCount, ...errors(400, 401, 404, 422, 502, 503) },
      },
      config: { sandbox: 'read' },
      preValidation: [journalFilterCheck(Object.keys(JournalQuery.properties)), journalValueCheck],
    },
    async (req) => {
      const { sandbox } = req.mock;
      const ids = raisedFinding(req, sandbox, req.query.finding);
      return { count: sandbox.journal.count(req.query, ids, regexLimits(req)) };
    },
  );

  app.delete(
    '/requests',
    {
      schema: {
        operationId: 'mockRequestsClear',
        tags,
        summary: 'Empty the journal',
        querystring: SandboxQuery,
        description: 'Empties the request journal of the sandbox.',
        response: { 200: JournalCleared, ...errors(400, 401) },
      },
      config: { sandbox: 'write' },
    },
    async (req) => {
      req.mock.sandbox.journal.clear();
      return { cleared: true };
    },
  );
};
