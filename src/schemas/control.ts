// Records the admin side answers (/__admin): sandboxes, snapshots, the request journal and its HAR form, the outbox,
// the clock, the fixtures and the findings. The store and the admin routes use them; so does the typed admin client.
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, ref, Stamp } from './common.js';

/**
 * The times a sandbox clock may show: 1970-01-01T00:00:00.000Z to 9899-12-31T23:59:59.999Z. Before 1970 Unix times
 * turn negative (token and session stamps). A date-time field takes four-digit years only (past 9999 ISO 8601 needs
 * an expanded year, "+010000-…", which neither the records API nor a snapshot import takes back), and the mock dates
 * things ahead of its clock (session expiries, bind links: up to `maxAheadSeconds`), so the last century is left for
 * them. Far past that lies JavaScript's own end of time (±8.64e15 ms), where every answer stamped by the clock failed.
 */
export const clockRange = { minMs: 0, maxMs: Date.UTC(9899, 11, 31, 23, 59, 59, 999) } as const;
export const clockRangeText = '1970-01-01T00:00:00.000Z to 9899-12-31T23:59:59.999Z';
/** The longest a stamp the mock derives may lie ahead of the clock (a session's lifetime, a bind link's ttl): 100 years. */
export const maxAheadSeconds = 100 * 365.25 * 24 * 3600;
/** The largest offset or advance that can keep a clock in range (its width): a schema bound, before the exact check. */
export const maxClockShiftMs = clockRange.maxMs - clockRange.minMs;

/** A clock as a sandbox's files may hold it (older versions stored any integer offset): checked at start apart. */
export const StoredClockState = Type.Union([
  Type.Object({ mode: Type.Literal('real') }),
  Type.Object({ mode: Type.Literal('frozen'), at: Type.String() }),
  Type.Object({ mode: Type.Literal('offset'), offsetMs: Type.Number() }),
]);

/** A sandbox clock: the offset's bound is the range's width; whether the time it shows is in range is checked apart. */
export const ClockState = Type.Union(
  [
    Type.Object({ mode: Type.Literal('real') }),
    Type.Object({ mode: Type.Literal('frozen'), at: Stamp }),
    Type.Object({
      mode: Type.Literal('offset'),
      offsetMs: Type.Integer({ minimum: -maxClockShiftMs, maximum: maxClockShiftMs }),
    }),
  ],
  {
    $id: 'ClockState',
    description: `The time it shows stays within ${clockRangeText} (a change past it is a 400, and the clock is kept).`,
  },
);
export type ClockState = Static<typeof ClockState>;

/** How a scenario fault breaks an answer (the scenario file documents each kind). */
export const FaultKind = Type.Union([
  Type.Literal('reset'),
  Type.Literal('empty'),
  Type.Literal('truncated'),
  Type.Literal('malformed'),
]);
export type FaultKind = Static<typeof FaultKind>;

export const JournalEntry = Type.Object(
  {
    id: Type.Integer({ description: 'increasing number within the sandbox' }),
    at: Type.String({ format: 'date-time', description: 'sandbox clock time when the request arrived' }),
    method: Type.String(),
    url: Type.String({ description: 'as the client sent it, prefixes included' }),
    path: Type.String({ description: 'the path without query and prefixes' }),
    operationId: Nullable(Type.String()),
    status: Type.Integer(),
    durationMs: Type.Number(),
    scenario: Nullable(Type.String()),
    stubbed: Type.Boolean({ description: 'answered by a scenario stub or fault' }),
    fault: Type.Optional(FaultKind),
    afterCommit: Type.Optional(
      Type.Boolean({
        description:
          'the fault broke the answer after the handler ran and its changes ' +
          'were committed: the client never saw a change that happened',
      }),
    ),
    stub: Type.Optional(
      Type.Object(
        {
          index: Type.Integer({ description: "its place in the scenario's stubs, parents' first (from 0)" }),
          name: Type.Optional(Type.String()),
        },
        { description: 'the scenario stub that answered' },
      ),
    ),
    wiremockMapping: Type.Optional(
      Type.String({ description: "the id of the sandbox's WireMock stub mapping that answered (docs/wiremock.md)" }),
    ),
    requestHeaders: Type.Record(Type.String(), Type.String()),
    requestBody: Type.Optional(Type.Unknown()),
    responseBody: Type.Optional(Type.Unknown()),
  },
  { $id: 'JournalEntry' },
);
export type JournalEntry = Static<typeof JournalEntry>;

