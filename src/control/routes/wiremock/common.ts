// What the routes of WireMock's admin API share (docs/wiremock.md, "The admin API"): WireMock's bodies as TypeBox
// schemas, its error body, the parsing of patterns, the sandbox and bounds of a call, the block's body parser.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { ErrorBody, ref } from '../../../schemas/common.js';
import { RegexBudget } from '../../../shared/matchers.js';
import { jsonDepth } from '../../../shared/json-depth.js';
import { uuidFrom } from '../../../store/ids.js';
import type { Sandbox } from '../../../store/sandbox.js';
import {
  defaultMappingLimits,
  parseMapping,
  type MappingLimits,
  type StringPattern,
  type StubMapping,
} from '../../../wiremock/mapping.js';
import { WireMockStubs } from '../../../wiremock/state.js';

export const tags = ['wiremock'];

// ---- schemas: WireMock's bodies. A mapping is checked by parseMapping (its 422 names the JSON pointer), so the
// route takes it as any JSON and answers it as an object of WireMock's StubMapping shape.

export const MappingIn = Type.Unknown({
  description: 'a stub mapping as WireMock takes it (docs/wiremock.md: the fields served; any other is a 422)',
});
export const Mapping = Type.Object(
  { id: Type.String(), uuid: Type.String(), request: Type.Object({}, { additionalProperties: true }) },
  { additionalProperties: true, description: "a stub mapping (WireMock's StubMapping), with its id" },
);
export const MappingList = Type.Object({
  mappings: Type.Array(Mapping),
  meta: Type.Object({ total: Type.Integer({ minimum: 0 }) }),
});
export const WireMockError = Type.Object(
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
export type WireMockError = Static<typeof WireMockError>;
/**
 * A 400 or 404 of a WireMock route: WireMock's body when the route refuses (an id that is no UUID, an unknown
 * mapping), or the control plane's when its hooks do (a sandbox name no sandbox can have).
 */
export const WireMockOrOwnError = Type.Union([WireMockError, ref(ErrorBody)]);
export const Empty = Type.Object({}, { description: '{} (WireMock answers {} or no body)' });
export const IdParams = Type.Object({
  stubMappingId: Type.String({ maxLength: 100, description: 'the mapping id (a UUID)' }),
});
export const ScenarioParams = Type.Object({ name: Type.String({ minLength: 1, maxLength: 1000 }) });
export const Pattern = Type.Unknown({
  description:
    'a string value pattern over the metadata\'s JSON, e.g. {"matchesJsonPath": {"expression": "$.x", "equalTo": "y"}}',
});
export const ImportBody = Type.Object({
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
export const LoggedRequestIn = Type.Object(
  {
    url: Type.String({ description: 'the path and query' }),
    method: Type.String(),
    headers: Type.Optional(Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.String())]))),
    body: Type.Optional(Type.String()),
    bodyAsBase64: Type.Optional(Type.String()),
  },
  { additionalProperties: true, description: "WireMock's LoggedRequest (the fields read: url, method, headers, body)" },
);
export const NearMisses = Type.Object({
  nearMisses: Type.Array(
    Type.Object({
      request: Type.Object({}, { additionalProperties: true }),
      stubMapping: Type.Optional(Mapping),
      requestPattern: Type.Optional(Type.Object({}, { additionalProperties: true })),
      matchResult: Type.Object({ distance: Type.Number() }),
    }),
  ),
});
export const Scenario = Type.Object({
  id: Type.String(),
  name: Type.String(),
  state: Type.String(),
  possibleStates: Type.Array(Type.String()),
  mappings: Type.Array(Mapping),
});
export const SettingsBody = Type.Object(
  {},
  { additionalProperties: true, description: '{"settings": {...}} or the settings themselves; only {} is served' },
);
export const Health = Type.Object({
  status: Type.Literal('healthy'),
  message: Type.String(),
  version: Type.String(),
  uptimeInSeconds: Type.Integer({ minimum: 0 }),
  timestamp: Type.String({ format: 'date-time' }),
});

// ---- plain helpers

