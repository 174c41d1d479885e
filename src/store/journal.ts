import type { FaultKind, JournalEntry, JournalFilter } from '../schemas/control.js';
import { pathOf } from '../shared/url-path.js';
import { fail } from '../errors.js';
import {
  defaultRegexLimits,
  fieldFilter,
  type FieldFilter,
  RegexBudget,
  type RegexLimits,
  textMatches,
  textOf,
  valueAt,
} from '../shared/matchers.js';
import { isErrorBodyCode, isSecretField, isSecretHeader, redactSecretFieldsInText } from '../shared/secrets.js';
import { TextChunks, type TextPlace } from './text-chunks.js';
import type { SharedBytes } from './shared-bytes.js';
import { LazyList } from '../shared/json-stream.js';

/** The facts of a request the journal keeps. */
export type JournalFacts = {
  atMs: number;
  method: string;
  operationId: string | null;
  status: number;
  durationMs: number;
  scenario: string | null;
  stubbed: boolean;
  /** the scenario stub that answered */
  stub?: { index: number; name?: string } | null;
  /** the scenario fault that broke the answer, and whether it did so after the handler's changes were committed */
  fault?: FaultKind | null;
  afterCommit?: boolean;
  /** the id of the sandbox's WireMock stub mapping that answered (docs/wiremock.md "Requests") */
  mapping?: string | null;
};

/** The texts of a request the journal keeps, as received; redacted and parsed only when the journal is read. */
export type JournalTexts = {
  /** as the client sent it, prefixes included */
  url: string;
  /** without the prefixes */
  routedUrl: string;
  /** the request's headers as Node received them (name, value, name, value …) */
  rawHeaders: string[];
  /** the request body's text as it arrived, cut to `keptChars` (keptText) */
  requestBody?: string | undefined;
  /** the answer's JSON text when it was at most `keptChars` */
  response?: string | undefined;
};

/**
 * One place of the ring, reused for every request it keeps: its facts as plain fields (a number stored again in a
 * field that holds numbers takes no new memory), its texts as UTF-8 bytes outside the heap (`TextChunks`). Once the
 * ring is full, keeping a request leaves nothing new on the heap for the collector to copy.
 */
type Slot = TextPlace & {
  id: number;
  /** what the entry takes: its texts' bytes and `slotBytes` */
  bytes: number;
  /** where the routed URL starts in the URL (the prefixes' length), or -1 when it is kept as a text of its own */
  routedFrom: number;
} & Required<JournalFacts>;

const emptySlot = (): Slot => ({
  chunk: null,
  start: 0,
  length: 0,
  id: 0,
  bytes: 0,
  routedFrom: -1,
  atMs: 0,
  method: '',
  operationId: null,
  status: 0,
  durationMs: 0,
  scenario: null,
  stubbed: false,
  stub: null,
  fault: null,
  afterCommit: false,
  mapping: null,
});

/** The texts of a kept request, read back. */
type Texts = { url: string; routedUrl: string; requestBody: string; response: string; rawHeaders: string[] };

/**
 * The request's header names and values are kept as one text, joined by NUL: Node's parser refuses a NUL in a
 * header, so splitting gives them back. One text instead of one per name and value halved the cost of writing an
 * entry (each write into a chunk is a call into Node).
 */
const headerSeparator = '\u0000';

/** What an entry costs besides its texts: the slot object and its fields on the heap (measured: about 150 bytes). */
export const slotBytes = 160;
/** A URL (and a routed URL kept apart from it) is kept up to this many characters, the rest cut with a note. */
export const keptUrlChars = 4096;
/**
 * A header's name and value are kept up to these many characters each, the rest cut with a note: a value as long as
 * the default request head (16 KiB) is kept whole, so a filter sees it (a server started with larger heads is cut).
 */
export const keptHeaderNameChars = 256;
export const keptHeaderValueChars = 16 * 1024;

