import { randomUUID } from 'node:crypto';
import type { TenantRecord, UserRecord } from '../src/schemas/records.js';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import type { AppOptions } from '../src/app.js';

export const tenants = {
  romashka: '7d3f9a2e-5b1c-4e8a-9f60-2c4b8d1e0a01',
  northwind: '7d3f9a2e-5b1c-4e8a-9f60-2c4b8d1e0a02',
} as const;

/** Demo accounts of fixtures/tenants.json, by role. */
export const accounts = {
  admin: {
    email: 'ivan.petrov@romashka.test',
    password: 'demo1234',
    userId: 'a1000000-0000-4000-8000-000000000001',
    tenantId: tenants.romashka,
  },
  twoFactor: {
    email: 'olga.smirnova@romashka.test',
    password: 'demo1234',
    userId: 'a1000000-0000-4000-8000-000000000002',
    tenantId: tenants.romashka,
  },
  noRights: {
    email: 'petr.ivanov@romashka.test',
    password: 'demo1234',
    userId: 'a1000000-0000-4000-8000-000000000003',
    tenantId: tenants.romashka,
  },
  nwAdmin: {
    email: 'alice.walker@northwind.test',
    password: 'demo1234',
    userId: 'b2000000-0000-4000-8000-000000000001',
    tenantId: tenants.northwind,
  },
  nwTwoFactor: {
    email: 'bob.stone@northwind.test',
    password: 'demo1234',
    userId: 'b2000000-0000-4000-8000-000000000002',
    tenantId: tenants.northwind,
  },
  nwNoRights: {
    email: 'carol.reed@northwind.test',
    password: 'demo1234',
    userId: 'b2000000-0000-4000-8000-000000000003',
    tenantId: tenants.northwind,
  },
} as const;
export type Account = { email: string; password: string; userId: string; tenantId: string };

type Teardown = { teardown(fn: () => unknown): void };

/** A fresh app per test, closed at teardown. Frozen clock by default so answers are reproducible. */
export async function build(t: Teardown, options: AppOptions = {}): Promise<FastifyInstance> {
  // loaded on first use: a file that takes only the accounts from here (one starting the built server) does not pay
  // the 0.8 s of CPU that loading src/ through tsx costs
  const { buildApp } = await import('../src/app.js');
  const app = await buildApp({ now: '2026-03-02T09:00:00.000Z', ...options });
  t.teardown(() => app.close());
  return app;
}

/** A test's own sandbox in an app its file shares: `inject` sends each request there. */
export type InSandbox = {
  app: FastifyInstance;
  /** the sandbox's name: for app.sandboxes.get(sandbox), signIn(app, account, { sandbox }), ?sandbox= */
  sandbox: string;
  /** app.inject with x-mock-sandbox set, unless the request names a sandbox itself (header or /sandbox/NAME/) */
  inject: (request: InjectOptions | string) => Promise<LightMyRequestResponse>;
};

/**
 * One app for the tests of a file, each test in a sandbox of its own. A sandbox isolates what a test touches (data,
 * clock, sessions, journal, outbox, findings), and an app costs 0.25-0.65 s of CPU to build, so a file of 14 tests
 * built 14 apps for what 14 sandboxes do. A test needing other options (flags, --data, a seed) builds its own.
 * @example const ownSandbox = sharedApp(t); t.test('x', async (t) => { const { app, sandbox, inject } = await ownSandbox(); })
 */
export function sharedApp(file: Teardown, options: AppOptions = {}): () => Promise<InSandbox> {
  let app: Promise<FastifyInstance> | undefined;
  let count = 0;
  return async () => {
    app ??= build(file, options);
    const shared = await app;
    const sandbox = `test-${++count}`;
    shared.sandboxes.get(sandbox); // made now, as `default` is there before a test's first request
    const inject = (request: InjectOptions | string) => {
      const r = typeof request === 'string' ? { url: request } : request;
      const named = r.headers?.['x-mock-sandbox'] !== undefined || /^\/sandbox\//.test(String(r.url ?? ''));
      return shared.inject(named ? r : { ...r, headers: { ...r.headers, 'x-mock-sandbox': sandbox } });
    };
    return { app: shared, sandbox, inject };
  };
}

export type Session = {
  tenantId: string;
  userId: string;
  deviceId: string;
  sessionId: string;
  sessionSecret: string;
  /** the four session headers (plus x-mock-sandbox when signed in to a sandbox) */
  headers: Record<string, string>;
};