export const OutboxMessage = Type.Object(
  {
    id: Type.Integer({ description: 'increasing number within the sandbox' }),
    at: Type.String({ format: 'date-time', description: 'sandbox clock time of sending' }),
    kind: Type.Union([Type.Literal('two-factor-code'), Type.Literal('push')]),
    tenantId: Type.String(),
    userId: Type.String(),
    to: Type.String({ description: 'e-mail address for codes, push token for pushes' }),
    code: Type.Optional(Type.String({ description: 'the two-factor code' })),
    payload: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), { description: 'push payload as the provider would receive it' }),
    ),
  },
  { $id: 'OutboxMessage' },
);
export type OutboxMessage = Static<typeof OutboxMessage>;

export const FixturesAnswer = Type.Object(
  {
    tenants: Type.Array(
      Type.Object({
        id: Type.String(),
        name: Type.String(),
        domain: Type.String(),
        locale: Type.String(),
        options: Type.Object({
          enableWallet: Type.Boolean(),
          enableIdeas: Type.Boolean(),
          enableCalendar: Type.Boolean(),
        }),
      }),
    ),
    accounts: Type.Array(
      Type.Object({
        tenantId: Type.String(),
        userId: Type.String(),
        email: Type.String(),
        password: Type.String(),
        twoFactor: Type.Boolean(),
        rights: Type.Array(Type.String()),
        name: Type.String(),
        note: Type.String(),
      }),
    ),
    devices: Type.Array(
      Type.Object({
        tenantId: Type.String(),
        userId: Type.String(),
        id: Type.String(),
        secret: Type.String(),
        name: Type.String(),
        note: Type.String(),
      }),
    ),
    apiKeys: Type.Array(
      Type.Object({
        tenantId: Type.String(),
        clientId: Type.String(),
        clientSecret: Type.String(),
        name: Type.String(),
      }),
    ),
    bindLinks: Type.Array(
      Type.Object({
        tenantId: Type.String(),
        userId: Type.String(),
        id: Type.String(),
        token: Type.String(),
        url: Type.String({ description: 'the bind operation: POST here with {device}' }),
        link: Type.String({ description: 'what the QR code carries: service://bind/?url=…' }),
        qr: Type.String({ description: 'address of an SVG image of the QR code' }),
      }),
    ),
    generatedPassword: Type.String({ description: 'password of every generated (non-fixture) user' }),
  },
  { $id: 'AdminFixtures' },
);
export type FixturesAnswer = Static<typeof FixturesAnswer>;

export const SandboxInfo = Type.Object(
  {
    name: Type.String(),
    scenario: Type.String(),
    createdAt: Type.String(),
    clock: ref(ClockState),
    now: Type.String(),
    persistent: Type.Boolean(),
    journalEntries: Type.Integer(),
    outboxMessages: Type.Integer(),
    instance: Type.String({ description: 'the portal-mock instance that holds the sandbox (its x-mock-instance)' }),
    kept: Type.Boolean({
      description: 'never leaves memory when idle (--sandbox-idle-ttl); set with PUT /__admin/sandboxes/{name}',
    }),
    resident: Type.Boolean({
      description:
        'false: written out under --data after --sandbox-idle-ttl, out of memory until its next use reads it back',
    }),
    writtenOutAt: Type.Optional(Type.String({ description: 'when a sandbox that is not resident left memory' })),
  },
  { $id: 'AdminSandbox' },
);
export type SandboxInfo = Static<typeof SandboxInfo>;

export const Snapshot = Type.Object(
  {
    format: Type.Literal('portal-mock-state'),
    version: Type.Literal(1),
    sandbox: Type.Optional(Type.String()),
    seed: Type.Optional(
      Type.Integer({
        description: 'seed of the data and the random source; --state starts with it unless --seed is given',
      }),
    ),
    scenario: Type.Optional(Type.String()),
    clock: Type.Optional(ref(ClockState)),
    data: Type.Unknown({ description: 'the whole store of the sandbox, checked against its schema on import' }),
  },
  { $id: 'AdminSnapshot' },
);
export type Snapshot = Static<typeof Snapshot>;

const NameValue = Type.Object({ name: Type.String(), value: Type.String() });

export const HarEntry = Type.Object({
  startedDateTime: Stamp,
  time: Type.Number({ minimum: 0 }),
  request: Type.Object({
    method: Type.String(),
    url: Type.String(),
    httpVersion: Type.String(),
    cookies: Type.Array(NameValue),
    headers: Type.Array(NameValue),
    queryString: Type.Array(NameValue),
    postData: Type.Optional(Type.Object({ mimeType: Type.String(), text: Type.String() })),
    headersSize: Type.Integer(),
    bodySize: Type.Integer(),
  }),
  response: Type.Object({
    status: Type.Integer(),
    statusText: Type.String(),
    httpVersion: Type.String(),
    cookies: Type.Array(NameValue),
    headers: Type.Array(NameValue),
    content: Type.Object({ size: Type.Integer(), mimeType: Type.String(), text: Type.Optional(Type.String()) }),
    redirectURL: Type.String(),
    headersSize: Type.Integer(),
    bodySize: Type.Integer(),
  }),
  cache: Type.Object({}),
  timings: Type.Object({ send: Type.Number(), wait: Type.Number(), receive: Type.Number() }),
  comment: Type.Optional(Type.String()),
});

