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

/** The numbers and shared strings of a request the journal keeps (not retained: copied into the journal's arrays). */
export type JournalFacts = {
  atMs: number;
  method: string;
  /** a constant of the route, shared by all its requests */
  operationId: string | null;
  status: number;
  durationMs: number;
  /** a constant of the scenario, shared by all its requests */
  scenario: string | null;
  stubbed: boolean;
};

/** The texts of a request the journal keeps (not retained: copied as UTF-8 bytes into the journal's ring). */
export type JournalTexts = {
  /** as the client sent it, prefixes included */
  url: string;
  /** without the prefixes */
  routedUrl: string;
  /** the request's headers as Node received them (name, value, name, value …) */
  rawHeaders: string[];
  /** the request body, redacted, as JSON text */
  requestBody?: string | undefined;
  /** the answer's JSON text when it was at most 8 KiB (a Buffer may be reused by the caller: its bytes are copied) */
  response?: string | Buffer | undefined;
};

/** A Buffer with Node's undeclared `utf8Write`: writes whole characters only, at most `maxLength` bytes, returns the bytes written. */
type Ring = Buffer & { utf8Write(text: string, offset: number, maxLength: number): number };

const initialRingBytes = 64 * 1024;
// NUL cannot occur in a URL, a header or JSON text (JSON escapes it), so it ends each text of a record
const sep = 0;
// A text surely fitted when utf8Write wrote fewer than maxLength - 3 bytes (a character has at most 4): so a record
// fits for sure in its exact size plus these spare bytes
const slack = 3;

type Unpacked = { url: string; path: string; rawHeaders: string[]; requestBody: string; response: string };

function filled<T>(length: number, value: T): T[] {
  const out: T[] = [];
  for (let i = 0; i < length; i++) out.push(value);
  return out;
}

/**
 * The request journal of a sandbox: the last `limit` requests, oldest dropped first.
 *
 * Why it is laid out like this: anything a request leaves in the journal outlives the young generation, is promoted
 * to old space and paid for by major garbage collections (an object and a Buffer per request cost about a third of
 * a light read's throughput, mostly in concurrent marking and sweeping). So adding a record allocates nothing that
 * outlives the request: its numbers go into typed arrays and its shared strings (method, operation, scenario:
 * constants) into plain arrays, all of capacity `limit`, indexed by `seq % limit` and allocated on the first add
 * (a sandbox that never sees a request stays cheap); its texts are written as UTF-8 into one byte ring, records
 * contiguous, each text followed by NUL. The ring grows (doubles, copying the live records in order) only when the
 * next record would overwrite one of the last `limit`, so growth is rare. An entry is decoded, completed and
 * redacted only when the journal is read.
 */
export class Journal {
  readonly limit: number;
  /** sequence number of the next record; its id is seq + 1 (ids go on after clear) */
  private nextSeq = 0;
  /** how many of the newest records are kept (≤ limit) */
  private kept = 0;
  /** where the newest record's bytes end */
  private head = 0;
  private ring: Ring = Buffer.alloc(0) as Ring;
  // per record, at seq % limit (offsets as doubles: a big limit with big bodies could pass 4 GiB of ring)
  private offset = new Float64Array(0);
  private bytes = new Uint32Array(0);
  private atMs = new Float64Array(0);
  private durationMs = new Float64Array(0);
  private status = new Int32Array(0);
  private stubbed = new Uint8Array(0);
  private method: string[] = [];
  private operationId: (string | null)[] = [];
  private scenario: (string | null)[] = [];

  constructor(limit: number) {
    this.limit = limit;
  }
  get enabled(): boolean {
    return this.limit > 0;
  }

