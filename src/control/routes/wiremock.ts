// WireMock 3.13's admin API, per sandbox (docs/wiremock.md, "The admin API"): mappings, scenarios, reset, settings,
// health, near misses, and the recording and shutdown endpoints refused with what to use instead. Registered under
// /wiremock/__admin in the control plane (src/control/plugin.ts), so /sandbox/NAME/wiremock/__admin/… is sandbox
// NAME's. Bodies and answers are WireMock's, errors included (`{"errors":[…]}`); what portal-mock adds is the
// sandbox, the bounds (--wiremock-max-mappings, --wiremock-sandbox-kb) and the unit of work: a refused change
// leaves the sandbox's mappings exactly as they were.
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../../schemas/common.js';
import { RegexBudget } from '../../shared/matchers.js';
import { jsonDepth } from '../../shared/json-depth.js';
import { uuidFrom } from '../../store/ids.js';
import type { Sandbox } from '../../store/sandbox.js';
import {
  defaultMappingLimits,
  parseMapping,
  type MappingLimits,
  type StringPattern,
  type StubMapping,
} from '../../wiremock/mapping.js';
import { matchRequest, patternDistance, startedState, type WireRequest } from '../../wiremock/match.js';
import { WireMockStubs } from '../../wiremock/state.js';
import { adminSandboxName } from '../sandbox.js';
import { servedMappingIds, wireRequest } from './wiremock-requests.js';

const tags = ['wiremock'];

// ---- schemas: WireMock's bodies. A mapping is checked by parseMapping (its 422 names the JSON pointer), so the
// route takes it as any JSON and answers it as an object of WireMock's StubMapping shape.

const MappingIn = Type.Unknown({
  description: 'a stub mapping as WireMock takes it (docs/wiremock.md: the fields served; any other is a 422)',
});
const Mapping = Type.Object(
  { id: Type.String(), uuid: Type.String(), request: Type.Object({}, { additionalProperties: true }) },
  { additionalProperties: true, description: "a stub mapping (WireMock's StubMapping), with its id" },
);
const MappingList = Type.Object({
  mappings: Type.Array(Mapping),
  meta: Type.Object({ total: Type.Integer({ minimum: 0 }) }),
});
const WireMockError = Type.Object(
  {
    errors: Type.Array(
      Type.Object({
        code: Type.Integer(),
        source: Type.Optional(Type.Object({ pointer: Type.Optional(Type.String()) })),
        title: Type.String(),
        detail: Type.Optional(Type.String()),
      }),
    ),
  },
  { description: "WireMock's error body" },
);
type WireMockError = Static<typeof WireMockError>;
const Empty = Type.Object({}, { description: '{} (WireMock answers {} or no body)' });
const IdParams = Type.Object({
  stubMappingId: Type.String({ maxLength: 100, description: 'the mapping id (a UUID)' }),
});
const ScenarioParams = Type.Object({ name: Type.String({ minLength: 1, maxLength: 1000 }) });
const Pattern = Type.Unknown({
  description:
    'a string value pattern over the metadata\'s JSON, e.g. {"matchesJsonPath": {"expression": "$.x", "equalTo": "y"}}',
});
const ImportBody = Type.Object({
  mappings: Type.Array(MappingIn, { description: 'the mappings; the first one is served first among equals' }),
  importOptions: Type.Optional(
    Type.Object({
      duplicatePolicy: Type.Optional(
        Type.Union([Type.Literal('OVERWRITE'), Type.Literal('IGNORE')], {
          description: 'an id the sandbox has: replaced (OVERWRITE, the default) or kept (IGNORE)',
        }),
      ),
      deleteAllNotInImport: Type.Optional(
        Type.Boolean({ description: 'delete the mappings whose id is not imported' }),
      ),
    }),
  ),
});
const LoggedRequestIn = Type.Object(
  {
    url: Type.String({ description: 'the path and query' }),
    method: Type.String(),
    headers: Type.Optional(Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.String())]))),
    body: Type.Optional(Type.String()),
    bodyAsBase64: Type.Optional(Type.String()),
  },
  { additionalProperties: true, description: "WireMock's LoggedRequest (the fields read: url, method, headers, body)" },
);
const NearMisses = Type.Object({
  nearMisses: Type.Array(
    Type.Object({
      request: Type.Object({}, { additionalProperties: true }),
      stubMapping: Type.Optional(Mapping),
      requestPattern: Type.Optional(Type.Object({}, { additionalProperties: true })),
      matchResult: Type.Object({ distance: Type.Number() }),
    }),
  ),
});
const Scenario = Type.Object({
  id: Type.String(),
  name: Type.String(),
  state: Type.String(),
  possibleStates: Type.Array(Type.String()),
  mappings: Type.Array(Mapping),
});
const SettingsBody = Type.Object(
  {},
  { additionalProperties: true, description: '{"settings": {...}} or the settings themselves; only {} is served' },
);
const Health = Type.Object({
  status: Type.Literal('healthy'),
  message: Type.String(),
  version: Type.String(),
  uptimeInSeconds: Type.Integer({ minimum: 0 }),
  timestamp: Type.String({ format: 'date-time' }),
});

