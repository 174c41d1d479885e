// A typed client of the admin contract (/__admin) for QA code: `import { adminClient } from 'portal-mock/admin'`.
// Types are the server's own, from its TypeBox schemas, written out as plain types in ./types.gen.ts (npm run
// client-types), so the client's declarations load nothing of the server, TypeBox or Fastify; it uses the global
// fetch (Node.js ≥ 18, browsers).
import type {
  ActiveScenario,
  BindLink,
  ClockAnswer,
  ClockState,
  Finding,
  FindingCode,
  FindingFilter,
  FindingsCleared,
  FixturesAnswer,
  Har,
  Health,
  JournalCleared,
  JournalCount,
  JournalEntry,
  JournalFilter as ServerJournalFilter,
  NotificationCreated,
  OutboxFilter,
  OutboxMessage,
  RecordCollectionName,
  RecordOf,
  SandboxDeleted,
  SandboxesDeleted,
  SandboxesReset,
  SandboxInfo,
  ScenarioDefinition,
  ScenarioFile,
  ScenarioName,
  ScenarioSummary,
  SessionsExpired,
  ShippedScenarioName,
  Snapshot,
  UserBlocked,
  PortalOperationId,
} from './types.gen.js';

/**
 * The journal's filters, `operationId` typed as one of the portal's operationIds (src/schemas/operation-ids.ts,
 * generated from the routes): a misspelt one does not compile, and the mock answers 400 naming the closest.
 */
export type JournalFilter = Omit<ServerJournalFilter, 'operationId'> & { operationId?: PortalOperationId };
export type { PortalOperationId };

export type { JournalEntry, OutboxMessage, ClockState, FixturesAnswer, Har, Finding, FindingCode };
export type { SandboxInfo, Snapshot, ActiveScenario, BindLink, FindingFilter, Health, OutboxFilter, ScenarioSummary };
export type { RecordCollectionName, RecordOf };
export type {
  FindingsCleared,
  JournalCleared,
  NotificationCreated,
  SandboxDeleted,
  SandboxesDeleted,
  SandboxesReset,
  ScenarioDefinition,
  ScenarioFile,
  ScenarioName,
  ShippedScenarioName,
  UserBlocked,
};
export type Clock = ClockAnswer;

export type ClockChange = { freeze: string } | { offsetMs: number } | { advanceMs: number } | { mode: 'real' };
export type Who = { email: string; userId?: never } | { userId: string; email?: never };

export type AdminClientOptions = {
  /** where the mock runs, e.g. http://127.0.0.1:3000 (no trailing /__admin) */
  baseUrl: string;
  /** the sandbox every call is about (sent as x-mock-sandbox); default: the server's default sandbox */
  sandbox?: string;
  /** the --admin-token of the server */
  adminToken?: string;
  /** the tenant of `data` (default: the first tenant of the mock's fixtures) */
  tenantId?: string;
  /** another fetch (default: the global one) */
  fetch?: typeof fetch;
  /**
   * @deprecated ignored: a read never makes a sandbox, so a misspelt name never reads as empty. A read of a sandbox
   * that does not exist throws the AdminError 404 `SANDBOX_NOT_FOUND` naming it; writes (scenario, clock, reset,
   * records) make it as the server does (docs/sandboxes.md); `sandboxCreate()` makes it explicitly.
   */
  createSandbox?: boolean;
};

/** Most records one `createMany` makes: the records API's `count` bound (one all-or-nothing write). */
export const maxCreateMany = 1000;

/** A non-2xx answer of the admin side; `body` is the mock's error body. */
export class AdminError extends Error {
  readonly status: number;
  readonly body: unknown;
  constructor(status: number, body: unknown, what: string) {
    const message =
      typeof body === 'object' && body !== null && 'message' in body
        ? String((body as { message: unknown }).message)
        : String(body);
    super(`${what}: ${status} ${message}`);
    this.status = status;
    this.body = body;
  }
}