/** `text`, or its first `max` characters and a note of its whole length (always a copy: `keptText` says why). */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${copyOf(text.slice(0, max))}…[cut: ${text.length} characters in all]`;
}

/** `text` cut as `cut` does, always a copy of its own (a finding's message and path, kept on the heap). */
export const keptCopy = (text: string, max: number): string => (text.length <= max ? copyOf(text) : cut(text, max));

/** The request's headers as the journal keeps them: each name and value cut, joined by NUL. */
function headerText(rawHeaders: readonly string[]): string {
  let long = false;
  for (let i = 0; i < rawHeaders.length && !long; i++)
    long = rawHeaders[i]!.length > (i % 2 === 0 ? keptHeaderNameChars : keptHeaderValueChars);
  if (!long) return rawHeaders.join(headerSeparator);
  return rawHeaders
    .map((h, i) => cut(h, i % 2 === 0 ? keptHeaderNameChars : keptHeaderValueChars))
    .join(headerSeparator);
}

/**
 * The journals of one server share a budget of bytes (--journal-mb): past it, the journal written to longest ago
 * gives up its oldest entries first. The registry closes a journal when its sandbox goes, which gives its bytes back.
 */
export type JournalBudget = SharedBytes<Journal>;

/**
 * The request journal of a sandbox: the last `limit` requests in a ring, oldest overwritten first, so a full journal
 * moves nothing when a request comes (a sandbox that never sees a request holds an empty array). The entries' bytes
 * are bounded too: `maxBytes` for this journal, and the server's `JournalBudget`; past either, the oldest go first.
 * Entries are completed and redacted only when read.
 */
export class Journal {
  readonly limit: number;
  /** most bytes its entries take (texts as UTF-8, and `slotBytes` each) */
  readonly maxBytes: number;
  /** the ring: grows to `limit`; `head` is the oldest entry's slot, `kept` how many are kept */
  private slots: Slot[] = [];
  private head = 0;
  private kept = 0;
  /** what the kept entries take */
  private bytes = 0;
  /** id of the next entry (ids go on after clear) */
  private nextId = 1;
  private readonly texts = new TextChunks();
  private readonly budget: JournalBudget | null;
  /** its sandbox is gone: nothing more is kept (a request still in flight when it went) */
  private closed = false;

  constructor(limit: number, options: { maxBytes?: number; budget?: JournalBudget | null } = {}) {
    this.limit = limit;
    this.maxBytes = options.maxBytes ?? Number.POSITIVE_INFINITY;
    this.budget = options.budget ?? null;
  }
  get enabled(): boolean {
    return this.limit > 0;
  }
  /** Bytes its entries take: their texts as UTF-8 and `slotBytes` each. */
  get heldBytes(): number {
    return this.bytes;
  }

  /** The id of a request's entry, taken when it arrives so findings can name it before the entry is added. */
  reserveId(): number {
    return this.enabled ? this.nextId++ : 0;
  }

  add(facts: JournalFacts, texts: JournalTexts, id = this.reserveId()): void {
    if (!this.enabled || this.closed) return;
    if (this.kept === this.limit) this.dropOldest();
    const slot = this.nextSlot();
    slot.id = id;
    slot.atMs = facts.atMs;
    slot.method = facts.method;
    slot.operationId = facts.operationId;
    slot.status = facts.status;
    slot.durationMs = facts.durationMs;
    slot.scenario = facts.scenario;
    slot.stubbed = facts.stubbed;
    slot.stub = facts.stub ?? null;
    slot.fault = facts.fault ?? null;
    slot.afterCommit = facts.afterCommit === true;
    slot.mapping = facts.mapping ?? null;
    const { requestBody = '', response = '', rawHeaders } = texts;
    const url = cut(texts.url, keptUrlChars);
    // the routed URL is the URL without its prefixes: kept as where it starts, unless the URL was cut
    const routed = texts.routedUrl;
    const isSuffix = url === texts.url && routed !== '' && url.endsWith(routed);
    slot.routedFrom = isSuffix ? url.length - routed.length : -1;
    const routedText = isSuffix ? '' : cut(routed, keptUrlChars);
    // written as bytes: a copy, so the entry keeps no string of the request, nor a string a cut was sliced from.
    // The body and the answer come bounded (keptText; an answer only when at most keptChars)
    slot.bytes = slotBytes + this.texts.write(slot, [url, routedText, requestBody, response, headerText(rawHeaders)]);
    this.bytes += slot.bytes;
    this.budget?.charge(this, slot.bytes);
    while (this.bytes > this.maxBytes && this.kept > 1) this.dropOldest();
    this.budget?.wrote(this);
  }

  /** The slot after the newest, counted in. */
  private nextSlot(): Slot {
    const capacity = this.slots.length;
    if (this.kept < capacity) return this.slots[(this.head + this.kept++) % capacity]!;
    // full below the limit: one more slot, after the newest (the ring turned first so that it is at the end)
    if (this.head !== 0) this.slots = [...this.slots.slice(this.head), ...this.slots.slice(0, this.head)];
    this.head = 0;
    const slot = emptySlot();
    this.slots.push(slot);
    this.kept++;
    return slot;
  }

  /** Lets the oldest entry go (the entry limit, a byte budget). */
  dropOldest(): void {
    if (this.kept === 0) return;
    const slot = this.slots[this.head]!;
    this.texts.drop(slot);
    const bytes = slot.bytes;
    slot.bytes = 0;
    this.bytes -= bytes;
    this.head = (this.head + 1) % this.slots.length;
    this.kept--;
    this.budget?.charge(this, -bytes);
  }

  /** The texts of a kept entry. */
  private textsOf(slot: Slot): Texts {
    const [url = '', routed = '', requestBody = '', response = '', headers = ''] = this.texts.read(slot);
    const routedUrl = slot.routedFrom >= 0 ? url.slice(slot.routedFrom) : routed;
    return { url, routedUrl, requestBody, response, rawHeaders: headers === '' ? [] : headers.split(headerSeparator) };
  }

  /** The entry `age` requests back (0: the newest), `age` below size(). */
  private at(age: number): Slot {
    return this.slots[(this.head + this.kept - 1 - age) % this.slots.length]!;
  }

  /**
   * The kept entries that match, newest first, at most `atMost`. `ids`: only these entries; `f.finding` is not read
   * here, as the findings live beside the journal: the route resolves the code to the ids of the entries that raised
   * it. Field filters look at the entry as it reads back: secrets redacted. Their regular expressions share one
   * budget of work (`limits`): a read that would take more is a 422 saying how to narrow it, not a frozen server.
   */
  private matching(
    f: JournalFilter,
    ids: ReadonlySet<number> | undefined,
    limits: RegexLimits,
    atMost = Number.POSITIVE_INFINITY,
  ): Slot[] {
    const sinceMs = f.since === undefined ? undefined : Date.parse(f.since);
    const method = f.method?.toUpperCase();
    const prefix = f.path?.endsWith('*') ? f.path.slice(0, -1) : undefined;
    const fields = fieldFilters(f, limits.maxProgram);
    const budget = new RegexBudget(limits);
    const out: Slot[] = [];
    for (let age = 0; age < this.kept && out.length < atMost; age++) {
      const e = this.at(age);
      if (ids !== undefined && !ids.has(e.id)) continue;
      if (f.operationId !== undefined && e.operationId !== f.operationId) continue;
      if (method !== undefined && e.method !== method) continue;
      if (f.status !== undefined && e.status !== f.status) continue;
      if (f.fault !== undefined && e.fault !== f.fault) continue;
      if (sinceMs !== undefined && !(e.atMs >= sinceMs)) continue;
      if (f.path !== undefined) {
        const path = pathOf(this.textsOf(e).routedUrl);
        if (path !== f.path && !(prefix !== undefined && path.startsWith(prefix))) continue;
      }
      if (fields.length > 0 && !fieldsMatch(fields, this.complete(e), budget)) {
        if (budget.exhausted) throw regexBudgetSpent(limits, age, this.kept);
        continue;
      }
      out.push(e);
    }
    return out;
  }
  /**
   * What `list` gives, each entry made (read back, parsed, redacted) only when the list is read there: a read of a
   * whole journal written in slices (issue 54: a thousand entries made at once held the loop 110-250 ms). The
   * entries are taken now, their texts' bytes copied, so that requests journaled while the list is read change
   * nothing in it. `order`: newest first, as `list`, or by id, oldest first (as HAR records).
   */
  listed(
    f: JournalFilter = {},
    ids?: ReadonlySet<number>,
    limits: RegexLimits = defaultRegexLimits,
    order: 'newest' | 'oldest' = 'newest',
  ): LazyList<Slot, JournalEntry> {
    const taken = this.matching(f, ids, limits, f.limit ?? 100).map((slot) => ({ ...slot, ...this.texts.copy(slot) }));
    if (order === 'oldest') taken.sort((a, b) => a.id - b.id);
    return new LazyList(taken, (slot) => this.complete(slot));
  }
  /** The ids of the WireMock mappings that answered a kept entry: read from the facts, no text read back. */
  mappingIds(): Set<string> {
    const ids = new Set<string>();
    for (let age = 0; age < this.kept; age++) {
      const mapping = this.at(age).mapping;
      if (mapping !== null) ids.add(mapping);
    }
    return ids;
  }
  /** Newest first, at most `limit` (the scan stops there, so a smaller limit is less work). */
  list(f: JournalFilter = {}, ids?: ReadonlySet<number>, limits: RegexLimits = defaultRegexLimits): JournalEntry[] {
    return this.matching(f, ids, limits, f.limit ?? 100).map((slot) => this.complete(slot));
  }
  count(f: JournalFilter = {}, ids?: ReadonlySet<number>, limits: RegexLimits = defaultRegexLimits): number {
    return this.matching(f, ids, limits).length;
  }
  size(): number {
    return this.kept;
  }
  /**
   * Drops the entries whose ids are in `ids` (WireMock's DELETE /requests/{id}, /requests/remove); the others keep
   * their order and ids. Answers how many went. Their bytes are given back to this journal and to the budget.
   */
  remove(ids: ReadonlySet<number>): number {
    if (ids.size === 0 || this.kept === 0) return 0;
    const keptSlots: Slot[] = [];
    let freed = 0;
    for (let age = this.kept - 1; age >= 0; age--) {
      const slot = this.at(age);
      if (!ids.has(slot.id)) {
        keptSlots.push(slot);
        continue;
      }
      this.texts.drop(slot);
      freed += slot.bytes;
      slot.bytes = 0;
    }
    const removed = this.kept - keptSlots.length;
    if (removed === 0) return 0;
    // the ring starts again at 0 with the kept slots, oldest first; the removed slots' objects go
    this.slots = keptSlots;
    this.head = 0;
    this.kept = keptSlots.length;
    this.bytes -= freed;
    this.budget?.charge(this, -freed);
    return removed;
  }
  /** Drops every entry (ids go on). */
  clear(): void {
    const bytes = this.bytes;
    this.slots = [];
    this.head = 0;
    this.kept = 0;
    this.bytes = 0;
    this.texts.clear();
    this.budget?.charge(this, -bytes);
  }
  /** Drops every entry and keeps no more: its sandbox is gone (deleted, or written out and dropped from memory). */
  close(): void {
    this.clear();
    this.closed = true;
  }

  /** The entry as the admin API gives it: headers joined per name, bodies parsed, secrets redacted. */
  private complete(e: Slot): JournalEntry {
    const t = this.textsOf(e);
    const headers: Record<string, string> = {};
    for (let i = 0; i + 1 < t.rawHeaders.length; i += 2) {
      const name = t.rawHeaders[i]!.toLowerCase();
      headers[name] = headers[name] === undefined ? t.rawHeaders[i + 1]! : `${headers[name]}, ${t.rawHeaders[i + 1]!}`;
    }
    return {
      id: e.id,
      at: new Date(e.atMs).toISOString(),
      method: e.method,
      url: t.url,
      path: pathOf(t.routedUrl),
      operationId: e.operationId,
      status: e.status,
      durationMs: e.durationMs,
      scenario: e.scenario,
      stubbed: e.stubbed,
      ...(e.fault ? { fault: e.fault, afterCommit: e.afterCommit } : {}),
      ...(e.stub ? { stub: e.stub } : {}),
      ...(e.mapping !== null ? { wiremockMapping: e.mapping } : {}),
      requestHeaders: redactHeaders(headers),
      ...(t.requestBody ? { requestBody: readBack(t.requestBody) } : {}),
      ...(t.response ? { responseBody: readBack(t.response) } : {}),
    };
  }
}

/** A journal read whose regular expressions would take more than the budget: what to do instead. */
function regexBudgetSpent(limits: RegexLimits, scanned: number, kept: number) {
  return fail.unprocessable(
    `the regular expressions of this journal read would take more than --regex-budget (${limits.budget} units: ` +
      `characters read × instructions of the pattern) after ${scanned} of ${kept} entries; narrow it: fewer ` +
      'entries (limit=…), a time window (since=…), a cheaper filter beside it (operationId, status, path, method), ' +
      ':contains instead of :regex, or a plainer pattern (fewer counted repetitions such as {30})',
  );
}

/** The field filters of a journal filter (header.NAME, query.NAME, body.PATH …); the routes refused bad ones. */
function fieldFilters(f: JournalFilter, maxProgram: number): FieldFilter[] {
  const out: FieldFilter[] = [];
  for (const [key, value] of Object.entries(f)) {
    const filter = typeof value === 'string' ? fieldFilter(key, value, maxProgram) : null;
    if (filter && !('problem' in filter)) out.push(filter);
  }
  return out;
}

/** Whether an entry passes every field filter (a value that is not a string is compared as its JSON text). */
function fieldsMatch(filters: FieldFilter[], entry: JournalEntry, budget: RegexBudget): boolean {
  let query: URLSearchParams | undefined;
  return filters.every(({ source, name, matcher }) => {
    if (source === 'header') {
      const value = Object.hasOwn(entry.requestHeaders, name) ? entry.requestHeaders[name] : undefined;
      return textMatches(matcher, value === undefined ? undefined : [value], budget);
    }
    if (source === 'query') {
      query ??= new URLSearchParams(entry.url.includes('?') ? entry.url.slice(entry.url.indexOf('?') + 1) : '');
      return textMatches(matcher, query.has(name) ? query.getAll(name) : undefined, budget);
    }
    const value = valueAt(entry.requestBody, name);
    return textMatches(matcher, value === undefined ? undefined : [textOf(value)], budget);
  });
}

/** A body text the journal keeps: up to this many characters. */
export const keptChars = 8192;

/**
 * What the journal keeps of a body text: the text itself, or its first `keptChars` characters and a note of the
 * length. The cut is copied into a string of its own, as a slice of a 1 MiB body would keep the whole body alive.
 */
export function keptText(text: string): string {
  return cut(text, keptChars);
}

/**
 * A copy of `text` that shares no memory with it. In V8 a slice of a long string (a "sliced string") points into its
 * parent and keeps the whole parent alive, and a concatenation keeps its parts: written to bytes as UTF-16 and read
 * back (which keeps a lone surrogate, as UTF-8 would not), the text is a flat string of its own.
 */
export function copyOf(text: string): string {
  return Buffer.from(text, 'utf16le').toString('utf16le');
}

/** Kept texts nested deeper than this are given back as text: a parsed value that deep could not be serialized. */
const maxParsedDepth = 64;

/** Whether JSON text nests arrays and objects deeper than `max` (a scan, so it holds for text that is not JSON). */
function nestedDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/**
 * A kept text as the journal gives it: parsed with secrets redacted when it is JSON of a sane depth, else the text
 * with the values of secret fields replaced (a cut, malformed or too deeply nested body).
 */
function readBack(text: string): unknown {
  if (!nestedDeeperThan(text, maxParsedDepth)) {
    try {
      return redactBody(JSON.parse(text));
    } catch {
      /* not JSON: given as text */
    }
  }
  return redactSecretFieldsInText(text);
}

/** Headers as kept in the journal: secrets replaced, so a journal can be attached to a bug report. */
export function redactHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) continue;
    out[k] = isSecretHeader(k) ? '[redacted]' : Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

/** A copy of a JSON value with the whole value of each secret field replaced (depth-limited). */
export function redactBody(value: unknown, depth = 0): unknown {
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.slice(0, 50).map((v) => redactBody(v, depth + 1));
  const out: Record<string, unknown> = {};
  const record = value as Record<string, unknown>;
  for (const [k, v] of Object.entries(record))
    out[k] = isSecretField(k) && !isErrorBodyCode(record, k) ? '[redacted]' : redactBody(v, depth + 1);
  return out;
}
