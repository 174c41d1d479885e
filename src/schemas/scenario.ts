import { Type, type Static } from '@sinclair/typebox';
import { Right } from './common.js';
import { FaultKind, maxAheadSeconds } from './control.js';
import { TenantData } from './tenant-data.js';

const OperationIds = Type.Array(Type.String({ minLength: 1 }), {
  description: 'operationIds; all operations when absent',
});

export const Latency = Type.Object(
  {
    operations: Type.Optional(OperationIds),
    fixedMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 120_000 })),
    uniformMs: Type.Optional(
      Type.Object({ min: Type.Integer({ minimum: 0 }), max: Type.Integer({ minimum: 0, maximum: 120_000 }) }),
    ),
    longTailMs: Type.Optional(
      Type.Object(
        {
          median: Type.Integer({ minimum: 0 }),
          p99: Type.Integer({ minimum: 0, maximum: 120_000 }),
        },
        { description: 'log-normal delays with this median and 99th percentile' },
      ),
    ),
  },
  { additionalProperties: false },
);
export type Latency = Static<typeof Latency>;

export const Fault = Type.Object(
  {
    operations: Type.Optional(OperationIds),
    kind: Type.Union(FaultKind.anyOf, {
      description:
        'reset: the connection is destroyed; empty: the connection closes with no reply; truncated: half the body, ' +
        'then close; malformed: a body that is not valid JSON',
    }),
    phase: Type.Optional(
      Type.Union([Type.Literal('before'), Type.Literal('after-commit')], {
        description:
          'reset and empty: before (default) the handler, or after it ran and its changes were committed (the answer ' +
          'is lost, the change happened); truncated and malformed always break the answer the handler made ' +
          '(after-commit)',
      }),
    ),
    probability: Type.Optional(Type.Number({ minimum: 0, maximum: 1, default: 1 })),
  },
  { additionalProperties: false },
);
export type Fault = Static<typeof Fault>;

const Matchers = (what: string) =>
  Type.Record(Type.String(), Type.Unknown(), {
    description:
      `${what} by name: each a value (equality of its text) or one of {present: true|false}, {regex: RE2 pattern}, ` +
      '{contains: text}',
  });

export const StubMatch = Type.Object(
  {
    query: Type.Optional(Matchers('query parameters')),
    headers: Type.Optional(Matchers('request headers (names in any case)')),
    body: Type.Optional(
      Type.Unknown({
        description:
          'a JSON subset of the request body: every field given must match, recursively (arrays item by item, same ' +
          'length); a leaf may be a matcher. Tried once the body is read, after auth; a body that is not JSON never ' +
          'matches',
      }),
    ),
  },
  { additionalProperties: false, description: 'what the request must also carry (docs/scenarios.md)' },
);
export type StubMatch = Static<typeof StubMatch>;

export const Stub = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, description: 'named in the journal entries the stub answers' })),
    operationId: Type.Optional(
      Type.String({ minLength: 1, description: 'the operation answered; "*" for every portal operation' }),
    ),
    method: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z]+$',
        description:
          'with path, instead of operationId: matches by HTTP method and exact path (no prefixes, query ignored), ' +
          'also for paths the mock does not implement',
      }),
    ),
    path: Type.Optional(
      Type.String({
        pattern: '^/',
        description: 'with method: the exact path after /sandbox/NAME and /api/v2 are removed',
      }),
    ),
    except: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), { description: 'with "*": operations left alone' }),
    ),
    match: Type.Optional(StubMatch),
    status: Type.Integer({
      minimum: 200,
      maximum: 599,
      description: 'a final status: a 1xx is an interim answer, not one a stub can give',
    }),
    body: Type.Optional(Type.Unknown({ description: 'none with 204, 205 or 304' })),
    headers: Type.Optional(
      Type.Record(Type.String(), Type.String(), {
        description:
          'names and values as HTTP allows them (a value: tab, printable ASCII, bytes 0x80-0xFF); not the framing ' +
          'and hop-by-hop headers content-length, transfer-encoding, content-encoding, connection, keep-alive, ' +
          'proxy-connection, upgrade, te, trailer',
      }),
    ),
    times: Type.Optional(Type.Integer({ minimum: 1, description: 'answer this many times, then let the mock answer' })),
    probability: Type.Optional(
      Type.Number({ minimum: 0, maximum: 1, description: 'chance of answering with the stub' }),
    ),
  },
  { additionalProperties: false },
);
export type Stub = Static<typeof Stub>;