// ---- plain helpers

const wmError = (code: number, title: string, detail?: string, pointer?: string): WireMockError => ({
  errors: [
    {
      code,
      ...(pointer === undefined ? {} : { source: { pointer } }),
      title,
      ...(detail === undefined ? {} : { detail }),
    },
  ],
});

/** A body WireMock's API cannot read: WireMock's 422 (sent by this context's error handler). */
class WireMockRefusal extends Error {
  readonly status: number;
  readonly body: WireMockError;
  constructor(status: number, body: WireMockError) {
    super(body.errors[0]?.title ?? 'refused');
    this.status = status;
    this.body = body;
  }
}

const uuidText = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A mapping as WireMock shows it: its method (ANY when not given) and its status (200 when not given). */
export const shown = (m: StubMapping) => ({
  ...m,
  request: { ...m.request, method: m.request.method ?? 'ANY' },
  response: { status: 200, ...m.response },
});

/** A new mapping id, from the sandbox's seeded random source: the same seed and calls give the same ids. */
const idMaker = (sandbox: Sandbox) => () => {
  const bytes = Buffer.alloc(16);
  for (let i = 0; i < 4; i++) bytes.writeUInt32BE(sandbox.random.u32(), i * 4);
  return uuidFrom(bytes);
};

/** A pattern (the body of find-by-metadata) checked as a mapping's body pattern is; its errors point at the body. */
function parsePattern(json: unknown, limits: MappingLimits): StringPattern | WireMockError {
  const parsed = parseMapping({ request: { bodyPatterns: [json] } }, () => '', limits);
  if ('mapping' in parsed) return parsed.mapping.request.bodyPatterns![0]!;
  return rebase(parsed.errors, '/request/bodyPatterns/0', '');
}
/** Errors of a part parsed as a mapping, their pointers moved to where the part is in the body. */
function rebase(body: { errors: WireMockError['errors'] }, from: string, to: string): WireMockError {
  return {
    errors: body.errors.map((e) => {
      const pointer = e.source?.pointer;
      if (pointer === undefined || !(pointer === from || pointer.startsWith(`${from}/`))) return e;
      return { ...e, source: { pointer: to + pointer.slice(from.length) } };
    }),
  };
}

/** Settings fields WireMock knows, and why they are not served. */
const unservedSettings: Record<string, string> = {
  fixedDelay: 'a global delay is not served: give the mappings fixedDelayMilliseconds',
  delayDistribution: 'a global delay is not served: give the mappings delayDistribution',
  proxyPassThrough: 'not served: a mapping with proxyBaseUrl always passes through',
  extended: 'extended settings are not served',
  receivedResponse: 'not served',
};

const maxBodyDepth = 64;

type Options = { version: string; startedAt: number };

