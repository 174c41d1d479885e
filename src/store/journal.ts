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

/** The texts of a request the journal keeps, before packing. */
export type JournalTexts = {
  /** as the client sent it, prefixes included */
  url: string;
  /** without the prefixes */
  routedUrl: string;
  /** the request's headers as Node received them (name, value, name, value …) */
  rawHeaders: string[];
  /** the request body, redacted, as JSON text */
  requestBody?: string | undefined;
  /** the answer's text when it was JSON of at most 8 KiB */
  response?: string | undefined;
};

/**
 * What one request leaves in the journal, kept for the last `limit` requests. Every object kept outlives the young
 * generation, and the garbage collector pays for each one (the first journal, an entry object, a closure and the
 * live header strings per request, cost a third of the light read's throughput). So a record holds a few numbers,
 * strings shared by all requests (method, operation, scenario) and one buffer: the request's texts packed as UTF-8
 * bytes outside the JavaScript heap. It is unpacked, completed and redacted only when the journal is read.
 */
export type JournalRecord = {
  atMs: number;
  method: string;
  operationId: string | null;
  status: number;
  durationMs: number;
  scenario: string | null;
  stubbed: boolean;
  packed: Buffer;
};

// NUL cannot occur in a URL, a header or JSON text (JSON escapes it), so it separates the packed texts
const sep = '\u0000';
export function packTexts(t: JournalTexts): Buffer {
  return Buffer.from(`${t.url}${sep}${t.routedUrl === t.url ? '' : t.routedUrl}${sep}${t.rawHeaders.join('\n')}${sep}${t.requestBody ?? ''}${sep}${t.response ?? ''}`, 'utf8');
}
type Unpacked = { url: string; path: string; rawHeaders: string[]; requestBody: string; response: string };
function unpack(packed: Buffer): Unpacked {
  const [url = '', routed = '', headers = '', requestBody = '', response = ''] = packed.toString('utf8').split(sep);
  const routedUrl = routed || url;
  const query = routedUrl.indexOf('?');
  return { url, path: query < 0 ? routedUrl : routedUrl.slice(0, query), rawHeaders: headers === '' ? [] : headers.split('\n'), requestBody, response };
}
type Stored = JournalRecord & { id: number; unpacked?: Unpacked; entry?: JournalEntry };
const texts = (e: Stored): Unpacked => (e.unpacked ??= unpack(e.packed));

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
  add(record: JournalRecord): void {
    if (!this.enabled) return;
    const stored = record as Stored;
    stored.id = this.nextId++;
    this.entries.push(stored);
    // dropping in batches keeps adding O(1) amortized; the journal never shows more than `limit`
    if (this.entries.length > this.limit + Math.max(1, this.limit >> 3)) this.entries.splice(0, this.entries.length - this.limit);
  }
  private complete(e: Stored): JournalEntry {
    if (!e.entry) {
      const t = texts(e);
      const parse = (text: string): unknown => { try { return JSON.parse(text); } catch { return text; } };
      const headers: Record<string, string> = {};
      for (let i = 0; i + 1 < t.rawHeaders.length; i += 2) {
        const name = t.rawHeaders[i]!.toLowerCase();
        headers[name] = headers[name] === undefined ? t.rawHeaders[i + 1]! : `${headers[name]}, ${t.rawHeaders[i + 1]!}`;
      }
      e.entry = {
        id: e.id, at: new Date(e.atMs).toISOString(), method: e.method, url: t.url, path: t.path, operationId: e.operationId,
        status: e.status, durationMs: e.durationMs, scenario: e.scenario, stubbed: e.stubbed, requestHeaders: redactHeaders(headers),
        ...(t.requestBody !== '' ? { requestBody: parse(t.requestBody) } : {}),
        ...(t.response !== '' ? { responseBody: redactBody(parse(t.response)) } : {}),
      };
    }
    return e.entry;
  }
  private kept(): Stored[] {
    if (this.entries.length > this.limit) this.entries.splice(0, this.entries.length - this.limit);
    return this.entries;
  }
  private matching(f: JournalFilter): Stored[] {
    const sinceMs = f.since === undefined ? undefined : Date.parse(f.since);
    return this.kept().filter((e) =>
      (f.operationId === undefined || e.operationId === f.operationId) &&
      (f.method === undefined || e.method === f.method.toUpperCase()) &&
      (f.path === undefined || texts(e).path === f.path || texts(e).path.startsWith(f.path.endsWith('*') ? f.path.slice(0, -1) : `${f.path}\u0000`)) &&
      (f.status === undefined || e.status === f.status) &&
      (sinceMs === undefined || e.atMs >= sinceMs));
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
