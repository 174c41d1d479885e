import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { errors, ref } from '../schemas/common.js';
import { fail } from '../errors.js';
import { Data } from '../schemas/tenant-data.js';
import { checkOrThrow, CheckError } from '../schemas/check.js';
import {
  ActiveScenario,
  BindLink,
  ClockAnswer,
  ClockChange,
  Har,
  JournalEntry,
  JournalQuery,
  OutboxMessage,
  OutboxQuery,
  ScenarioSummary,
  SandboxInfo,
  Snapshot,
  clockRangeText,
  maxAheadSeconds,
} from '../schemas/control.js';
import { clockProblem, nextClockState } from '../store/clock.js';
import { newSecret, newUuid } from '../store/ids.js';
import type { Sandbox } from '../store/sandbox.js';
import { activateScenario, checkActivation, expireSessions } from '../scenarios/activate.js';
import { ScenarioError } from '../scenarios/registry.js';
import {
  adminSandbox,
  adminSandboxName,
  adminWrite,
  adminUser,
  existingSandbox,
  sandboxFindings,
  sandboxNotFound,
  SandboxQuery,
} from './sandbox.js';
import { isSandboxName } from '../store/sandbox.js';
import { header } from '../http/context.js';
import { clusterSandboxes, forwardToOwner } from './peers.js';
import { bindLinkAddresses } from './fixtures.js';
import { journalToHar } from './har.js';
import { version } from '../version.js';
import { fieldFilter, isFieldFilterKey, type RegexLimits } from '../shared/matchers.js';
import { journalValueCheck } from './filter-values.js';
import {
  JournalCleared,
  JournalCount,
  SandboxDeleted,
  SandboxesDeleted,
  SandboxesReset,
  SessionsExpired,
} from '../schemas/control-answers.js';

const tags = ['mock'];

const describe = (s: Sandbox, instance: string) => ({
  instance,
  name: s.name,
  scenario: s.scenario,
  createdAt: s.createdAt,
  clock: s.clock.state,
  now: s.clock.iso(),
  persistent: s.persistent,
  journalEntries: s.journal.size(),
  outboxMessages: s.outbox.list().length,
});

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

