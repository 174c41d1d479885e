import { Type, type Static } from '@sinclair/typebox';

export const JournalEntry = Type.Object({
  id: Type.Integer({ description: 'increasing number within the sandbox' }),
  at: Type.String({ format: 'date-time', description: 'sandbox clock time when the request arrived' }),
  method: Type.String(),
  url: Type.String({ description: 'as the client sent it, prefixes included' }),
  path: Type.String({ description: 'the path without query and prefixes' }),
  operationId: Type.Union([Type.String(), Type.Null()]),
  status: Type.Integer(),
  durationMs: Type.Number(),
  scenario: Type.Union([Type.String(), Type.Null()]),
  stubbed: Type.Boolean({ description: 'answered by a scenario stub or fault' }),
  requestHeaders: Type.Record(Type.String(), Type.String()),
  requestBody: Type.Optional(Type.Unknown()),
  responseBody: Type.Optional(Type.Unknown()),
}, { $id: 'JournalEntry' });
export type JournalEntry = Static<typeof JournalEntry>;

export type JournalFilter = {
  operationId?: string | undefined;
  method?: string | undefined;
  path?: string | undefined;
  status?: number | undefined;
  since?: string | undefined;
  limit?: number | undefined;
};

/** The parts of an entry that are costly to build (redacted copies): made when the journal is read, once. */
export type JournalDetails = () => Pick<JournalEntry, 'requestHeaders' | 'responseBody'>;
type Stored = JournalEntry & { details?: JournalDetails | undefined };

/** The request journal of a sandbox: bounded, oldest entries dropped first. */
export class Journal {
  readonly limit: number;
  private entries: Stored[] = [];
  private nextId = 1;
  constructor(limit: number) {
    this.limit = limit;
  }
  get enabled(): boolean {
    return this.limit > 0;
  }
  /** Adds an entry; `details` (headers and response body, redacted) are computed only if the entry is ever read. */
  add(entry: Omit<JournalEntry, 'id'>, details?: JournalDetails): void {
    if (!this.enabled) return;
    this.entries.push({ id: this.nextId++, ...entry, details });
    // dropping in batches keeps adding O(1) amortized; the journal never shows more than `limit`
    if (this.entries.length > this.limit + Math.max(1, this.limit >> 3)) this.entries.splice(0, this.entries.length - this.limit);
  }
  private complete(e: Stored): JournalEntry {
    if (e.details) {
      const { requestHeaders, responseBody } = e.details();
      e.requestHeaders = requestHeaders;
      if (responseBody !== undefined) e.responseBody = responseBody;
      e.details = undefined;
    }
    const { details: _details, ...entry } = e;
    return entry;
  }
  private kept(): Stored[] {
    if (this.entries.length > this.limit) this.entries.splice(0, this.entries.length - this.limit);
    return this.entries;
  }
  private matching(f: JournalFilter): JournalEntry[] {
    return this.kept().filter((e) =>
      (f.operationId === undefined || e.operationId === f.operationId) &&
      (f.method === undefined || e.method === f.method.toUpperCase()) &&
      (f.path === undefined || e.path === f.path || e.path.startsWith(f.path.endsWith('*') ? f.path.slice(0, -1) : `${f.path}\u0000`)) &&
      (f.status === undefined || e.status === f.status) &&
      (f.since === undefined || e.at >= f.since));
  }
  /** Newest first, at most `limit`. */
  list(f: JournalFilter = {}): JournalEntry[] {
    return this.matching(f).reverse().slice(0, f.limit ?? 100).map((e) => this.complete(e));
  }
  count(f: JournalFilter = {}): number {
    return this.matching(f).length;
  }
  size(): number {
    return this.kept().length;
  }
  clear(): void {
    this.entries = [];
  }
}

const secretHeaders = new Set([
  'x-service-session-code', 'authorization', 'x-service-client-secret', 'x-mock-admin-token', 'cookie',
  'set-cookie', 'proxy-authorization', 'x-api-key', 'x-auth-token',
]);
const secretFields = new Set([
  'password', 'secret', 'sessionSecret', 'code', 'token', 'clientSecret', 'client_secret', 'accessToken', 'value',
  'sessionCode', 'refreshToken', 'access_token', 'refresh_token', 'apiKey', 'api_key', 'apiSecret', 'newPassword', 'oldPassword',
  'currentPassword', 'passwordConfirmation', 'idToken', 'id_token', 'cookie',
]);

/** Headers as kept in the journal: secrets replaced, so a journal can be attached to a bug report. */
export function redactHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) continue;
    out[k] = secretHeaders.has(k.toLowerCase()) ? '[redacted]' : Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

/** A copy of a JSON value with secret fields replaced (depth-limited). */
export function redactBody(value: unknown, depth = 0): unknown {
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.slice(0, 50).map((v) => redactBody(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = secretFields.has(k) ? '[redacted]' : redactBody(v, depth + 1);
  return out;
}