/** The collections a data entry can name: those of a tenant's data whose records have an id (the records API's). */
export const dataCollections: string[] = Object.entries(TenantData.properties)
  .filter(([, schema]) => {
    const items = (schema as { items?: { properties?: Record<string, unknown> } }).items;
    return items?.properties?.id !== undefined;
  })
  .map(([name]) => name)
  .sort();

const Collection = (what: string) =>
  Type.Union(
    dataCollections.map((name) => Type.Literal(name)),
    { description: `the collection of the records ${what} (docs/data.md)` },
  );
const DataTenant = Type.Optional(
  Type.String({ minLength: 1, description: 'the tenant id; when absent, the first tenant of the fixtures' }),
);
const DataFields = (description: string) => Type.Record(Type.String(), Type.Unknown(), { description });

export const DataCreate = Type.Object(
  {
    create: Collection('made'),
    tenant: DataTenant,
    record: DataFields("the record's fields, checked against its collection's schema when the scenario is applied"),
    count: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'this many records alike' })),
    dependents: Type.Optional(
      Type.Boolean({
        default: true,
        description:
          "false: the record alone, without what its factory makes for it (a user's employment and groups); an " +
          'exported block says so on every create, as it lists those records itself',
      }),
    ),
  },
  { additionalProperties: false, description: 'creates records, as POST /__admin/data/{tenantId}/{collection}' },
);
const ListChange = (description: string) =>
  Type.Record(Type.String(), Type.Array(Type.String()), {
    description: `by field (a list of ids or texts): ${description}`,
  });
export const DataPatch = Type.Object(
  {
    patch: Collection('changed'),
    tenant: DataTenant,
    id: Type.String({ minLength: 1 }),
    set: Type.Optional(DataFields('the fields that change (id and tenantId cannot)')),
    drop: Type.Optional(
      ListChange('the items taken out of the list (each must be in it), before `add`; the others keep their order'),
    ),
    add: Type.Optional(ListChange("the items put at the list's end, after `drop`")),
  },
  {
    additionalProperties: false,
    description:
      'changes fields of a record, as PATCH /__admin/data/…/{id}: `set` gives fields whole; `drop` and `add` change ' +
      "a list by its items (a group's members: the ids that joined, not the whole list); at least one of the three",
  },
);
export const DataRemove = Type.Object(
  {
    remove: Collection('removed'),
    tenant: DataTenant,
    id: Type.String({ minLength: 1 }),
  },
  {
    additionalProperties: false,
    description: 'removes a record no other record names, as DELETE /__admin/data/…/{id}',
  },
);
/** The collections of a tenant whose records have no id, as a bug capture pins them whole (`pin.collections`). */
export const pinnedCollectionNames = Object.keys(TenantData.properties).filter(
  (name) => name !== 'tenant' && !dataCollections.includes(name),
) as Array<keyof typeof TenantData.properties>;
const PinnedCollections = Type.Object(
  Object.fromEntries(pinnedCollectionNames.map((name) => [name, Type.Optional(TenantData.properties[name])])),
  { additionalProperties: false },
);

/** One step of a scenario's data block: create, patch or remove, named by the key that holds the collection. */
export const DataEntry = Type.Union([DataCreate, DataPatch, DataRemove]);
export type DataEntry = Static<typeof DataEntry>;
/** The entry kinds by their key, for a check that names what is wrong instead of "expected one of three". */
export const dataEntryKinds = { create: DataCreate, patch: DataPatch, remove: DataRemove } as const;

