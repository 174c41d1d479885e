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

/**
 * The texts of a request the journal keeps: copied as UTF-8 bytes into the journal's ring, except what records share
 * (see Journal). The raw headers array is kept until the next request, to compare with; callers never change it.
 */
export type JournalTexts = {
  /** as the client sent it, prefixes included */
  url: string;
  /** without the prefixes */
  routedUrl: string;
  /** the request's headers as Node received them (name, value, name, value …) */
  rawHeaders: string[];
  /** the request body, redacted, as JSON text */
  requestBody?: string | undefined;
  /**
   * the answer's JSON text when it was at most 8 KiB: a string is copied; a Buffer is an answer the server keeps and
   * sends again unchanged (src/http/answer-cache.ts), so the journal keeps a reference to it, not a copy
   */
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

/** A text several records share (a run of identical request headers, a kept answer), and the last record using it. */
type Shared = { text: Buffer; lastSeq: number };

/** Whether two raw header lists are the same (a client sends the same headers request after request). */
function sameHeaders(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

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
 *
 * Texts that records share are kept once, outside the ring: request headers equal to the previous request's (an
 * app or a load test sends the same headers every time), joined once per run of equal headers, and kept answers
 * (Buffers the server sends again unchanged). Writing them into the ring for every request cost about 7% of the
 * light read's throughput (the bytes, and the cache lines they fill). A shared text is dropped once no kept record
 * uses it.
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
  // per record: the shared headers and answer (ids in `shared`), or -1 when they are in the ring
  private headersShared = new Int32Array(0);
  private responseShared = new Int32Array(0);
  private readonly shared = new Map<number, Shared>();
  private nextShared = 0;
  /** the previous request's raw headers, and their shared text once a second request sent the same */
  private lastRawHeaders: readonly string[] | null = null;
  private lastHeadersShared = -1;
  private lastResponse: Buffer | null = null;
  private lastResponseShared = -1;

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
    const headersShared = this.shareHeaders(texts.rawHeaders, seq);
    const headers = headersShared < 0 ? texts.rawHeaders.join('\n') : '';
    const body = texts.requestBody ?? '';
    const responseShared = Buffer.isBuffer(texts.response) ? this.shareResponse(texts.response, seq) : -1;
    const response = responseShared < 0 ? texts.response ?? '' : '';
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
    this.headersShared[slot] = headersShared;
    this.responseShared[slot] = responseShared;
    this.nextSeq = seq + 1;
    if (this.kept < limit) this.kept++;
    // once per `limit` records: drop the shared texts no kept record uses
    if (this.nextSeq % limit === 0 && this.shared.size > 0) this.dropUnshared();
  }

  private share(text: Buffer, seq: number): number {
    const id = this.nextShared++;
    this.shared.set(id, { text, lastSeq: seq });
    return id;
  }
  private shareHeaders(raw: readonly string[], seq: number): number {
    const last = this.lastRawHeaders;
    this.lastRawHeaders = raw;
    if (last === null || !sameHeaders(last, raw)) {
      this.lastHeadersShared = -1;
      return -1;
    }
    // as UTF-8 bytes, like the texts in the ring (so both read back the same)
    if (this.lastHeadersShared < 0) this.lastHeadersShared = this.share(Buffer.from(raw.join('\n'), 'utf8'), seq);
    else this.shared.get(this.lastHeadersShared)!.lastSeq = seq;
    return this.lastHeadersShared;
  }
  private shareResponse(response: Buffer, seq: number): number {
    if (response === this.lastResponse) {
      this.shared.get(this.lastResponseShared)!.lastSeq = seq;
      return this.lastResponseShared;
    }
    this.lastResponse = response;
    this.lastResponseShared = this.share(response, seq);
    return this.lastResponseShared;
  }
  private dropUnshared(): void {
    const oldest = this.nextSeq - this.kept;
    for (const [id, s] of this.shared) {
      if (s.lastSeq >= oldest) continue;
      this.shared.delete(id);
      if (id === this.lastHeadersShared) this.lastHeadersShared = -1;
      if (id === this.lastResponseShared) { this.lastResponseShared = -1; this.lastResponse = null; }
    }
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
    this.headersShared = new Int32Array(n);
    this.responseShared = new Int32Array(n);
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
    const headers = this.headersShared[slot]! >= 0 ? this.sharedText(this.headersShared[slot]!) : s.slice(b + 1, c);
    const response = this.responseShared[slot]! >= 0 ? this.sharedText(this.responseShared[slot]!) : s.slice(d + 1);
    const query = routedUrl.indexOf('?');
    return {
      url, path: query < 0 ? routedUrl : routedUrl.slice(0, query), rawHeaders: headers === '' ? [] : headers.split('\n'),
      requestBody: s.slice(c + 1, d), response,
    };
  }
  private sharedText(id: number): string {
    return this.shared.get(id)?.text.toString('utf8') ?? '';
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
    this.shared.clear();
    this.lastRawHeaders = null;
    this.lastHeadersShared = -1;
    this.lastResponse = null;
    this.lastResponseShared = -1;
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