export const json = <T = any>(res: LightMyRequestResponse): T => res.json() as T;

/** The whole dance: (two-factor code from the outbox) → manual bind → auth. */
export async function signIn(
  app: FastifyInstance,
  account: Account = accounts.admin,
  opts: { sandbox?: string; deviceId?: string } = {},
): Promise<Session> {
  const sandboxHeaders: Record<string, string> = opts.sandbox ? { 'x-mock-sandbox': opts.sandbox } : {};
  const deviceId = opts.deviceId ?? `test-device-${randomUUID()}`;
  const creds = { email: account.email, password: account.password };
  const twoFactor = await app.inject({
    method: 'POST',
    url: '/mobile/request-two-factor',
    headers: sandboxHeaders,
    payload: creds,
  });
  if (twoFactor.statusCode !== 200) throw new Error(`request-two-factor: ${twoFactor.statusCode} ${twoFactor.body}`);
  let code: string | undefined;
  if (json(twoFactor).codeRequired) {
    code = app.sandboxes
      .get(opts.sandbox ?? 'default')
      .outbox.list()
      .filter((m) => m.to === account.email && m.kind === 'two-factor-code')
      .at(-1)?.code;
  }
  const bind = await app.inject({
    method: 'POST',
    url: '/mobile/manual-bind',
    headers: sandboxHeaders,
    payload: { ...creds, code, device: { id: deviceId, platform: 'ios' } },
  });
  if (bind.statusCode !== 200) throw new Error(`manual-bind: ${bind.statusCode} ${bind.body}`);
  const { accountSecret } = json(bind);
  const auth = await app.inject({
    method: 'POST',
    url: '/mobile/auth',
    headers: { ...sandboxHeaders, 'x-service-tenant-id': accountSecret.tenantId },
    payload: { secret: accountSecret.secret, userId: accountSecret.userId, deviceId: accountSecret.deviceId },
  });
  if (auth.statusCode !== 200) throw new Error(`auth: ${auth.statusCode} ${auth.body}`);
  const { sessionId, sessionSecret } = json(auth);
  return {
    tenantId: accountSecret.tenantId,
    userId: accountSecret.userId,
    deviceId,
    sessionId,
    sessionSecret,
    headers: {
      ...sandboxHeaders,
      'x-service-tenant-id': accountSecret.tenantId,
      'x-service-device-id': deviceId,
      'x-service-session-id': sessionId,
      'x-service-session-code': sessionSecret,
    },
  };
}

/** Asserts the one error body shape and returns it. */
export function expectError(t: { equal: Function; match: Function }, res: LightMyRequestResponse, status: number) {
  t.equal(res.statusCode, status, `status ${status}: ${res.body.slice(0, 300)}`);
  const body = json(res);
  t.match(body, { statusCode: status, error: String, code: String, message: String });
  return body as {
    statusCode: number;
    code: string;
    message: string;
    details?: Array<{ field: string; message: string }>;
  };
}

/** Changes a user through the store's write path (records are frozen), as a test's way to set up a state. */
export function setUser(
  app: FastifyInstance,
  userId: string,
  patch: Partial<UserRecord>,
  sandbox = 'default',
): UserRecord {
  const { store } = app.sandboxes.get(sandbox);
  for (const tenant of store.tenants()) {
    const user = tenant.users.find((u) => u.id === userId);
    if (user) return store.update(tenant, 'users', user, patch);
  }
  throw new Error(`no user ${userId} in sandbox ${sandbox}`);
}

/** Changes a tenant's options (the tenant record has no write operation in the API: the test imports changed data). */
export function setTenantOptions(
  app: FastifyInstance,
  tenantId: string,
  options: Partial<TenantRecord['options']>,
  sandbox = 'default',
): void {
  const target = app.sandboxes.get(sandbox);
  const data = target.store.toData();
  const tenant = data.tenants[tenantId]!;
  tenant.tenant = { ...tenant.tenant, options: { ...tenant.tenant.options, ...options } };
  app.sandboxes.replaceData(target, data);
}

/**
 * Calls over a real socket to a listening mock: JSON in, and the answer's JSON (or text) out with its status.
 * For tests of the control plane that go through HTTP as a QA script does.
 */
export function httpCaller(base: string) {
  return async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(base + path, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    // any: an answer of any route; each test reads the fields it knows
    const json: any = /^[[{]/.test(text) ? JSON.parse(text) : text;
    return { status: res.status, body: json };
  };
}