export const Har = Type.Object(
  {
    log: Type.Object({
      version: Type.Literal('1.2'),
      creator: Type.Object({ name: Type.String(), version: Type.String() }),
      pages: Type.Optional(Type.Array(Type.Unknown())),
      entries: Type.Array(HarEntry),
      comment: Type.Optional(Type.String()),
    }),
  },
  { $id: 'AdminHar', description: 'HAR 1.2 log of the request journal (secrets redacted)' },
);
export type Har = Static<typeof Har>;

/** The stable codes of findings; docs/findings.md says what each means and what to change in the app. */
export const findingCodes = [
  'set-user-list-not-json',
  'date-range-time-of-day',
  'user-index-per-page',
  'admin-per-page-clamped',
  'search-without-right',
  'session-headers-missing',
  'session-other-device',
  'session-after-unbind',
  'unauthorized-loop',
  'two-factor-code-missing',
  'upload-never-finished',
  'finish-before-upload',
  'prepare-new-id',
  'push-token-repeated',
  'polling-too-fast',
  'retry-storm',
  'bearer-on-token-management',
  'wrong-body-type',
  'retry-created-duplicate',
] as const;
export const FindingCode = Type.Union(findingCodes.map((code) => Type.Literal(code)));
export type FindingCode = Static<typeof FindingCode>;
const Severity = Type.Union([Type.Literal('warning'), Type.Literal('error')]);

export const Finding = Type.Object(
  {
    id: Type.Integer({ description: 'increasing number within the sandbox' }),
    at: Type.String({ format: 'date-time', description: 'sandbox clock time of the request' }),
    code: FindingCode,
    severity: Severity,
    requestId: Type.Integer({
      description: 'the journal entry of the request (GET /__admin/requests); 0 when the journal is off',
    }),
    operationId: Type.String(),
    method: Type.String(),
    path: Type.String({ description: 'without query and prefixes' }),
    message: Type.String({ description: 'what the real portal does and what to change in the app' }),
    docs: Type.String({ description: 'the operation in the API documentation (/docs)' }),
  },
  { $id: 'AdminFinding', description: 'What the app did that the real portal answers differently (docs/findings.md)' },
);
export type Finding = Static<typeof Finding>;

// What the admin routes take and answer besides the records above. They have no $id, so the OpenAPI document shows
// them inline; the store and the typed client take their types from here.
const sandbox = Type.Optional(Type.String());
const since = Type.Optional(Type.String({ format: 'date-time', description: 'sandbox-clock time' }));

/**
 * The field filters of the journal: `header.NAME`, `query.NAME`, `body` or `body.PATH`, each optionally followed by
 * `:regex`, `:contains` or `:present` (docs/admin.md). A pattern, not properties: the routes refuse any other key.
 */
export const JournalFieldFilters = Type.Record(
  Type.TemplateLiteral([
    Type.Union([Type.Literal('header.'), Type.Literal('query.'), Type.Literal('body')]),
    Type.String(),
  ]),
  Type.String(),
);

/** The filters of GET /__admin/requests and /__admin/requests/count. */
export const JournalQuery = Type.Object(
  {
    sandbox,
    operationId: Type.Optional(Type.String()),
    method: Type.Optional(Type.String()),
    path: Type.Optional(Type.String({ description: 'exact path, or a prefix ending in *' })),
    status: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 599, description: '0: a connection dropped before any answer' }),
    ),
    fault: Type.Optional(Type.Union(FaultKind.anyOf, { description: 'the scenario fault that broke the answer' })),
    finding: Type.Optional(Type.Union(FindingCode.anyOf, { description: 'a finding code the request raised' })),
    since,
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000, default: 100 })),
  },
  { patternProperties: JournalFieldFilters.patternProperties },
);
export type JournalFilter = Omit<Static<typeof JournalQuery>, 'sandbox'> & Static<typeof JournalFieldFilters>;

export const FindingQuery = Type.Object({
  sandbox,
  code: Type.Optional(FindingCode),
  severity: Type.Optional(Severity),
  since,
});
export type FindingFilter = Omit<Static<typeof FindingQuery>, 'sandbox'>;

export const OutboxQuery = Type.Object({
  sandbox,
  kind: Type.Optional(OutboxMessage.properties.kind),
  to: Type.Optional(Type.String()),
  userId: Type.Optional(Type.String()),
});
export type OutboxFilter = Omit<Static<typeof OutboxQuery>, 'sandbox'>;