type Query = Record<string, string | number | undefined>;

/** The journal filter without `limit` (a count or an assertion is over every entry the journal keeps). */
export type JournalMatch = Omit<JournalFilter, 'limit'>;
/** What `requests.assert` expects: the filter, and `times` (exactly) or `atLeast` (default: at least 1). */
export type JournalExpectation = JournalMatch & { times?: number; atLeast?: number };

/** Field equality filters (compared as text by the mock) and paging. */
export type RecordFilter<R> = { [F in keyof R]?: string | number | boolean } & { offset?: number; limit?: number };

/** What a create made: the records of the collection named, and the records of others they needed. */
export type Created<R> = { records: R[]; dependents: Partial<{ [K in RecordCollectionName]: RecordOf<K>[] }> };

/** The records of one collection of one tenant, in the client's sandbox. */
export interface RecordsClient<R> {
  list(filter?: RecordFilter<R>): Promise<{ total: number; records: R[] }>;
  get(id: string): Promise<R>;
  /**
   * Creates a record from the fields given: the mock fills the others as its seeder would (an id from the sandbox's
   * seed, references to existing records of the tenant) and makes what the record needs (a user's employment),
   * answered in `dependents`.
   */
  create(record?: Partial<R>): Promise<Created<R>>;
  /**
   * `count` records alike, each filled as `create` does (unique fields differ), in one all-or-nothing write: at most
   * `maxCreateMany` (1000), else a RangeError before anything is sent.
   */
  createMany(count: number, record?: Partial<R>): Promise<Created<R>>;
  patch(id: string, fields: Partial<Omit<R, 'id'>>): Promise<R>;
  remove(id: string): Promise<{ deleted: string }>;
}

/**
 * Every collection of one tenant's data, typed by its schema: `data.users.create({ twoFactor: true })`.
 * `tenant(id)` is the same for another tenant.
 */
export type DataClient = { readonly [K in RecordCollectionName]: RecordsClient<RecordOf<K>> } & {
  tenant(tenantId: string): DataClient;
};

/**
 * The typed client. Declared, not inferred, so that `sandbox(name)` answers this same type (an inferred recursive
 * return type degrades to `any` in the emitted .d.ts, and `admin.sandbox('y').scenario.sett()` would compile).
 */