export const wmError = (code: number, title: string, detail?: string, pointer?: string): WireMockError => ({
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
export class WireMockRefusal extends Error {
  readonly status: number;
  readonly body: WireMockError;
  constructor(status: number, body: WireMockError) {
    super(body.errors[0]?.title ?? 'refused');
    this.status = status;
    this.body = body;
  }
}

export const uuidText = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A mapping as WireMock shows it: its method (ANY when not given) and its status (200 when not given). */
export const shown = (m: StubMapping) => ({
  ...m,
  request: { ...m.request, method: m.request.method ?? 'ANY' },
  response: { status: 200, ...m.response },
});

/** A new mapping id, from the sandbox's seeded random source: the same seed and calls give the same ids. */
export const idMaker = (sandbox: Sandbox) => () => {
  const bytes = Buffer.alloc(16);
  for (let i = 0; i < 4; i++) bytes.writeUInt32BE(sandbox.random.u32(), i * 4);
  return uuidFrom(bytes);
};

/** A pattern (the body of find-by-metadata) checked as a mapping's body pattern is; its errors point at the body. */
export function parsePattern(json: unknown, limits: MappingLimits): StringPattern | WireMockError {
  const parsed = parseMapping({ request: { bodyPatterns: [json] } }, () => '', limits);
  if ('mapping' in parsed) return parsed.mapping.request.bodyPatterns![0]!;
  return rebase(parsed.errors, '/request/bodyPatterns/0', '');
}
/** A request pattern (find, count, remove, near misses) checked as a mapping's request is; errors point at the body. */
export function parseRequestPattern(json: unknown, limits: MappingLimits): StubMapping | WireMockError {
  const parsed = parseMapping(
    { request: json ?? {}, response: {} },
    () => '00000000-0000-4000-8000-000000000000',
    limits,
  );
  if ('mapping' in parsed) return parsed.mapping;
  return rebase(parsed.errors, '/request', '');
}
/** Errors of a part parsed as a mapping, their pointers moved to where the part is in the body. */
export function rebase(body: { errors: WireMockError['errors'] }, from: string, to: string): WireMockError {
  return {
    errors: body.errors.map((e) => {
      const pointer = e.source?.pointer;
      if (pointer === undefined || !(pointer === from || pointer.startsWith(`${from}/`))) return e;
      return { ...e, source: { pointer: to + pointer.slice(from.length) } };
    }),
  };
}

/** Settings fields WireMock knows, and why they are not served. */
export const unservedSettings: Record<string, string> = {
  fixedDelay: 'a global delay is not served: give the mappings fixedDelayMilliseconds',
  delayDistribution: 'a global delay is not served: give the mappings delayDistribution',
  proxyPassThrough: 'not served: a mapping with proxyBaseUrl always passes through',
  extended: 'extended settings are not served',
  receivedResponse: 'not served',
};

export const maxBodyDepth = 64;

export type Options = { version: string; startedAt: number };

/** What the routes of WireMock's admin API share in one app: its bounds, and the sandbox each call is about. */
export function wiremockKit(app: FastifyInstance) {
  const limits = () => ({ maxMappings: app.config.wiremockMaxMappings, maxBytes: app.config.wiremockSandboxKb * 1024 });
  const mappingLimits: MappingLimits = { ...defaultMappingLimits, maxProgram: app.config.regexMaxProgram };
  const budget = () => new RegexBudget({ budget: app.config.regexBudget, maxText: app.config.regexMaxText });
  /** Puts `next` in the sandbox, or answers WireMock's 422 naming the flag when it is past the bounds. */
  const put = (sandbox: Sandbox, next: WireMockStubs): WireMockError | null => {
    const problem = WireMockStubs.overLimits(next, limits());
    if (problem) return wmError(10, 'Too many stub mappings', problem, '');
    sandbox.wiremock = next;
    return null;
  };
  return { limits, mappingLimits, budget, put };
}

export const checkId = (id: string) => {
  if (!uuidText.test(id)) throw new WireMockRefusal(400, wmError(10, `${id.slice(0, 100)} is not a valid UUID`));
};
// WireMock's 404 has no body; ours says which id and where the list is (its status is what clients read)
export const notFound = (reply: FastifyReply, id: string) =>
  reply.code(404).send(wmError(404, `No stub mapping ${id.slice(0, 100)} in this sandbox`, 'list them: GET /mappings'));

/**
 * The block's body parser and error handler: a body is JSON whatever its content type (WireMock's clients send
 * text/plain too); one that does not parse is WireMock's 422 "Error parsing JSON", not the control plane's 400.
 */
export function wiremockBodies(app: FastifyInstance): void {
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
}