export const ScenarioSummary = Type.Object({
  name: Type.String(),
  description: Type.String(),
  extends: Type.Array(Type.String()),
});
export type ScenarioSummary = Static<typeof ScenarioSummary>;

export const ActiveScenario = Type.Object({ sandbox: Type.String(), name: Type.String(), description: Type.String() });
export type ActiveScenario = Static<typeof ActiveScenario>;

/** PUT /__admin/clock: exactly one of these (the route refuses none or two). */
export const ClockChange = Type.Object({
  freeze: Type.Optional(Type.String({ format: 'date-time', description: 'stop time at this instant' })),
  // no schema bound in milliseconds: the bound is the time shown, checked by the route and refused naming that date
  offsetMs: Type.Optional(
    Type.Integer({ description: `real time shifted by N ms; the time shown must lie within ${clockRangeText}` }),
  ),
  advanceMs: Type.Optional(
    Type.Integer({
      description: `move the clock by N ms, keeping its mode; the time shown must lie within ${clockRangeText}`,
    }),
  ),
  mode: Type.Optional(Type.Literal('real', { description: 'release the clock to real time' })),
});

export const ClockAnswer = Type.Object({ now: Type.String(), state: ref(ClockState) });
export type ClockAnswer = Static<typeof ClockAnswer>;

export const BindLink = Type.Object({
  id: Type.String(),
  token: Type.String(),
  tenantId: Type.String(),
  userId: Type.String(),
  url: Type.String(),
  link: Type.String(),
  qr: Type.String(),
  singleUse: Type.Boolean(),
  expiresAt: Nullable(Type.String()),
});
export type BindLink = Static<typeof BindLink>;

/** GET /__admin/health. */
export const Health = Type.Object({
  status: Type.Literal('ok'),
  instance: Type.String({ description: 'this instance (--instance-name, else hostname:port)' }),
  version: Type.String(),
  scenario: Type.String(),
  seed: Type.Integer(),
  uptimeMs: Type.Integer(),
  sandbox: Type.String(),
  sandboxes: Type.Integer({ description: 'sandboxes that exist now' }),
  sandboxLimit: Type.Integer({ description: '--max-sandboxes: a request that would create one more gets 429' }),
  memory: Type.Object({
    rssBytes: Type.Integer({ description: 'resident memory of the process' }),
    heapUsedBytes: Type.Integer({ description: 'JavaScript heap in use' }),
    externalBytes: Type.Integer({ description: "memory outside the heap held by JavaScript objects (Buffers' bytes)" }),
    heldBytes: Type.Integer({ description: 'what --max-memory-mb counts: RSS, or heap and external when more' }),
    budgetBytes: Type.Integer({ description: '--max-memory-mb in bytes (0: none): past it, what grows is refused' }),
  }),
  journals: Type.Object(
    {
      bytes: Type.Integer({ description: 'what the entries of every journal take now' }),
      sandboxes: Type.Integer({ description: 'sandboxes whose journal holds entries' }),
      budgetBytes: Type.Integer({ description: '--journal-mb in bytes: past it the oldest entries go' }),
    },
    { description: "the server's request journals, one budget for all" },
  ),
  outboxes: Type.Object(
    {
      bytes: Type.Integer({ description: 'what the messages of every outbox take now (as JSON)' }),
      sandboxes: Type.Integer({ description: 'sandboxes whose outbox holds messages' }),
      budgetBytes: Type.Integer({ description: '--outbox-mb in bytes: past it the oldest messages go' }),
    },
    { description: "the server's outboxes (e-mails with codes, pushes), one budget for all" },
  ),
  findings: Type.Object(
    { warning: Type.Integer(), error: Type.Integer() },
    { description: 'findings of the sandbox by severity (GET /__admin/findings)' },
  ),
  keptAnswers: Type.Object(
    {
      bytes: Type.Integer({ description: 'what the kept answers of every sandbox count now (docs/reliability.md)' }),
      entries: Type.Integer(),
      budgetBytes: Type.Integer({ description: '--answer-cache-mb in bytes: bytes never exceeds it' }),
    },
    { description: "the server's kept answers (calendar, dashboard, tickets, tenant info), one budget for all" },
  ),
  eventLoop: Type.Optional(
    Type.Object(
      {
        maxMs: Type.Number({ description: 'the longest event-loop delay since the previous read: the longest stall' }),
        p99Ms: Type.Number(),
        meanMs: Type.Number(),
        samples: Type.Integer({ description: 'delays sampled (one each 10 ms of a free loop)' }),
        sinceMs: Type.Integer({ description: 'since the previous read; 0 on the first, which starts the sampling' }),
      },
      { description: 'with ?loop=true only: the event-loop delay since the previous ?loop=true read' },
    ),
  ),
});
export type Health = Static<typeof Health>;