  add(facts: JournalFacts, texts: JournalTexts): void {
    if (!this.enabled) return;
    if (this.ring.length === 0) this.allocate();
    const limit = this.limit;
    const seq = this.nextSeq;
    const slot = seq % limit;
    // the records that must survive this one: the newest limit - 1 (this one takes the slot of the oldest)
    const keep = this.kept < limit ? this.kept : limit - 1;
    const routed = texts.routedUrl === texts.url ? '' : texts.routedUrl;
    const headers = texts.rawHeaders.join('\n');
    const body = texts.requestBody ?? '';
    const response = texts.response ?? '';
    // straight after the newest record, up to the ring's end or to the oldest live record; else, when the live
    // records do not wrap, from the ring's start up to the oldest; else grow
    let at = 0;
    let end = this.ring.length;
    let oldest = 0;
    if (keep > 0) {
      oldest = this.offset[(seq - keep) % limit]!;
      at = this.head;
      if (oldest >= at) end = oldest;
    }
    let stop = this.write(at, end, texts.url, routed, headers, body, response);
    if (stop < 0 && keep > 0 && oldest < at) {
      at = 0;
      stop = this.write(0, oldest, texts.url, routed, headers, body, response);
    }
    if (stop < 0) {
      const need = Buffer.byteLength(texts.url) + Buffer.byteLength(routed) + Buffer.byteLength(headers) + Buffer.byteLength(body) +
        (typeof response === 'string' ? Buffer.byteLength(response) : response.length) + 5 + slack;
      at = this.grow(need, keep, seq);
      stop = this.write(at, this.ring.length, texts.url, routed, headers, body, response);
    }
    this.offset[slot] = at;
    this.bytes[slot] = stop - at;
    this.head = stop;
    this.atMs[slot] = facts.atMs;
    this.durationMs[slot] = facts.durationMs;
    this.status[slot] = facts.status;
    this.stubbed[slot] = facts.stubbed ? 1 : 0;
    this.method[slot] = facts.method;
    this.operationId[slot] = facts.operationId;
    this.scenario[slot] = facts.scenario;
    this.nextSeq = seq + 1;
    if (this.kept < limit) this.kept++;
  }

  private allocate(): void {
    const n = this.limit;
    this.ring = Buffer.allocUnsafe(initialRingBytes) as Ring;
    this.offset = new Float64Array(n);
    this.bytes = new Uint32Array(n);
    this.atMs = new Float64Array(n);
    this.durationMs = new Float64Array(n);
    this.status = new Int32Array(n);
    this.stubbed = new Uint8Array(n);
    this.method = filled(n, '');
    this.operationId = filled<string | null>(n, null);
    this.scenario = filled<string | null>(n, null);
  }

  /** Writes the texts, each followed by NUL, into [at, end); where they end, or -1 when they may not have fitted. */
  private write(at: number, end: number, url: string, routed: string, headers: string, body: string, response: string | Buffer): number {
    // one write for the four request texts: each call into Node's encoder costs more than joining them first
    let p = this.text(`${url}\u0000${routed}\u0000${headers}\u0000${body}`, at, end);
    if (p < 0) return -1;
    if (typeof response === 'string') return this.text(response, p, end);
    if (end - p < response.length + 1) return -1;
    response.copy(this.ring, p);
    p += response.length;
    this.ring[p] = sep;
    return p + 1;
  }
  private text(s: string, at: number, end: number): number {
    const room = end - at;
    if (room <= slack) return -1;
    const n = s.length === 0 ? 0 : this.ring.utf8Write(s, at, room);
    if (n >= room - slack) return -1;
    this.ring[at + n] = sep;
    return at + n + 1;
  }

  /** A ring at least twice as big, with room for `need` more bytes, holding the `keep` newest records in order from 0; returns where they end. */
  private grow(need: number, keep: number, seq: number): number {
    const limit = this.limit;
    let live = 0;
    for (let s = seq - keep; s < seq; s++) live += this.bytes[s % limit]!;
    let size = this.ring.length * 2;
    while (size < live + need) size *= 2;
    const ring = Buffer.allocUnsafe(size) as Ring;
    let p = 0;
    for (let s = seq - keep; s < seq; s++) {
      const slot = s % limit;
      const from = this.offset[slot]!;
      this.ring.copy(ring, p, from, from + this.bytes[slot]!);
      this.offset[slot] = p;
      p += this.bytes[slot]!;
    }
    this.ring = ring;
    this.head = p;
    return p;
  }

