// A typed client of the admin contract (/__admin) for QA code: `import { adminClient } from 'portal-mock/admin'`.
// Types come from the server's own TypeBox schemas (type-only imports: nothing of the server is loaded at run time);
// it uses the global fetch (Node.js ≥ 18, browsers).
import type {
  ActiveScenario,
  BindLink,
  ClockAnswer,
  ClockState,
  Finding,
  FindingCode,
  FindingFilter,
  FixturesAnswer,
  Har,
  Health,
  JournalEntry,
  JournalFilter,
  OutboxFilter,
  OutboxMessage,
  SandboxInfo,
  Snapshot,
  ScenarioSummary,
} from '../schemas/control.js';

export type { JournalEntry, OutboxMessage, ClockState, FixturesAnswer, Har, Finding, FindingCode };
export type {
  SandboxInfo,
  Snapshot,
  ActiveScenario,
  BindLink,
  FindingFilter,
  Health,
  JournalFilter,
  OutboxFilter,
  ScenarioSummary,
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
  /** another fetch (default: the global one) */
  fetch?: typeof fetch;
  /**
   * The server's admin reads never make a sandbox (404 SANDBOX_NOT_FOUND). A client given a `sandbox` makes it
   * (PUT /__admin/sandboxes/NAME) when a read finds it missing, and reads again (default true); false: the read
   * throws the AdminError 404, e.g. to check that a sandbox exists.
   */
  createSandbox?: boolean;
};

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

export type AdminClient = ReturnType<typeof adminClient>;

export function adminClient(options: AdminClientOptions) {
  const base = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.sandbox) headers['x-mock-sandbox'] = options.sandbox;
  if (options.adminToken) headers.authorization = `Bearer ${options.adminToken}`;

  async function call<T>(method: string, path: string, query: Query = {}, body?: unknown): Promise<T> {
    return (await exchange<T>(method, path, query, body)).body;
  }

  /** A call about the client's sandbox: a read that finds it missing makes it explicitly and is made again. */
  async function inSandbox<T>(method: string, path: string, query: Query = {}, body?: unknown): Promise<T> {
    try {
      return await call<T>(method, path, query, body);
    } catch (err) {
      const name = options.sandbox;
      const code = err instanceof AdminError ? (err.body as { code?: unknown } | null)?.code : undefined;
      if (!name || options.createSandbox === false || code !== 'SANDBOX_NOT_FOUND') throw err;
      await call<SandboxInfo>('PUT', `/sandboxes/${encodeURIComponent(name)}`, {}, {});
      return call<T>(method, path, query, body);
    }
  }

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

  const outboxList = (filter: OutboxFilter = {}) => inSandbox<OutboxMessage[]>('GET', '/outbox', filter);
  const findingList = (filter: FindingFilter = {}) => inSandbox<Finding[]>('GET', '/findings', filter);

  return {
    options: { ...options } as Readonly<AdminClientOptions>,
    /** The same client for another sandbox (made when a read finds it missing: see `createSandbox`). */
    sandbox: (name: string) => adminClient({ ...options, sandbox: name }),
    /** makes this client's sandbox (PUT /__admin/sandboxes/NAME), or answers it when it exists */
    sandboxCreate: (init: { scenario?: string } = {}) =>
      call<SandboxInfo>('PUT', `/sandboxes/${encodeURIComponent(options.sandbox ?? 'default')}`, {}, init),
    health: () => call<Health>('GET', '/health'),
    fixtures: () => inSandbox<FixturesAnswer>('GET', '/fixtures'),
    scenarios: () => call<ScenarioSummary[]>('GET', '/scenarios'),
    scenario: {
      get: () => inSandbox<ActiveScenario>('GET', '/scenario'),
      set: (name: string) => call<ActiveScenario>('PUT', '/scenario', {}, { name }),
    },
    reset: (seed?: number) => call<SandboxInfo>('POST', '/reset', {}, seed === undefined ? {} : { seed }),
    state: {
      export: () => inSandbox<Snapshot>('GET', '/state'),
      import: (snapshot: Snapshot) => call<SandboxInfo>('PUT', '/state', {}, snapshot),
    },
    requests: {
      list: (filter: JournalFilter = {}) => inSandbox<JournalEntry[]>('GET', '/requests', filter),
      count: async (filter: Omit<JournalFilter, 'limit'> = {}) =>
        (await inSandbox<{ count: number }>('GET', '/requests/count', filter)).count,
      clear: () => call<{ cleared: boolean }>('DELETE', '/requests'),
      /** the journal as a HAR 1.2 log: save it as an artifact, open it in browser devtools */
      har: (filter: JournalFilter = {}) => inSandbox<Har>('GET', '/requests', { ...filter, format: 'har' }),
    },
    outbox: {
      list: outboxList,
      /** the newest two-factor code sent to this e-mail address, or null */
      lastTwoFactorCode: async (email: string): Promise<string | null> =>
        (await outboxList({ kind: 'two-factor-code', to: email }))[0]?.code ?? null,
    },
    clock: {
      get: () => inSandbox<Clock>('GET', '/clock'),
      set: (change: ClockChange) => call<Clock>('PUT', '/clock', {}, change),
    },
    sandboxes: {
      /** every sandbox, of the instance reached and of its --peers; each names its `instance` */
      list: () => call<SandboxInfo[]>('GET', '/sandboxes'),
      /** the same, with the peers that did not answer ("peer: why") */
      listAll: async (): Promise<{ sandboxes: SandboxInfo[]; unreachable: string[] }> => {
        const { body, headers } = await exchange<SandboxInfo[]>('GET', '/sandboxes');
        return { sandboxes: body, unreachable: headers.get('x-mock-unreachable-peers')?.split('; ') ?? [] };
      },
      get: (name: string) => call<SandboxInfo>('GET', `/sandboxes/${encodeURIComponent(name)}`),
      /**
       * Makes sandbox `name` (idempotent: it answers the existing one; a different `scenario` than its active one is a
       * 409). Sent with the name as the key, so a balancer routes it to the instance that will serve it.
       */
      create: (name: string, init: { scenario?: string } = {}) =>
        adminClient({ ...options, sandbox: name }).sandboxCreate(init),
      delete: (name: string) => call<{ deleted: string }>('DELETE', `/sandboxes/${encodeURIComponent(name)}`),
      /** deletes every sandbox of the instance reached but default (with `prefix`: those whose name starts with it) */
      deleteAll: (filter: { prefix?: string } = {}) =>
        call<{ instance: string; deleted: string[] }>('DELETE', '/sandboxes', filter),
    },
    sessions: {
      expire: async () => (await call<{ expired: number }>('POST', '/sessions/expire', {}, {})).expired,
    },
    notifications: {
      send: (input: Who & { title: string; body?: string; kind?: string; url?: string }) =>
        call<{ id: string; userId: string; tenantId: string; pushes: number }>('POST', '/notifications', {}, input),
    },
    users: {
      block: (who: Who) => call<{ userId: string; state: string }>('POST', '/users/block', {}, who),
    },
    bindLinks: {
      create: (input: Who & { singleUse?: boolean; ttlSeconds?: number }) =>
        call<BindLink>('POST', '/bind-links', {}, input),
    },
    /** what the app did that the real portal answers differently (docs/findings.md) */
    findings: {
      list: findingList,
      clear: () => call<{ cleared: number }>('DELETE', '/findings'),
      /** Throws an Error listing every finding of severity error (with `{ severity: 'warning' }`, warnings too). */
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
    /** the local CA certificate (PEM) of a server started with --https */
    caCertificate: () => call<string>('GET', '/ca.pem'),
  };
}