/**
 * A sandbox's WireMock stub mappings and the states of their scenarios, as a capture holds them: the shape of
 * src/wiremock/state.ts's StoredWireMock (a schema imports nothing but schemas), each mapping checked when applied.
 */
export const ScenarioWireMock = Type.Object(
  {
    mappings: Type.Array(Type.Unknown(), {
      description: "WireMock stub mappings (WireMock 3.13's JSON), oldest first",
    }),
    scenarios: Type.Optional(
      Type.Record(Type.String(), Type.String(), {
        description: "WireMock scenario name → its state, for the scenarios not in 'Started'",
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      'WireMock 3.13 stub mappings (docs/wiremock.md), each as a mapping file holds it, and the states of their ' +
      'scenarios: applied when the scenario is applied to a sandbox (made with it, set to it, reset). The ' +
      "sandbox's mappings then are those of --wiremock followed by these (parents first), its WireMock scenarios " +
      'in these states, else "Started". A bug capture (with `pin`) holds the whole set: only these, none when ' +
      'absent. A mapping portal-mock cannot serve refuses the file, naming its JSON pointer',
  },
);

export const ScenarioFile = Type.Object(
  {
    $schema: Type.Optional(
      Type.String({ description: 'the JSON Schema editors check the file against: "./scenario.schema.json"' }),
    ),
    summary: Type.Optional(
      Type.Record(Type.String(), Type.String(), {
        description:
          'what a bug capture holds, in a few lines for the person reading it (the sandbox, its clock, scenario, ' +
          'what was arranged and what followed); never applied',
      }),
    ),
    name: Type.String({
      pattern: '^[a-z0-9][a-z0-9-]{0,63}$',
      description: 'the name used by --scenario, x-mock-scenario and the admin routes; the file is NAME.json',
    }),
    description: Type.String({ minLength: 1 }),
    extends: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
    twoFactor: Type.Optional(
      Type.Boolean({ description: 'force two-factor on (true) or off (false) for every account' }),
    ),
    sessions: Type.Optional(
      Type.Object(
        {
          expired: Type.Optional(
            Type.Boolean({
              description: 'sessions that exist when the scenario is applied answer 401; a new /mobile/auth works',
            }),
          ),
          lifetimeSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: maxAheadSeconds })), // 100 years: see clockRange
        },
        { additionalProperties: false },
      ),
    ),
    revokeRights: Type.Optional(Type.Union([Type.Literal('all'), Type.Array(Right)])),
    tenantOptions: Type.Optional(
      Type.Object(
        {
          enableWallet: Type.Optional(Type.Boolean()),
          enableIdeas: Type.Optional(Type.Boolean()),
          enableCalendar: Type.Optional(Type.Boolean()),
        },
        { additionalProperties: false },
      ),
    ),
    emptyData: Type.Optional(Type.Boolean({ description: 'a fresh employee: personal lists and widgets are empty' })),
    holdTickets: Type.Optional(Type.Boolean({ description: 'workflow tickets do not move on with the clock' })),
    stubs: Type.Optional(Type.Array(Stub)),
    latency: Type.Optional(Type.Array(Latency)),
    faults: Type.Optional(Type.Array(Fault)),
    bandwidth: Type.Optional(
      Type.Object(
        {
          bytesPerSecond: Type.Integer({
            minimum: 100,
            maximum: 1_000_000_000,
            description:
              "each body (the request's as it is read, the answer's as it is written, after compression) moves at " +
              'most this fast',
          }),
        },
        { additionalProperties: false },
      ),
    ),
    forward: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        description: 'operationIds the mock does not answer itself: they are forwarded to the upstream (--proxy)',
      }),
    ),
    compare: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        description:
          'operationIds answered by the mock and also sent to the upstream; differences are listed by GET ' +
          '/__admin/compare',
      }),
    ),
    findings: Type.Optional(
      Type.Object(
        {
          off: Type.Array(Type.String({ minLength: 1 }), {
            description: 'finding codes not reported in this scenario (docs/findings.md)',
          }),
        },
        { additionalProperties: false },
      ),
    ),
    pin: Type.Optional(
      Type.Object(
        {
          seed: Type.Integer({ description: 'the seed of the base world' }),
          refDate: Type.String({
            format: 'date-time',
            description: "the base world's reference date: the day its dates are seeded around (the start's --now)",
          }),
          clock: Type.Object(
            { mode: Type.Literal('frozen'), at: Type.String({ format: 'date-time' }) },
            { additionalProperties: false, description: 'the sandbox clock, frozen at this instant' },
          ),
          collections: Type.Optional(
            Type.Record(Type.String({ minLength: 1 }), PinnedCollections, {
              description:
                'by tenant id, the collections whose records have no id (so `data` cannot name them) as the sandbox ' +
                "had them, where they differ from the base world: applied, they replace the base's",
            }),
          ),
        },
        {
          additionalProperties: false,
          description:
            'what a bug capture pins (docs/data.md, "Bug capture"): applied, the sandbox goes back to the base world of ' +
            'this seed and reference date and its clock is frozen here, then `data` applies; so the sandbox answers ' +
            'the same bytes on any server, whatever its --seed and --now',
        },
      ),
    ),
    data: Type.Optional(
      Type.Array(DataEntry, {
        description:
          'records created, patched and removed, in order, when the scenario is applied to a sandbox (made with it, ' +
          'set to it, reset); all or nothing: an entry that does not apply leaves the sandbox as it was',
      }),
    ),
    followed: Type.Optional(
      Type.Array(DataEntry, {
        description:
          "in a bug capture, the changes that followed from the clock, not from the tester (the base world's " +
          'workflow tickets moved on through their stages): applied after `data`, in order, as `data` is',
      }),
    ),
    wiremock: Type.Optional(ScenarioWireMock),
  },
  { additionalProperties: false },
);
export type ScenarioFile = Static<typeof ScenarioFile>;