  private unpack(slot: number): Unpacked {
    const at = this.offset[slot]!;
    // without the last NUL; the answer is the last text, so it is all that follows the fourth NUL
    const s = this.ring.toString('utf8', at, at + this.bytes[slot]! - 1);
    const a = s.indexOf('\u0000');
    const b = s.indexOf('\u0000', a + 1);
    const c = s.indexOf('\u0000', b + 1);
    const d = s.indexOf('\u0000', c + 1);
    const url = s.slice(0, a);
    const routedUrl = b > a + 1 ? s.slice(a + 1, b) : url;
    const headers = s.slice(b + 1, c);
    const query = routedUrl.indexOf('?');
    return {
      url, path: query < 0 ? routedUrl : routedUrl.slice(0, query), rawHeaders: headers === '' ? [] : headers.split('\n'),
      requestBody: s.slice(c + 1, d), response: s.slice(d + 1),
    };
  }
  /** The path alone, for the path filter: decodes only the two URLs. */
  private path(slot: number): string {
    const at = this.offset[slot]!;
    const a = this.ring.indexOf(sep, at);
    const b = this.ring.indexOf(sep, a + 1);
    const routedUrl = b > a + 1 ? this.ring.toString('utf8', a + 1, b) : this.ring.toString('utf8', at, a);
    const query = routedUrl.indexOf('?');
    return query < 0 ? routedUrl : routedUrl.slice(0, query);
  }

  private complete(seq: number): JournalEntry {
    const slot = seq % this.limit;
    const t = this.unpack(slot);
    const parse = (text: string): unknown => { try { return JSON.parse(text); } catch { return text; } };
    const headers: Record<string, string> = {};
    for (let i = 0; i + 1 < t.rawHeaders.length; i += 2) {
      const name = t.rawHeaders[i]!.toLowerCase();
      headers[name] = headers[name] === undefined ? t.rawHeaders[i + 1]! : `${headers[name]}, ${t.rawHeaders[i + 1]!}`;
    }
    return {
      id: seq + 1, at: new Date(this.atMs[slot]!).toISOString(), method: this.method[slot]!, url: t.url, path: t.path,
      operationId: this.operationId[slot]!, status: this.status[slot]!, durationMs: this.durationMs[slot]!,
      scenario: this.scenario[slot]!, stubbed: this.stubbed[slot] === 1, requestHeaders: redactHeaders(headers),
      ...(t.requestBody !== '' ? { requestBody: parse(t.requestBody) } : {}),
      ...(t.response !== '' ? { responseBody: redactBody(parse(t.response)) } : {}),
    };
  }

  /** The sequence numbers of the kept records that match, newest first. */
  private matching(f: JournalFilter): number[] {
    const sinceMs = f.since === undefined ? undefined : Date.parse(f.since);
    const method = f.method === undefined ? undefined : f.method.toUpperCase();
    const prefix = f.path === undefined ? '' : f.path.endsWith('*') ? f.path.slice(0, -1) : `${f.path}\u0000`;
    const out: number[] = [];
    for (let seq = this.nextSeq - 1, oldest = this.nextSeq - this.kept; seq >= oldest; seq--) {
      const slot = seq % this.limit;
      if (f.operationId !== undefined && this.operationId[slot] !== f.operationId) continue;
      if (method !== undefined && this.method[slot] !== method) continue;
      if (f.status !== undefined && this.status[slot] !== f.status) continue;
      if (sinceMs !== undefined && !(this.atMs[slot]! >= sinceMs)) continue;
      if (f.path !== undefined) {
        const path = this.path(slot);
        if (path !== f.path && !path.startsWith(prefix)) continue;
      }
      out.push(seq);
    }
    return out;
  }
  /** Newest first, at most `limit`. */
  list(f: JournalFilter = {}): JournalEntry[] {
    return this.matching(f).slice(0, f.limit ?? 100).map((seq) => this.complete(seq));
  }
  count(f: JournalFilter = {}): number {
    return this.matching(f).length;
  }
  size(): number {
    return this.kept;
  }
  /** Drops every record (ids go on); a ring that grew goes back to its first size. */
  clear(): void {
    this.kept = 0;
    this.head = 0;
    if (this.ring.length > initialRingBytes) this.ring = Buffer.allocUnsafe(initialRingBytes) as Ring;
    this.method.fill('');
    this.operationId.fill(null);
    this.scenario.fill(null);
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