export interface AdminClient {
  readonly options: Readonly<AdminClientOptions>;
  /** The same client for another sandbox; a read throws AdminError 404 while it does not exist (writes make it). */
  sandbox(name: string): AdminClient;
  /** makes this client's sandbox (PUT /__admin/sandboxes/NAME), or answers it when it exists */
  sandboxCreate(init?: { scenario?: ScenarioName }): Promise<SandboxInfo>;
  health(): Promise<Health>;
  fixtures(): Promise<FixturesAnswer>;
  scenarios(): Promise<ScenarioSummary[]>;
  scenario: {
    get(): Promise<ActiveScenario>;
    set(name: ScenarioName): Promise<ActiveScenario>;
    /** defines `scenario` on the instance under its own name (as `scenarioDefinitions.put`) and activates it */
    setInline(scenario: ScenarioFile): Promise<ActiveScenario>;
  };
  /** scenarios defined while the mock runs, per instance (docs/scenarios.md) */
  scenarioDefinitions: {
    get(name: ScenarioName): Promise<ScenarioDefinition>;
    /** defines or replaces the scenario of `scenario.name`; a definition that is not valid is an AdminError (400) */
    put(scenario: ScenarioFile): Promise<ScenarioSummary>;
    delete(name: string): Promise<{ deleted: string }>;
  };
  reset(seed?: number): Promise<SandboxInfo>;
  /**
   * A bug capture of this client's sandbox (GET /__admin/sandboxes/NAME/capture): one scenario file that replays it
   * byte for byte on any server (`scenario.setInline(capture)` there). A missing sandbox is an AdminError (404).
   */
  capture(opts?: { as?: ScenarioName }): Promise<ScenarioFile>;
  state: {
    export(): Promise<Snapshot>;
    import(snapshot: Snapshot): Promise<SandboxInfo>;
  };
  requests: {
    list(filter?: JournalFilter): Promise<JournalEntry[]>;
    count(filter?: JournalMatch): Promise<number>;
    /**
     * The entries matching the filter; throws an Error saying what was expected, how many matched and what came
     * closest (the entries that match all but one of the filter's fields) when their number is not `times` (or is
     * below `atLeast`; neither given: at least 1).
     */
    assert(expect: JournalExpectation): Promise<JournalEntry[]>;
    clear(): Promise<JournalCleared>;
    /** the journal as a HAR 1.2 log: save it as an artifact, open it in browser devtools */
    har(filter?: JournalFilter): Promise<Har>;
  };
  outbox: {
    list(filter?: OutboxFilter): Promise<OutboxMessage[]>;
    /** the newest two-factor code sent to this e-mail address, or null */
    lastTwoFactorCode(email: string): Promise<string | null>;
  };
  clock: {
    get(): Promise<Clock>;
    set(change: ClockChange): Promise<Clock>;
  };
  sandboxes: {
    /** every sandbox, of the instance reached and of its --peers; each names its `instance` */
    list(): Promise<SandboxInfo[]>;
    /** the same, with the peers that did not answer ("peer: why") */
    listAll(): Promise<{ sandboxes: SandboxInfo[]; unreachable: string[] }>;
    get(name: string): Promise<SandboxInfo>;
    /**
     * Makes sandbox `name` (idempotent: it answers the existing one; a different `scenario` than its active one is a
     * 409). Sent with the name as the key, so a balancer routes it to the instance that will serve it.
     */
    create(name: string, init?: { scenario?: ScenarioName }): Promise<SandboxInfo>;
    delete(name: string): Promise<SandboxDeleted>;
    /** deletes every sandbox of the instance reached but default (with `prefix`: those whose name starts with it) */
    deleteAll(filter?: { prefix?: string }): Promise<SandboxesDeleted>;
    /** resets every sandbox of the instance reached, default included (with `prefix`: those whose name starts with it) */
    resetAll(filter?: { prefix?: string }): Promise<SandboxesReset>;
  };
  sessions: {
    /** expires every session of the sandbox now: how many */
    expire(): Promise<number>;
  };
  notifications: {
    send(input: Who & { title: string; body?: string; kind?: string; url?: string }): Promise<NotificationCreated>;
  };
  users: {
    block(who: Who): Promise<UserBlocked>;
  };
  bindLinks: {
    create(input: Who & { singleUse?: boolean; ttlSeconds?: number }): Promise<BindLink>;
  };
  /** what the app did that the real portal answers differently (docs/findings.md) */
  findings: {
    list(filter?: FindingFilter): Promise<Finding[]>;
    clear(): Promise<FindingsCleared>;
    /** Throws an Error listing every finding of severity error (with `{ severity: 'warning' }`, warnings too). */
    assertNone(opts?: { severity?: Finding['severity'] }): Promise<void>;
  };
  /**
   * The data of the client's sandbox (docs/data.md), by collection, of the tenant `options.tenantId` (default: the
   * first tenant of the mock's fixtures); `data.tenant(id)` for another.
   */
  data: DataClient;
  /** any record of a tenant's data in this client's sandbox, typed by its collection's schema (docs/data.md) */
  records<K extends RecordCollectionName>(tenantId: string, collection: K): RecordsClient<RecordOf<K>>;
  /** the local CA certificate (PEM) of a server started with --https */
  caCertificate(): Promise<string>;
}