/** Sandboxes, scenario switching, reset, state, journal, outbox, clock, sessions and bind links. */
export const adminSandboxRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/__admin/scenarios',
    {
      schema: {
        operationId: 'mockScenarios',
        tags,
        summary: 'Available scenarios',
        description:
          'The scenario names the mock knows (bundled and from --scenarios directories), each with its description ' +
          'and the scenarios it extends.',
        response: { 200: Type.Array(ScenarioSummary), ...errors(401) },
      },
    },
    async () =>
      app.scenarios.list().map((s) => ({ name: s.name, description: s.description, extends: s.chain.slice(0, -1) })),
  );

  app.get(
    '/__admin/scenario',
    {
      schema: {
        operationId: 'mockScenarioGet',
        tags,
        summary: 'The active scenario of the sandbox',
        querystring: SandboxQuery,
        description:
          'The active scenario of the sandbox (?sandbox=NAME or x-mock-sandbox; else default). A sandbox that does ' +
          'not exist is a 404 (SANDBOX_NOT_FOUND); reading creates nothing.',
        response: { 200: ActiveScenario, ...errors(400, 401, 404, 502, 503) },
      },
    },
    async (req) => {
      const sandbox = existingSandbox(req);
      return {
        sandbox: sandbox.name,
        name: sandbox.scenario,
        description: app.scenarios.get(sandbox.scenario)?.description ?? '',
      };
    },
  );

  app.put(
    '/__admin/scenario',
    {
      schema: {
        operationId: 'mockScenarioSet',
        tags,
        summary: 'Activate a scenario in the sandbox (its data effects apply now)',
        description:
          'Activates a scenario in the sandbox: its data effects apply now and its stubs and faults from the next ' +
          'request. Give `name` (an unknown name is a 404), or `scenario`: a whole scenario inline, as a file ' +
          'holds it, which is first defined on this instance under its own name (as PUT /__admin/scenarios/{name} ' +
          'does; a definition that is not valid is a 400 naming the JSON path, and nothing changes). A data block ' +
          'that does not apply to the sandbox is a 422 naming the entry: the sandbox keeps its scenario and data ' +
          '(and an inline scenario is not defined). An inline scenario has the bounds of a defined one (413, 409).',
        querystring: SandboxQuery,
        body: Type.Object({
          name: Type.Optional(Type.String({ minLength: 1 })),
          scenario: Type.Optional(
            Type.Object({}, { additionalProperties: true, description: 'a scenario file (ScenarioFile), inline' }),
          ),
          sandbox: Type.Optional(Type.String()),
        }),
        response: { 200: ActiveScenario, ...errors(400, 401, 404, 409, 413, 422) },
      },
    },
    async (req) => {
      const { name, scenario: value } = req.body;
      if ((name === undefined) === (value === undefined))
        throw fail.badRequest('give the name of a scenario, or a scenario inline (scenario), not both');
      const inline = value ? defineInline(value) : undefined;
      const scenario = inline ? inline.scenario : app.scenarios.get(name!);
      if (!scenario)
        throw fail.notFound(`unknown scenario "${name!.slice(0, 80)}"; known: ${app.scenarios.names().join(', ')}`);
      const target = adminSandboxName(req);
      const existed = app.sandboxes.find(target) !== undefined;
      let sandbox: Sandbox;
      try {
        sandbox = adminSandbox(req); // a new one applies the start scenario first, which may fail as well
        activateScenario(sandbox, scenario, app.fixtures, app.worlds); // under --data written now, with the data it changed
      } catch (err) {
        // its data does not apply (a 422 naming the entry): nothing changes, not the definition, not the sandbox
        inline?.undo();
        if (!existed) app.sandboxes.delete(target);
        throw err;
      }
      sandbox.keep();
      return { sandbox: sandbox.name, name: scenario.name, description: scenario.description };
    },
  );

  /** Defines an inline scenario; `undo` puts back what its name meant before (nothing, or another definition). */
  const defineInline = (value: Record<string, unknown>) => {
    const name = typeof value.name === 'string' ? value.name : '';
    const before = app.scenarios.isDefined(name) ? app.scenarios.definition(name) : undefined;
    const undo = () => (before ? app.scenarios.define(name, before) : app.scenarios.undefine(name));
    try {
      return { scenario: app.scenarios.define(name, value).scenario, undo };
    } catch (err) {
      if (err instanceof ScenarioError)
        throw fail.badRequest(err.message.replace(/^scenario "[^"]*"/, 'scenario (inline)'));
      throw err;
    }
  };

  const local = () => app.sandboxes.list().map((s) => describe(s, app.instance.name));
  const Scope = Type.Object({
    scope: Type.Optional(
      Type.Union([Type.Literal('all'), Type.Literal('local')], {
        description: 'local: this instance only, not its --peers (default all)',
      }),
    ),
  });
  app.get(
    '/__admin/sandboxes',
    {
      schema: {
        operationId: 'mockSandboxes',
        tags,
        summary: 'Every sandbox, of this instance and of its --peers',
        querystring: Scope,
        description:
          'Every sandbox that exists now, with its scenario, clock, journal and outbox sizes; each names its ' +
          'instance. Peers that do not answer within 1.5 s are left out and named in the x-mock-unreachable-peers ' +
          'header. Each name is listed once: a name two instances hold is listed with the first that answered ' +
          '(this one first) and named with its instances in the x-mock-sandbox-copies header.',
        response: { 200: Type.Array(ref(SandboxInfo)), ...errors(400, 401) },
      },
    },
    async (req, reply) => {
      if (req.query.scope === 'local' || app.config.peers.length === 0) return local();
      const { sandboxes, unreachable, copies } = await clusterSandboxes(app, local());
      if (unreachable.length > 0) reply.header('x-mock-unreachable-peers', unreachable.join('; '));
      if (copies.length > 0) reply.header('x-mock-sandbox-copies', copies.join('; '));
      return sandboxes;
    },
  );

  app.get(
    '/__admin/sandboxes/:name',
    {
      schema: {
        operationId: 'mockSandboxGet',
        tags,
        summary: 'One sandbox (asked of the --peers when this instance does not hold it)',
        description:
          'One existing sandbox: its scenario, clock, journal and outbox sizes. An unknown name is a 404. ' +
          'With --peers, a sandbox another instance holds is asked of it; while a peer that may hold it cannot be ' +
          'asked, 503.',
        params: Type.Object({ name: Type.String() }),
        querystring: Scope,
        response: { 200: ref(SandboxInfo), ...errors(400, 401, 404, 502, 503) },
      },
    },
    async (req, reply) => {
      if (req.query.scope !== 'local' && (await forwardToOwner(req, reply, req.params.name))) return reply;
      const sandbox = app.sandboxes.find(req.params.name);
      if (!sandbox) throw sandboxNotFound(req, req.params.name, req.query.scope !== 'local');
      return describe(sandbox, app.instance.name);
    },
  );

  app.delete(
    '/__admin/sandboxes/:name',
    {
      schema: {
        operationId: 'mockSandboxDelete',
        tags,
        summary: 'Delete a sandbox (default cannot be deleted: reset it)',
        description:
          'Deletes a sandbox and its data. The default sandbox always exists: deleting it is a 400 (reset it ' +
          'instead). With --peers, a sandbox another instance holds is deleted there; while a peer that may hold it ' +
          'cannot be asked, 503.',
        params: Type.Object({ name: Type.String() }),
        response: { 200: SandboxDeleted, ...errors(400, 401, 404, 502, 503) },
      },
    },
    async (req, reply) => {
      if (req.params.name === 'default')
        throw fail.badRequest('the default sandbox always exists; use POST /__admin/reset');
      if (await forwardToOwner(req, reply, req.params.name)) return reply;
      if (!app.sandboxes.delete(req.params.name)) throw sandboxNotFound(req, req.params.name);
      return { deleted: req.params.name };
    },
  );

  app.put(
    '/__admin/sandboxes/:name',
    {
      schema: {
        operationId: 'mockSandboxCreate',
        tags,
        summary: 'Create a sandbox (idempotent: 201 created, 200 it exists)',
        description:
          'Makes the sandbox NAME from the seed, with the start scenario or the one given, and answers it: 201 when ' +
          'it was made, 200 when it exists already (nothing changes; a different `scenario` than its active one is ' +
          'a 409: switch it with PUT /__admin/scenario). An unknown scenario, or one whose data block does not ' +
          'apply (the entry named), is a 422 and makes nothing. Admin reads ' +
          'of a sandbox never make it (404 SANDBOX_NOT_FOUND). With --peers, a sandbox another instance holds is ' +
          'answered by it; while a peer that may hold it cannot be asked, 503. Behind a balancer, name the sandbox ' +
          'in x-mock-sandbox or ?sandbox= too, so the call reaches the instance that will serve it.',
        params: Type.Object({ name: Type.String() }),
        querystring: SandboxQuery,
        body: Type.Optional(
          Type.Object({
            scenario: Type.Optional(
              Type.String({ minLength: 1, description: 'the scenario it starts with (default: --scenario)' }),
            ),
          }),
        ),
        response: { 200: ref(SandboxInfo), 201: ref(SandboxInfo), ...errors(400, 401, 409, 422, 429, 502, 503) },
      },
    },
    async (req, reply) => {
      const { name } = req.params;
      if (!isSandboxName(name))
        throw fail.badRequest(
          `sandbox name "${name.slice(0, 80)}" is invalid: use 1 to 64 letters, digits, "-" or "_"`,
        );
      const key = adminSandboxName(req);
      if (key !== 'default' && key !== name)
        throw fail.badRequest(
          `the path names sandbox "${name}" and the key (x-mock-sandbox or ?sandbox=) "${key.slice(0, 80)}"`,
        );
      const wanted = req.body?.scenario;
      const scenario = wanted === undefined ? undefined : app.scenarios.get(wanted);
      if (wanted !== undefined && !scenario)
        throw fail.unprocessable(
          `unknown scenario "${wanted.slice(0, 80)}"; known: ${app.scenarios.names().join(', ')}`,
          [{ field: 'body.scenario', message: 'unknown scenario' }],
        );
      if (await forwardToOwner(req, reply, name)) return reply;
      const existing = app.sandboxes.find(name);
      if (existing) {
        if (wanted !== undefined && existing.scenario !== wanted)
          throw fail.conflict(
            `sandbox "${name}" exists with scenario "${existing.scenario}", not "${wanted}": switch it with PUT /__admin/scenario`,
          );
        return reply.code(200).send(describe(existing, app.instance.name));
      }
      // routed here by another key than this name (the balancer hashed "default"): made here, no request would find it
      const routed = header(req, 'x-mock-routing-key');
      if (app.config.peers.length > 0 && routed !== undefined && routed !== name)
        throw fail.badRequest(
          `the balancer routed this call by the key "${routed.slice(0, 80)}", not by "${name}": name the sandbox in ` +
            'x-mock-sandbox or ?sandbox= too, so it is made on the instance that serves it',
        );
      const sandbox = app.sandboxes.get(name); // 429 past --max-sandboxes; the start scenario's data side applies
      try {
        if (scenario && scenario.name !== sandbox.scenario)
          activateScenario(sandbox, scenario, app.fixtures, app.worlds);
      } catch (err) {
        app.sandboxes.delete(name); // its data does not apply (a 422 naming the entry): nothing is made
        throw err;
      }
      sandbox.keep();
      return reply.code(201).send(describe(sandbox, app.instance.name));
    },
  );

  app.delete(
    '/__admin/sandboxes',
    {
      schema: {
        operationId: 'mockSandboxesDelete',
        tags,
        summary: 'Delete every sandbox but default (or those whose name starts with ?prefix=)',
        description:
          'Deletes the sandboxes of the instance reached (never default: reset it) and answers their names; with ' +
          "`prefix`, only those whose name starts with it (e.g. a pipeline's `ci-1234-`). With --peers, each " +
          'instance deletes its own: call it on each (GET /__admin/sandboxes names their instances).',
        querystring: Type.Object({
          prefix: Type.Optional(
            Type.String({ minLength: 1, maxLength: 64, description: 'only sandboxes whose name starts with this' }),
          ),
        }),
        response: {
          200: SandboxesDeleted,
          ...errors(400, 401),
        },
      },
    },
    async (req) => {
      const prefix = req.query.prefix ?? '';
      const names = app.sandboxes
        .list()
        .map((s) => s.name)
        .filter((n) => n !== 'default' && n.startsWith(prefix))
        .sort();
      const deleted = names.filter((n) => app.sandboxes.delete(n));
      return { instance: app.instance.name, deleted };
    },
  );

  /**
   * A reset goes back to the start scenario; when its data block does not fit the world of `seed` (a 422 naming the
   * entry), nothing is reset: checked on a throwaway store first, as a reset cannot be undone.
   */
  const checkReset = (sandbox: Sandbox, seed?: number) => {
    const scenario = app.scenarios.get(app.config.scenario);
    const world = app.worlds.get(seed ?? app.config.seed);
    if (scenario) checkActivation(sandbox.name, world, sandbox.clock.state, scenario, app.fixtures, app.worlds);
  };

  /** Back to the seeded state, then the start scenario's data side again (a reset is a fresh start). */
  const reset = (sandbox: Sandbox, seed?: number) => {
    app.sandboxes.reset(sandbox, seed);
    const scenario = app.scenarios.get(sandbox.scenario);
    if (scenario) activateScenario(sandbox, scenario, app.fixtures, app.worlds);
    sandbox.commit();
  };

  app.post(
    '/__admin/sandboxes/reset',
    {
      schema: {
        operationId: 'mockSandboxesReset',
        tags,
        summary: 'Reset every sandbox (or those whose name starts with ?prefix=), default included',
        description:
          'Puts every sandbox of the instance reached back to its seeded state, as POST /__admin/reset does for ' +
          "one, and answers their names; with `prefix`, only those whose name starts with it (e.g. a pipeline's " +
          '`ci-1234-`). With --peers, each instance resets its own: call it on each.',
        querystring: Type.Object({
          prefix: Type.Optional(
            Type.String({ minLength: 1, maxLength: 64, description: 'only sandboxes whose name starts with this' }),
          ),
        }),
        response: { 200: SandboxesReset, ...errors(400, 401, 422) },
      },
    },
    async (req) => {
      const prefix = req.query.prefix ?? '';
      const sandboxes = app.sandboxes
        .list()
        .filter((s) => s.name.startsWith(prefix))
        .sort((a, b) => (a.name < b.name ? -1 : 1));
      for (const sandbox of sandboxes) checkReset(sandbox); // all or none
      for (const sandbox of sandboxes) reset(sandbox);
      return { instance: app.instance.name, reset: sandboxes.map((s) => s.name) };
    },
  );

  app.post(
    '/__admin/reset',
    {
      schema: {
        operationId: 'mockReset',
        tags,
        summary: 'Back to the seeded state: data, scenario, clock, journal, outbox',
        querystring: SandboxQuery,
        body: Type.Optional(
          Type.Object({
            seed: Type.Optional(Type.Integer({ minimum: 0, maximum: 2 ** 31 - 1 })),
            sandbox: Type.Optional(Type.String()),
          }),
        ),
        description:
          'Puts the sandbox back to its seeded state: data, scenario effects, clock, journal and outbox. ' +
          'The body is optional; `seed` reseeds with another seed. When the start scenario carries data that does ' +
          'not apply to that world, a 422 naming the entry, and nothing is reset. With --peers, a sandbox another instance holds is ' +
          'reset there; while a peer that may hold it cannot be asked, 503 and nothing is created.',
        response: { 200: ref(SandboxInfo), ...errors(400, 401, 422, 502, 503) },
      },
    },
    async (req) => {
      const sandbox = adminSandbox(req);
      checkReset(sandbox, req.body?.seed);
      reset(sandbox, req.body?.seed);
      return describe(sandbox, app.instance.name);
    },
  );

  app.get(
    '/__admin/state',
    {
      schema: {
        operationId: 'mockStateExport',
        tags,
        summary: 'Export the sandbox as a snapshot',
        querystring: SandboxQuery,
        description:
          'The whole data of the sandbox as a snapshot (JSON), to save and import later with PUT /__admin/state or ' +
          '--state. A sandbox that does not exist is a 404 (SANDBOX_NOT_FOUND); reading creates nothing.',
        response: { 200: ref(Snapshot), ...errors(400, 401, 404, 502, 503) },
      },
    },
    async (req) => {
      const sandbox = existingSandbox(req);
      return {
        format: 'portal-mock-state' as const,
        version: 1 as const,
        sandbox: sandbox.name,
        seed: sandbox.store.meta.seed,
        scenario: sandbox.scenario,
        clock: sandbox.clock.state,
        data: sandbox.store.toData(),
      };
    },
  );

  app.put(
    '/__admin/state',
    {
      schema: {
        operationId: 'mockStateImport',
        tags,
        summary: 'Import a snapshot (validated; an invalid one changes nothing)',
        description:
          'Replaces the data of the sandbox with a snapshot of GET /__admin/state. The snapshot is checked first: an ' +
          'invalid one is a 422 and changes nothing.',
        querystring: SandboxQuery,
        body: ref(Snapshot),
        response: { 200: ref(SandboxInfo), ...errors(400, 401, 422) },
      },
      bodyLimit: 256 * 1024 * 1024,
    },
    async (req) => {
      let data;
      try {
        data = checkOrThrow(Data, req.body.data, 'snapshot data');
      } catch (e) {
        if (e instanceof CheckError)
          throw fail.unprocessable(`invalid snapshot: at data${e.path}: ${e.expected}`, [
            { field: `body.data${e.path.replace(/\//g, '.')}`, message: e.expected },
          ]);
        throw e;
      }
      if (req.body.scenario !== undefined && !app.scenarios.get(req.body.scenario)) {
        throw fail.unprocessable(
          `invalid snapshot: unknown scenario "${req.body.scenario}"; known: ${app.scenarios.names().join(', ')}`,
        );
      }
      const clockRefused = req.body.clock ? clockProblem(req.body.clock) : null;
      if (clockRefused)
        throw fail.unprocessable(`invalid snapshot: clock: ${clockRefused}`, [
          { field: 'body.clock', message: clockRefused },
        ]);
      // everything checked: only now is the sandbox made (when new) and changed
      const sandbox = adminSandbox(req);
      app.sandboxes.replaceData(sandbox, data); // parsed for this request alone: no copy needed
      if (req.body.scenario !== undefined) sandbox.scenario = req.body.scenario;
      if (req.body.clock) sandbox.clock.state = req.body.clock;
      return describe(sandbox, app.instance.name);
    },
  );

  app.get(
    '/__admin/requests',
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
          'docs/admin.md), or get a HAR 1.2 log with format=har. An unknown filter is a 400 naming it; an ' +
          'operationId, finding or fault that names nothing known is a 400 naming the closest known ones. A read ' +
          'whose :regex filters would take more than --regex-budget is a 422 saying how to narrow it. A sandbox ' +
          'that does not exist is a 404 (SANDBOX_NOT_FOUND); reading creates nothing.',
        response: {
          200: Type.Union([Type.Array(ref(JournalEntry)), ref(Har)]),
          ...errors(400, 401, 404, 422, 502, 503),
        },
      },
      preValidation: [journalFilterCheck(Object.keys(JournalListQuery.properties)), journalValueCheck],
    },
    async (req, reply) => {
      const sandbox = existingSandbox(req);
      const entries = sandbox.journal.list(req.query, raisedFinding(req, sandbox, req.query.finding), regexLimits(req));
      reply.type('application/json; charset=utf-8').serializer(JSON.stringify);
      if (req.query.format !== 'har') return reply.send(entries);
      const findings = sandboxFindings(req, sandbox).list();
      const har = journalToHar(entries, {
        protocol: req.protocol,
        fallbackHost: req.host,
        version,
        sandbox: sandbox.name,
        findings,
      });
      return reply.header('content-disposition', `attachment; filename="portal-mock-${sandbox.name}.har"`).send(har);
    },
  );

  app.get(
    '/__admin/requests/count',
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
      preValidation: [journalFilterCheck(Object.keys(JournalQuery.properties)), journalValueCheck],
    },
    async (req) => {
      const sandbox = existingSandbox(req);
      const ids = raisedFinding(req, sandbox, req.query.finding);
      return { count: sandbox.journal.count(req.query, ids, regexLimits(req)) };
    },
  );

  app.delete(
    '/__admin/requests',
    {
      schema: {
        operationId: 'mockRequestsClear',
        tags,
        summary: 'Empty the journal',
        querystring: SandboxQuery,
        description: 'Empties the request journal of the sandbox.',
        response: { 200: JournalCleared, ...errors(400, 401) },
      },
    },
    async (req) => {
      adminSandbox(req).journal.clear();
      return { cleared: true };
    },
  );

  app.get(
    '/__admin/outbox',
    {
      schema: {
        operationId: 'mockOutbox',
        tags,
        summary: 'What the mock sent: two-factor codes by e-mail, pushes',
        description:
          'What the mock would have sent: two-factor codes by e-mail and pushes to registered tokens, newest first; ' +
          'filter by kind, recipient or user. A sandbox that does not exist is a 404 (SANDBOX_NOT_FOUND); reading ' +
          'creates nothing.',
        querystring: OutboxQuery,
        response: { 200: Type.Array(ref(OutboxMessage)), ...errors(400, 401, 404, 502, 503) },
      },
    },
    async (req) => {
      const { kind, to, userId } = req.query;
      return existingSandbox(req)
        .outbox.list()
        .filter(
          (m) =>
            (!kind || m.kind === kind) &&
            (!to || m.to.toLowerCase() === to.toLowerCase()) &&
            (!userId || m.userId === userId),
        )
        .slice()
        .reverse();
    },
  );

  app.get(
    '/__admin/clock',
    {
      schema: {
        operationId: 'mockClockGet',
        tags,
        summary: 'The sandbox clock',
        querystring: SandboxQuery,
        description:
          'The sandbox clock: its state (real, offset or frozen) and the time it shows now. A sandbox that does not ' +
          'exist is a 404 (SANDBOX_NOT_FOUND); reading creates nothing.',
        response: { 200: ClockAnswer, ...errors(400, 401, 404, 502, 503) },
      },
    },
    async (req) => {
      const sandbox = existingSandbox(req);
      return { now: sandbox.clock.iso(), state: sandbox.clock.state };
    },
  );

  app.put(
    '/__admin/clock',
    {
      schema: {
        operationId: 'mockClockSet',
        tags,
        summary: 'Freeze, shift, advance or release the sandbox clock',
        description:
          'One of: {"freeze": ISO} stops time at an instant; {"offsetMs": N} runs real time shifted by N ms; ' +
          '{"advanceMs": N} moves the clock forward keeping its mode; {"mode": "real"} releases it. The time the ' +
          `clock shows must stay within ${clockRangeText}: a change past it is a 400 naming the field, and the ` +
          'clock (and a sandbox the call would have made) stays as it was.',
        querystring: SandboxQuery,
        body: Type.Object({ ...ClockChange.properties, sandbox: Type.Optional(Type.String()) }),
        response: { 200: ClockAnswer, ...errors(400, 401) },
      },
    },
    async (req) => {
      const b = req.body;
      const given = [b.freeze, b.offsetMs, b.advanceMs, b.mode].filter((v) => v !== undefined).length;
      if (given !== 1)
        throw fail.validation('give exactly one of freeze, offsetMs, advanceMs, mode', [
          { field: 'body', message: 'exactly one of freeze, offsetMs, advanceMs, mode' },
        ]);
      return adminWrite(req, (sandbox) => {
        const next = nextClockState(sandbox.clock.state, b);
        if ('problem' in next)
          throw fail.validation(`${next.field}: ${next.problem}; the clock is unchanged`, [
            { field: `body.${next.field}`, message: next.problem },
          ]);
        sandbox.clock.state = next.state;
        sandbox.keep(); // a changed clock is written as it is set; an unchanged one still makes the sandbox exist
        return { now: sandbox.clock.iso(), state: sandbox.clock.state };
      });
    },
  );

  app.post(
    '/__admin/sessions/expire',
    {
      schema: {
        operationId: 'mockSessionsExpire',
        tags,
        summary: 'Expire every session of the sandbox now',
        querystring: SandboxQuery,
        description:
          "Every session of the sandbox expires now: the apps' next calls answer 401 and they must call /mobile/auth " +
          'again.',
        body: Type.Optional(Type.Object({ sandbox: Type.Optional(Type.String()) })),
        response: { 200: SessionsExpired, ...errors(400, 401) },
      },
    },
    async (req) => {
      const sandbox = adminSandbox(req);
      const expired = expireSessions(sandbox);
      sandbox.commit();
      return { expired };
    },
  );

  app.post(
    '/__admin/bind-links',
    {
      schema: {
        operationId: 'mockBindLinkCreate',
        tags,
        summary: 'Mint a QR bind link for a user',
        description:
          'Mints a bind link for a user (by e-mail or id; single-use by default, ttlSeconds for an expiry) and ' +
          'answers its address and QR code address; the app binds by POSTing to the address.',
        querystring: SandboxQuery,
        body: Type.Object({
          email: Type.Optional(Type.String()),
          userId: Type.Optional(Type.String()),
          singleUse: Type.Optional(Type.Boolean({ default: true })),
          ttlSeconds: Type.Optional(
            Type.Integer({ minimum: 1, maximum: maxAheadSeconds, description: 'at most 100 years' }),
          ),
          sandbox: Type.Optional(Type.String()),
        }),
        response: { 200: BindLink, ...errors(400, 401, 404) },
      },
    },
    async (req) => {
      const { sandbox, tenant, user } = adminUser(req, req.body);
      const now = sandbox.clock.now();
      const id = `bind-${newUuid(sandbox.store, 'bind-link').slice(0, 8)}`;
      const token = newSecret(sandbox.store, 'bind-token');
      const singleUse = req.body.singleUse ?? true;
      const expiresAt = req.body.ttlSeconds ? new Date(now.getTime() + req.body.ttlSeconds * 1000).toISOString() : null;
      sandbox.store.insert(tenant, 'bindLinks', {
        id,
        token,
        userId: user.id,
        singleUse,
        usedAt: null,
        createdAt: now.toISOString(),
        expiresAt,
      });
      sandbox.commit();
      return {
        id,
        token,
        tenantId: tenant.tenant.id,
        userId: user.id,
        ...bindLinkAddresses(req, sandbox.name, id, token),
        singleUse,
        expiresAt,
      };
    },
  );
};