/** A scenario with `extends` resolved: lists concatenated (parents first), flags overridden by the child. */
export type Scenario = Omit<ScenarioFile, 'extends' | '$schema'> & { file: string; chain: string[] };

/** A scenario's definition as given, and where it comes from (GET /__admin/scenarios/{name}). */
export const ScenarioDefinition = Type.Object({
  name: Type.String(),
  description: Type.String(),
  extends: Type.Array(Type.String(), { description: 'the scenarios it extends, resolved, outermost first' }),
  source: Type.Union([Type.Literal('file'), Type.Literal('admin')], {
    description: 'admin: defined through PUT /__admin/scenarios/{name} (over a file of the same name, if any)',
  }),
  file: Type.String({ description: 'the scenario file, or where the admin API definition lives' }),
  definition: ScenarioFile,
});
export type ScenarioDefinition = Static<typeof ScenarioDefinition>;

/** The `$id` of the scenario file's JSON Schema (scenarios/scenario.schema.json, GET /__admin/scenario.schema.json). */
export const scenarioSchemaId = 'urn:portal-mock:scenario-file' as const;

/**
 * The JSON Schema of a scenario file, for editors: ScenarioFile as plain JSON (draft-07), its own `$schema` and `$id`,
 * and no inner `$id` (a named part such as Right is inlined, and an inner `$id` would only move its base URI).
 */
export function scenarioJsonSchema(): { $schema: string; $id: typeof scenarioSchemaId } & Record<string, unknown> {
  const plain = JSON.parse(JSON.stringify(ScenarioFile), (key, value) => (key === '$id' ? undefined : value));
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: scenarioSchemaId,
    title: 'portal-mock scenario',
    ...plain,
  };
}