export function adminClient(options: AdminClientOptions): AdminClient {
  const base = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.sandbox) headers['x-mock-sandbox'] = options.sandbox;
  if (options.adminToken) headers.authorization = `Bearer ${options.adminToken}`;

  async function call<T>(method: string, path: string, query: Query = {}, body?: unknown): Promise<T> {
    return (await exchange<T>(method, path, query, body)).body;
  }

  /** A read about the client's sandbox: one that does not exist is the server's 404, never made here. */
  const inSandbox = call;

  async function exchange<T>(
    method: string,
    path: string,
    query: Query = {},
    body?: unknown,
  ): Promise<{ body: T; headers: Headers }> {
    const qs = new URLSearchParams();
    // the query names the sandbox too: it wins over a `sandbox` field inside a body (e.g. an imported snapshot)
    if (options.sandbox) qs.set('sandbox', options.sandbox);
    for (const [k, v] of Object.entries(query)) if (v !== undefined) qs.set(k, String(v));
    const url = `${base}/__admin${path}${qs.size ? `?${qs}` : ''}`;
    const res = await doFetch(url, {
      method,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    const type = res.headers.get('content-type') ?? '';
    const parsed: unknown = type.includes('json') && text ? JSON.parse(text) : text;
    if (!res.ok) throw new AdminError(res.status, parsed, `${method} /__admin${path}`);
    return { body: parsed as T, headers: res.headers };
  }

  /** The records API of one collection; the tenant is asked for at the first call (see `data`). */
  function recordsOf<R>(tenantOf: () => Promise<string>, collection: string): RecordsClient<R> {
    const path = async (id?: string) => {
      const base = `/data/${encodeURIComponent(await tenantOf())}/${encodeURIComponent(collection)}`;
      return id === undefined ? base : `${base}/${encodeURIComponent(id)}`;
    };
    return {
      list: async (filter: RecordFilter<R> = {}) => {
        const query = Object.fromEntries(Object.entries(filter).map(([k, v]) => [k, String(v)]));
        return inSandbox<{ total: number; records: R[] }>('GET', await path(), query);
      },
      get: async (id: string) => inSandbox<R>('GET', await path(id)),
      create: async (record: Partial<R> = {}) => call<Created<R>>('POST', await path(), {}, record),
      createMany: async (count: number, record: Partial<R> = {}) => {
        // the server would name its query parameter (query.count), which the caller never wrote
        if (!Number.isInteger(count) || count < 1 || count > maxCreateMany)
          throw new RangeError(
            `createMany(${count}): count (createMany's n) must be an integer from 1 to ${maxCreateMany}; one call is ` +
              'one all-or-nothing write, so make more by calling it again',
          );
        return call<Created<R>>('POST', await path(), { count }, record);
      },
      patch: async (id: string, fields: Partial<Omit<R, 'id'>>) => call<R>('PATCH', await path(id), {}, fields),
      remove: async (id: string) => call<{ deleted: string }>('DELETE', await path(id)),
    };
  }

  let firstTenant: Promise<string> | undefined;
  const defaultTenant = () => {
    // the fixtures are the mock's, whatever the sandbox: asked of default, which always exists, so that a create
    // in a sandbox that does not exist yet makes it (a write) instead of failing on this read
    const ofDefault = adminClient({ ...options, sandbox: undefined });
    firstTenant ??= ofDefault.fixtures().then(({ tenants }) => {
      if (!tenants[0]) throw new Error('portal-mock: the mock has no tenants');
      return tenants[0].id;
    });
    return firstTenant;
  };

  /**
   * Every collection by name: a property read makes that collection's client (the collection names are types
   * only here; the client loads nothing of the server), checked by the mock (404 naming the known ones).
   */
  function dataOf(tenantOf: () => Promise<string>): DataClient {
    const tenant = (tenantId: string) => dataOf(async () => tenantId);
    return new Proxy({} as DataClient, {
      get: (_target, name) =>
        name === 'tenant' ? tenant : typeof name === 'string' ? recordsOf(tenantOf, name) : undefined,
    });
  }

  const outboxList = (filter: OutboxFilter = {}) => inSandbox<OutboxMessage[]>('GET', '/outbox', filter);
  const findingList = (filter: FindingFilter = {}) => inSandbox<Finding[]>('GET', '/findings', filter);
  const journalList = (filter: JournalFilter = {}) => inSandbox<JournalEntry[]>('GET', '/requests', filter);
  const journalCount = async (filter: JournalMatch = {}) =>
    (await inSandbox<JournalCount>('GET', '/requests/count', filter)).count;

  async function journalAssert({ times, atLeast, ...filter }: JournalExpectation): Promise<JournalEntry[]> {
    const count = await journalCount(filter);
    const matched = count === 0 ? [] : await journalList({ ...filter, limit: Math.min(count, 100000) });
    const expected = times !== undefined ? `exactly ${times}` : `at least ${atLeast ?? 1}`;
    if (times !== undefined ? count === times : count >= (atLeast ?? 1)) return matched;
    // what came closest: the entries matching every field of the filter but one (the filter's own fields, whatever
    // the journal's filters are), else the latest entries
    const shown = new Set(matched.map((e) => e.id));
    const near: string[] = [];
    for (const field of Object.keys(filter) as Array<keyof JournalMatch>) {
      if (filter[field] === undefined) continue;
      const { [field]: _dropped, ...rest } = filter;
      for (const e of await journalList({ ...rest, limit: 10 })) {
        if (shown.has(e.id)) continue;
        shown.add(e.id);
        near.push(`${describeEntry(e)}  (all but ${String(field)})`);
      }
    }
    const latest = near.length ? [] : (await journalList({ limit: 5 })).map(describeEntry);
    const where = options.sandbox ? ` in sandbox ${options.sandbox}` : '';
    throw new Error(
      [
        `portal-mock: expected ${expected} request(s) matching ${JSON.stringify(filter)}${where}; ${count} matched`,
        ...matched.slice(0, 10).map(describeEntry),
        ...(near.length ? ['closest:', ...near.slice(0, 20)] : []),
        ...(near.length ? [] : latest.length ? ['the latest requests:', ...latest] : ['the journal is empty']),
      ].join('\n  '),
    );
  }

  return {
    options: { ...options } as Readonly<AdminClientOptions>,
    sandbox: (name: string) => adminClient({ ...options, sandbox: name }),
    sandboxCreate: (init: { scenario?: ScenarioName } = {}) =>
      call<SandboxInfo>('PUT', `/sandboxes/${encodeURIComponent(options.sandbox ?? 'default')}`, {}, init),
    health: () => call<Health>('GET', '/health'),
    fixtures: () => inSandbox<FixturesAnswer>('GET', '/fixtures'),
    scenarios: () => call<ScenarioSummary[]>('GET', '/scenarios'),
    scenario: {
      get: () => inSandbox<ActiveScenario>('GET', '/scenario'),
      set: (name: ScenarioName) => call<ActiveScenario>('PUT', '/scenario', {}, { name }),
      setInline: (scenario: ScenarioFile) => call<ActiveScenario>('PUT', '/scenario', {}, { scenario }),
    },
    scenarioDefinitions: {
      get: (name: ScenarioName) => call<ScenarioDefinition>('GET', `/scenarios/${encodeURIComponent(name)}`),
      put: (scenario: ScenarioFile) =>
        call<ScenarioSummary>('PUT', `/scenarios/${encodeURIComponent(scenario.name)}`, {}, scenario),
      delete: (name: string) => call<{ deleted: string }>('DELETE', `/scenarios/${encodeURIComponent(name)}`),
    },
    reset: (seed?: number) => call<SandboxInfo>('POST', '/reset', {}, seed === undefined ? {} : { seed }),
    capture: (opts: { as?: ScenarioName } = {}) =>
      call<ScenarioFile>('GET', `/sandboxes/${encodeURIComponent(options.sandbox ?? 'default')}/capture`, opts),
    state: {
      export: () => inSandbox<Snapshot>('GET', '/state'),
      import: (snapshot: Snapshot) => call<SandboxInfo>('PUT', '/state', {}, snapshot),
    },
    requests: {
      list: journalList,
      count: journalCount,
      assert: journalAssert,
      clear: () => call<JournalCleared>('DELETE', '/requests'),
      har: (filter: JournalFilter = {}) => inSandbox<Har>('GET', '/requests', { ...filter, format: 'har' }),
    },
    outbox: {
      list: outboxList,
      lastTwoFactorCode: async (email: string): Promise<string | null> =>
        (await outboxList({ kind: 'two-factor-code', to: email }))[0]?.code ?? null,
    },
    clock: {
      get: () => inSandbox<Clock>('GET', '/clock'),
      set: (change: ClockChange) => call<Clock>('PUT', '/clock', {}, change),
    },
    sandboxes: {
      list: () => call<SandboxInfo[]>('GET', '/sandboxes'),
      listAll: async (): Promise<{ sandboxes: SandboxInfo[]; unreachable: string[] }> => {
        const { body, headers } = await exchange<SandboxInfo[]>('GET', '/sandboxes');
        return { sandboxes: body, unreachable: headers.get('x-mock-unreachable-peers')?.split('; ') ?? [] };
      },
      get: (name: string) => call<SandboxInfo>('GET', `/sandboxes/${encodeURIComponent(name)}`),
      create: (name: string, init: { scenario?: ScenarioName } = {}) =>
        adminClient({ ...options, sandbox: name }).sandboxCreate(init),
      delete: (name: string) => call<SandboxDeleted>('DELETE', `/sandboxes/${encodeURIComponent(name)}`),
      deleteAll: (filter: { prefix?: string } = {}) => call<SandboxesDeleted>('DELETE', '/sandboxes', filter),
      resetAll: (filter: { prefix?: string } = {}) => call<SandboxesReset>('POST', '/sandboxes/reset', filter, {}),
    },
    sessions: {
      expire: async () => (await call<SessionsExpired>('POST', '/sessions/expire', {}, {})).expired,
    },
    notifications: {
      send: (input: Who & { title: string; body?: string; kind?: string; url?: string }) =>
        call<NotificationCreated>('POST', '/notifications', {}, input),
    },
    users: {
      block: (who: Who) => call<UserBlocked>('POST', '/users/block', {}, who),
    },
    bindLinks: {
      create: (input: Who & { singleUse?: boolean; ttlSeconds?: number }) =>
        call<BindLink>('POST', '/bind-links', {}, input),
    },
    findings: {
      list: findingList,
      clear: () => call<FindingsCleared>('DELETE', '/findings'),
      assertNone: async (opts: { severity?: Finding['severity'] } = {}): Promise<void> => {
        const found = (await findingList()).filter((f) => opts.severity === 'warning' || f.severity === 'error');
        if (found.length === 0) return;
        throw new Error(
          `portal-mock: ${found.length} finding(s) the real portal would answer differently:\n${found
            .map((f) => `  ${f.code} (${f.severity}) #${f.requestId} ${f.method} ${f.path}: ${f.message} ${f.docs}`)
            .join('\n')}`,
        );
      },
    },
    data: dataOf(async () => options.tenantId ?? (await defaultTenant())),
    records: <K extends RecordCollectionName>(tenantId: string, collection: K) =>
      recordsOf<RecordOf<K>>(async () => tenantId, collection),
    caCertificate: () => call<string>('GET', '/ca.pem'),
  };
}

/** One journal entry on one line, for an assertion's message. */
const describeEntry = (e: JournalEntry) =>
  `#${e.id} ${e.method} ${e.path} ${e.operationId ?? '(no operation)'} -> ${e.status}${e.stubbed ? ' (scenario)' : ''}`;