export const wiremockAdminRoutes: FastifyPluginAsyncTypebox<Options> = async (app, opts) => {
  const limits = () => ({ maxMappings: app.config.wiremockMaxMappings, maxBytes: app.config.wiremockSandboxKb * 1024 });
  const mappingLimits: MappingLimits = { ...defaultMappingLimits, maxProgram: app.config.regexMaxProgram };
  const budget = () => new RegexBudget({ budget: app.config.regexBudget, maxText: app.config.regexMaxText });

  // A body is JSON whatever its content type (WireMock's clients send text/plain too); one that does not parse is
  // WireMock's 422 "Error parsing JSON", not the control plane's 400.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    const depth = jsonDepth(text);
    if (depth > maxBodyDepth)
      return done(
        new WireMockRefusal(
          422,
          wmError(10, 'Error parsing JSON', `the body nests ${depth} levels deep; at most ${maxBodyDepth}`, ''),
        ),
      );
    try {
      done(null, JSON.parse(text));
    } catch (err) {
      done(new WireMockRefusal(422, wmError(10, 'Error parsing JSON', (err as Error).message, '')));
    }
  });
  app.setErrorHandler((err, _req, reply) => {
    if (err instanceof WireMockRefusal) return reply.code(err.status).send(err.body);
    throw err; // the control plane's handler: our error shape
  });

  /** The sandbox of a read: made on first use, as a portal request makes it (a fresh WireMock has no mappings). */
  const readSandbox = (req: FastifyRequest): Sandbox => app.sandboxes.get(adminSandboxName(req));

  /** Puts `next` in the sandbox, or answers WireMock's 422 naming the flag when it is past the bounds. */
  const put = (sandbox: Sandbox, next: WireMockStubs): WireMockError | null => {
    const problem = WireMockStubs.overLimits(next, limits());
    if (problem) return wmError(10, 'Too many stub mappings', problem, '');
    sandbox.wiremock = next;
    return null;
  };

  const checkId = (id: string) => {
    if (!uuidText.test(id)) throw new WireMockRefusal(400, wmError(10, `${id.slice(0, 100)} is not a valid UUID`));
  };
  // WireMock's 404 has no body; ours says which id and where the list is (its status is what clients read)
  const notFound = (reply: FastifyReply, id: string) =>
    reply
      .code(404)
      .send(wmError(404, `No stub mapping ${id.slice(0, 100)} in this sandbox`, 'list them: GET /mappings'));

  // ---- mappings

  app.get(
    '/mappings',
    {
      schema: {
        operationId: 'wiremockMappingsList',
        tags,
        summary: "The sandbox's stub mappings",
        description:
          "WireMock's GET /__admin/mappings: in the order they are tried (priority, then newest first), `limit` " +
          'from `offset`; `meta.total` counts them all. An offset past the end is an empty list (WireMock: 500).',
        querystring: Type.Object({
          limit: Type.Optional(Type.Integer({ minimum: 0 })),
          offset: Type.Optional(Type.Integer({ minimum: 0 })),
        }),
        response: { 200: MappingList, ...errors(400, 401, 429) },
      },
    },
    async (req) => {
      const all = readSandbox(req).wiremock.servingOrder;
      const from = req.query.offset ?? 0;
      const to = req.query.limit === undefined ? all.length : from + req.query.limit;
      return { mappings: all.slice(from, to).map(shown), meta: { total: all.length } };
    },
  );

  app.post(
    '/mappings',
    {
      schema: {
        operationId: 'wiremockMappingCreate',
        tags,
        summary: 'Add a stub mapping',
        description:
          'Adds a mapping (or replaces the one with its id): 201 with the mapping and its id. A field not served or ' +
          "not known is WireMock's 422 naming the JSON pointer; past --wiremock-max-mappings or " +
          '--wiremock-sandbox-kb, a 422 naming the flag. Written under --data at once.',
        body: MappingIn,
        response: { 201: Mapping, 422: WireMockError, ...errors(400, 401, 429) },
      },
      config: { sandbox: 'write' },
    },
    async (req, reply) => {
      const { sandbox } = req.mock;
      const parsed = parseMapping(req.body, idMaker(sandbox), mappingLimits);
      if (!('mapping' in parsed)) return reply.code(422).send(parsed.errors);
      const refused = put(sandbox, sandbox.wiremock.with(parsed.mapping));
      if (refused) return reply.code(422).send(refused);
      return reply.code(201).send(shown(parsed.mapping));
    },
  );

  app.delete(
    '/mappings',
    {
      schema: {
        operationId: 'wiremockMappingsDelete',
        tags,
        summary: 'Delete every stub mapping',
        description: "Deletes the sandbox's mappings (scenario states stay, as WireMock keeps them). Answers {}.",
        response: { 200: Empty, ...errors(401, 429) },
      },
      config: { sandbox: 'write' },
    },
    async (req) => {
      const { sandbox } = req.mock;
      sandbox.wiremock = sandbox.wiremock.filter(() => false);
      return {};
    },
  );

  app.get(
    '/mappings/:stubMappingId',
    {
      schema: {
        operationId: 'wiremockMappingGet',
        tags,
        summary: 'One stub mapping',
        description: 'The mapping with that id; 404 when there is none, 400 when the id is no UUID.',
        params: IdParams,
        response: { 200: Mapping, 400: WireMockError, 404: WireMockError, ...errors(401, 429) },
      },
    },
    async (req, reply) => {
      const id = req.params.stubMappingId;
      checkId(id);
      const found = readSandbox(req).wiremock.get(id);
      return found ? shown(found) : notFound(reply, id);
    },
  );

  app.put(
    '/mappings/:stubMappingId',
    {
      schema: {
        operationId: 'wiremockMappingUpdate',
        tags,
        summary: 'Replace a stub mapping',
        description:
          'Replaces the mapping with that id (it keeps its place); the id of the path is the one kept. 422 as for ' +
          'POST; 404 when there is no such mapping.',
        params: IdParams,
        body: MappingIn,
        response: { 200: Mapping, 400: WireMockError, 404: WireMockError, 422: WireMockError, ...errors(401, 429) },
      },
      config: { sandbox: 'write' },
    },
    async (req, reply) => {
      const id = req.params.stubMappingId;
      checkId(id);
      const { sandbox } = req.mock;
      const parsed = parseMapping(req.body, () => id, mappingLimits);
      if (!('mapping' in parsed)) return reply.code(422).send(parsed.errors);
      if (!sandbox.wiremock.get(id)) return notFound(reply, id);
      const mapping = { ...parsed.mapping, id: id.toLowerCase(), uuid: id.toLowerCase() };
      const refused = put(sandbox, sandbox.wiremock.with(mapping));
      if (refused) return reply.code(422).send(refused);
      return shown(mapping);
    },
  );

  app.delete(
    '/mappings/:stubMappingId',
    {
      schema: {
        operationId: 'wiremockMappingDelete',
        tags,
        summary: 'Delete a stub mapping',
        description: 'Deletes the mapping with that id: {}; 404 when there is none.',
        params: IdParams,
        response: { 200: Empty, 400: WireMockError, 404: WireMockError, ...errors(401, 429) },
      },
      config: { sandbox: 'write' },
    },
    async (req, reply) => {
      const id = req.params.stubMappingId;
      checkId(id);
      const { sandbox } = req.mock;
      if (!sandbox.wiremock.get(id)) return notFound(reply, id);
      sandbox.wiremock = sandbox.wiremock.filter((m) => m.id !== id.toLowerCase());
      return {};
    },
  );

  app.post(
    '/mappings/import',
    {
      schema: {
        operationId: 'wiremockMappingsImport',
        tags,
        summary: 'Import stub mappings',
        description:
          'Adds the mappings, the first one served first among equals (as WireMock). Every mapping is checked ' +
          'before any is added: one refused is a 422 naming /mappings/N/…, and nothing changes. An id the sandbox ' +
          'has is replaced (OVERWRITE, the default) or kept (IGNORE); deleteAllNotInImport deletes the others ' +
          'first. Each option has its default when left out (WireMock: 500 when importOptions lacks one).',
        body: ImportBody,
        response: { 200: Empty, 422: WireMockError, ...errors(400, 401, 429) },
      },
      config: { sandbox: 'write' },
    },
    async (req, reply) => {
      const { sandbox } = req.mock;
      const newId = idMaker(sandbox);
      const parsed: StubMapping[] = [];
      for (const [i, json] of req.body.mappings.entries()) {
        const one = parseMapping(json, newId, mappingLimits);
        if (!('mapping' in one)) return reply.code(422).send(rebase(one.errors, '', `/mappings/${i}`));
        parsed.push(one.mapping);
      }
      const overwrite = (req.body.importOptions?.duplicatePolicy ?? 'OVERWRITE') === 'OVERWRITE';
      const ids = new Set(parsed.map((m) => m.id));
      let next = req.body.importOptions?.deleteAllNotInImport
        ? sandbox.wiremock.filter((m) => ids.has(m.id))
        : sandbox.wiremock;
      // the last added is served first among equals: added last to first, as WireMock does
      for (const mapping of parsed.toReversed()) if (overwrite || !next.get(mapping.id)) next = next.with(mapping);
      const refused = put(sandbox, next);
      if (refused) return reply.code(422).send(refused);
      return {};
    },
  );

  app.post(
    '/mappings/reset',
    {
      schema: {
        operationId: 'wiremockMappingsReset',
        tags,
        summary: 'Back to the start mappings',
        description:
          "The mappings the sandbox's scenario starts it with (--wiremock DIR's, then the scenario's own), scenario " +
          'states reset; the journal stays.',
        response: { 200: Empty, ...errors(401, 429) },
      },
      config: { sandbox: 'write' },
    },
    async (req) => {
      const { sandbox } = req.mock;
      sandbox.wiremock = app.scenarios.wiremockOf(sandbox.scenario);
      return {};
    },
  );

  app.post(
    '/mappings/save',
    {
      schema: {
        operationId: 'wiremockMappingsSave',
        tags,
        summary: 'Persist the stub mappings (nothing to do)',
        description:
          'Every change is written under --data when it is made (an acknowledged change is never lost), so this ' +
          'answers 200 and changes nothing. Without --data nothing is written, as before.',
        response: { 200: Empty, ...errors(401) },
      },
    },
    async () => ({}),
  );

  const byMetadata = (req: FastifyRequest, reply: FastifyReply) => {
    const pattern = parsePattern(req.body, mappingLimits);
    if ('errors' in pattern) {
      void reply.code(422).send(pattern);
      return null;
    }
    const b = budget();
    return (m: StubMapping) =>
      patternDistance(pattern, m.metadata === undefined ? undefined : JSON.stringify(m.metadata), b) === 0;
  };

  app.post(
    '/mappings/find-by-metadata',
    {
      schema: {
        operationId: 'wiremockMappingsFindByMetadata',
        tags,
        summary: 'Stub mappings whose metadata matches a pattern',
        description:
          "A string value pattern over each mapping's metadata as JSON (matchesJsonPath, equalToJson, …); a " +
          "pattern not served is WireMock's 422.",
        body: Pattern,
        response: { 200: MappingList, 422: WireMockError, ...errors(400, 401, 429) },
      },
    },
    async (req, reply) => {
      const sandbox = readSandbox(req);
      const matches = byMetadata(req, reply);
      if (!matches) return reply;
      const found = sandbox.wiremock.servingOrder.filter(matches);
      return { mappings: found.map(shown), meta: { total: found.length } };
    },
  );

  app.post(
    '/mappings/remove-by-metadata',
    {
      schema: {
        operationId: 'wiremockMappingsRemoveByMetadata',
        tags,
        summary: 'Delete the stub mappings whose metadata matches a pattern',
        description: 'As find-by-metadata, deleting what it finds. Answers {}.',
        body: Pattern,
        response: { 200: Empty, 422: WireMockError, ...errors(400, 401, 429) },
      },
      config: { sandbox: 'write' },
    },
    async (req, reply) => {
      const { sandbox } = req.mock;
      const matches = byMetadata(req, reply);
      if (!matches) return reply;
      sandbox.wiremock = sandbox.wiremock.filter((m) => !matches(m));
      return {};
    },
  );

  // A mapping is "unmatched" when no request the sandbox's journal keeps was served by it (WireMock reads its own
  // journal the same way): emptying the journal, or its bound dropping the oldest entries, makes a mapping unmatched
  // again.
  app.get(
    '/mappings/unmatched',
    {
      schema: {
        operationId: 'wiremockMappingsUnmatched',
        tags,
        summary: 'The stub mappings no request was served by',
        description:
          "WireMock's GET /__admin/mappings/unmatched: the mappings no entry of the sandbox's journal names " +
          '(--journal-limit keeps the newest), in the order they are tried; `meta.total` counts them.',
        response: { 200: MappingList, ...errors(400, 401, 429) },
      },
    },
    async (req) => {
      const sandbox = readSandbox(req);
      const served = servedMappingIds(sandbox);
      const found = sandbox.wiremock.servingOrder.filter((m) => !served.has(m.id));
      return { mappings: found.map(shown), meta: { total: found.length } };
    },
  );

  app.delete(
    '/mappings/unmatched',
    {
      schema: {
        operationId: 'wiremockMappingsUnmatchedDelete',
        tags,
        summary: 'Delete the stub mappings no request was served by',
        description:
          'Deletes the mappings GET /mappings/unmatched lists (scenario states stay). Answers {}, as WireMock does.',
        response: { 200: Empty, ...errors(400, 401, 429) },
      },
      config: { sandbox: 'write' },
    },
    async (req) => {
      const { sandbox } = req.mock;
      const served = servedMappingIds(sandbox);
      sandbox.wiremock = sandbox.wiremock.filter((m) => served.has(m.id));
      return {};
    },
  );

  // ---- near misses

  app.post(
    '/near-misses/request',
    {
      schema: {
        operationId: 'wiremockNearMissesRequest',
        tags,
        summary: 'The stub mappings nearest a request',
        description:
          "The three mappings nearest the request given (WireMock's LoggedRequest: url, method, headers, body), " +
          'nearest first, with their distance (0: it matches) in the scenario states of now.',
        body: LoggedRequestIn,
        response: { 200: NearMisses, ...errors(400, 401, 429) },
      },
    },
    async (req) => {
      const stubs = readSandbox(req).wiremock;
      const { url, method, headers = {}, body, bodyAsBase64 } = req.body;
      const text = body ?? (bodyAsBase64 === undefined ? '' : Buffer.from(bodyAsBase64, 'base64').toString('utf8'));
      const request: WireRequest = { url, method, headers, body: text };
      const states = stubs.statesCopy();
      const ranked = stubs.servingOrder
        .map((mapping) => {
          const result = matchRequest(mapping, request, states);
          return { mapping, distance: result.matched ? 0 : result.distance };
        })
        .sort((a, b) => a.distance - b.distance)
        .slice(0, 3);
      return {
        nearMisses: ranked.map((r) => ({
          request: { url, method, headers, body: text },
          stubMapping: shown(r.mapping),
          matchResult: { distance: r.distance },
        })),
      };
    },
  );

  app.post(
    '/near-misses/request-pattern',
    {
      schema: {
        operationId: 'wiremockNearMissesRequestPattern',
        tags,
        summary: 'The logged requests nearest a request pattern',
        description:
          "The three requests of the sandbox's journal nearest the pattern (WireMock's RequestPattern, checked as " +
          "a mapping's request: a 422 names the pointer), nearest first. A request whose headers the journal " +
          'redacted is matched on what it kept.',
        body: Type.Unknown({ description: "WireMock's RequestPattern" }),
        response: { 200: NearMisses, 422: WireMockError, ...errors(400, 401, 429) },
      },
    },
    async (req, reply) => {
      const parsed = parseMapping({ request: req.body }, () => '00000000-0000-4000-8000-000000000000', mappingLimits);
      if (!('mapping' in parsed)) return reply.code(422).send(rebase(parsed.errors, '/request', ''));
      const sandbox = readSandbox(req);
      const pattern = parsed.mapping;
      const states = new Map<string, string>();
      const ranked = sandbox.journal
        .list()
        .map((entry) => {
          const request = wireRequest(entry);
          const result = matchRequest(pattern, request, states);
          return { request, distance: result.matched ? 0 : result.distance };
        })
        .sort((a, b) => a.distance - b.distance)
        .slice(0, 3);
      return {
        nearMisses: ranked.map((r) => ({
          request: r.request,
          requestPattern: shown(pattern).request,
          matchResult: { distance: r.distance },
        })),
      };
    },
  );

  // ---- scenarios

  app.get(
    '/scenarios',
    {
      schema: {
        operationId: 'wiremockScenariosList',
        tags,
        summary: "The sandbox's WireMock scenarios",
        description:
          'Every scenario a mapping names: its state, the states its mappings mention, and its mappings. States ' +
          'are per sandbox: two sandboxes with the same scenario names never share one.',
        response: { 200: Type.Object({ scenarios: Type.Array(Scenario) }), ...errors(401, 429) },
      },
    },
    async (req) => {
      const stubs = readSandbox(req).wiremock;
      return {
        scenarios: stubs.scenarios().map((s) => ({
          ...s,
          mappings: stubs.mappings.filter((m) => m.scenarioName === s.name).map(shown), // oldest first, as WireMock
        })),
      };
    },
  );

  app.post(
    '/scenarios/reset',
    {
      schema: {
        operationId: 'wiremockScenariosReset',
        tags,
        summary: 'Every scenario back to Started',
        description: 'Every WireMock scenario of the sandbox back in the state Started; its mappings and journal stay.',
        response: { 200: Empty, ...errors(401, 429) },
      },
      config: { sandbox: 'write' },
    },
    async (req) => {
      const { sandbox } = req.mock;
      sandbox.wiremock = sandbox.wiremock.withStatesReset();
      return {};
    },
  );

  app.put(
    '/scenarios/:name/state',
    {
      schema: {
        operationId: 'wiremockScenarioSetState',
        tags,
        summary: 'Put a scenario in a state',
        description:
          'Moves the scenario to `state` (Started when not given). A scenario no mapping names is a 404, a state ' +
          "none of its mappings mentions a 422, in WireMock's shape.",
        params: ScenarioParams,
        body: Type.Object({ state: Type.Optional(Type.String({ minLength: 1 })) }),
        response: { 200: Empty, 404: WireMockError, 422: WireMockError, ...errors(400, 401, 429) },
      },
      config: { sandbox: 'write' },
    },
    async (req, reply) => {
      const { sandbox } = req.mock;
      const { name } = req.params;
      const state = req.body.state ?? startedState;
      const scenario = sandbox.wiremock.scenarios().find((s) => s.name === name);
      const shortName = name.slice(0, 200);
      if (!scenario) return reply.code(404).send(wmError(404, `Scenario ${shortName} does not exist`));
      if (!scenario.possibleStates.includes(state))
        return reply.code(422).send(wmError(11, `Scenario ${shortName} does not support state ${state.slice(0, 200)}`));
      sandbox.wiremock = sandbox.wiremock.withState(name, state);
      return {};
    },
  );

  // ---- the sandbox's WireMock as a whole

  app.post(
    '/reset',
    {
      schema: {
        operationId: 'wiremockReset',
        tags,
        summary: 'Reset mappings, scenario states and journal',
        description:
          "The sandbox's mappings back to the start ones (--wiremock DIR's, then its scenario's), every scenario " +
          'Started, its journal ' +
          "emptied, as WireMock's reset. Its data, clock and portal scenario stay (POST /__admin/reset resets those).",
        response: { 200: Empty, ...errors(401, 429) },
      },
      config: { sandbox: 'write' },
    },
    async (req) => {
      const { sandbox } = req.mock;
      sandbox.wiremock = app.scenarios.wiremockOf(sandbox.scenario);
      sandbox.journal.clear();
      return {};
    },
  );

  app.get(
    '/settings',
    {
      schema: {
        operationId: 'wiremockSettingsGet',
        tags,
        summary: 'Global settings (none are served)',
        description:
          'WireMock\'s global settings: `{"settings": {}}`. A global delay or proxy pass-through is not served (PUT or POST them: a 422 says what to use instead).',
        response: { 200: Type.Object({ settings: Type.Object({}) }), ...errors(401) },
      },
    },
    async () => ({ settings: {} }),
  );

  const settingsRoute = (method: 'POST' | 'PUT', operationId: string) =>
    app.route({
      method,
      url: '/settings',
      schema: {
        operationId,
        tags,
        summary: 'Update global settings (only {} is taken)',
        description:
          'A global fixedDelay or delayDistribution is not served (give each mapping its own delay), nor ' +
          "proxyPassThrough or extended: each is WireMock's 422 naming its pointer. An empty settings object is 200.",
        body: SettingsBody,
        response: { 200: Empty, 422: WireMockError, ...errors(400, 401) },
      },
      handler: async (req, reply) => {
        const body = req.body as Record<string, unknown>;
        const wrapped = 'settings' in body;
        const settings = wrapped ? body.settings : body;
        const base = wrapped ? '/settings' : '';
        if (settings === null || typeof settings !== 'object' || Array.isArray(settings))
          return reply.code(422).send(wmError(10, 'Error parsing JSON', 'expected an object', base));
        const [key] = Object.keys(settings);
        if (key !== undefined) {
          const why = unservedSettings[key];
          const pointer = `${base}/${key}`;
          return reply
            .code(422)
            .send(
              why
                ? wmError(10, 'Unsupported by portal-mock', why, pointer)
                : wmError(10, 'Error parsing JSON', `Unrecognized field "${key}" (class GlobalSettings)`, pointer),
            );
        }
        return {};
      },
    });
  settingsRoute('POST', 'wiremockSettingsPost');
  settingsRoute('PUT', 'wiremockSettingsPut');

  app.get(
    '/health',
    {
      schema: {
        operationId: 'wiremockHealth',
        tags,
        summary: "WireMock's health answer",
        description: "status healthy, portal-mock's version, the instance's uptime, the time now.",
        response: { 200: Health, ...errors(401) },
      },
      config: { answersHere: true },
    },
    async () => ({
      status: 'healthy' as const,
      message: 'portal-mock is ok',
      version: opts.version,
      uptimeInSeconds: Math.floor((performance.now() - opts.startedAt) / 1000),
      timestamp: new Date().toISOString(),
    }),
  );

  app.get(
    '/version',
    {
      schema: {
        operationId: 'wiremockVersion',
        tags,
        summary: "portal-mock's version",
        description: "The version a WireMock client asks for: portal-mock's own (the admin API follows WireMock 3.13).",
        response: { 200: Type.Object({ version: Type.String() }), ...errors(401) },
      },
      config: { answersHere: true },
    },
    async () => ({ version: opts.version }),
  );

  // ---- refused: what to use instead

  app.get(
    '/recordings/status',
    {
      schema: {
        operationId: 'wiremockRecordingStatus',
        tags,
        summary: 'Recording status: never started',
        description: "WireMock's recorder is not served here: GET /__admin/recording tells portal-mock's own.",
        response: { 200: Type.Object({ status: Type.Literal('NeverStarted') }), ...errors(401) },
      },
    },
    async () => ({ status: 'NeverStarted' as const }),
  );

  const refuse = (url: string, operationId: string, summary: string, why: WireMockError) =>
    app.post(
      url,
      {
        // never a success, so not in the API document (its contract check calls every operation for a 2xx)
        schema: {
          hide: true,
          operationId,
          tags,
          summary,
          body: Type.Unknown(),
          response: { 422: WireMockError, ...errors(401) },
        },
      },
      async (_req, reply) => reply.code(422).send(why),
    );
  const recording = wmError(
    10,
    'Recording through the WireMock API is not served by portal-mock',
    'set the upstream with PUT /__admin/proxy, then record with POST /__admin/recording {"action":"start"} and ' +
      '{"action":"stop"}: the recording is a scenario file (docs/proxy.md, "Recording")',
  );
  refuse('/recordings/start', 'wiremockRecordingStart', 'Start recording (refused: use /__admin/recording)', recording);
  refuse('/recordings/stop', 'wiremockRecordingStop', 'Stop recording (refused: use /__admin/recording)', recording);
  refuse('/recordings/snapshot', 'wiremockRecordingSnapshot', 'Snapshot (refused: use /__admin/recording)', recording);
  refuse(
    '/shutdown',
    'wiremockShutdown',
    'Shut down (refused: delete the sandbox)',
    wmError(
      10,
      'Shutting down is not served: the server holds other sandboxes',
      'delete this sandbox with DELETE /__admin/sandboxes/NAME (or reset it: POST /__admin/reset)',
    ),
  );
};

/**
 * The block's own 404: a path under /wiremock/__admin no route serves is WireMock's 404 (with a body saying where
 * the list is), never the portal's stubs or pass-through.
 */
export const wiremockAdminNotFound: FastifyPluginAsyncTypebox = async (app) => {
  app.route({
    method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    url: '/*',
    schema: { hide: true },
    handler: async (req, reply) =>
      reply
        .code(404)
        .send(
          wmError(
            404,
            `No WireMock admin route ${req.method} ${req.url.split('?')[0]!.slice(0, 200)}`,
            'portal-mock serves the admin endpoints listed in docs/wiremock.md ("The admin API")',
          ),
        ),
  });
};
