import fp from 'fastify-plugin';
import compress, { type FastifyCompressOptions } from '@fastify/compress';
import type { FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler, RouteOptions } from 'fastify';
import type { SandboxStore } from '../store/store.js';
import { baseUrl } from './context.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** the kept answers of every sandbox, in one budget (--answer-cache-mb) */
    answers: AnswerCache;
  }
}

/**
 * A kept answer: its JSON text, and the bytes @fastify/compress made of that text, per Accept-Encoding value (the
 * same value negotiates the same encoding). Replaced, bytes and all, when the store's version or the clock's second
 * (`at`, the time it was built for) moves. `bytes` is what it counts against the budget; `id` its place in the cache.
 */
export type KeptAnswer = {
  version: number;
  at: number;
  text: string;
  encoded: Map<string, Encoded>;
  bytes: number;
  id: string;
};
type Encoded = { encoding: string; bytes: Buffer };
/** Accept-Encoding values kept per answer: clients send a handful; anything beyond is compressed as usual */
const encodingsPerAnswer = 8;
/** what an entry costs beside its text and bytes: the Map slots, the objects, the key (an estimate, on the safe side) */
const entryOverhead = 256;

/** What the whole server's kept answers hold now: GET /__admin/health shows it. */
export type AnswerCacheStats = { bytes: number; entries: number; budgetBytes: number };

/**
 * The kept answers of every sandbox in one budget of bytes: a text counts two bytes a character (V8 holds a text with
 * any character past Latin-1 that way; the portal's data is Cyrillic), plus the compressed bytes kept beside it and a
 * fixed overhead. Past the budget the least recently used answers go first; an answer larger than the whole budget is
 * sent and not kept. A sandbox's reset, snapshot import or deletion drops its answers at once (`drop`).
 */
export class AnswerCache {
  readonly budgetBytes: number;
  /** every kept answer by `id` (store number, then key), least recently used first: a Map keeps insertion order */
  private readonly entries = new Map<string, KeptAnswer>();
  /** the ids of each store's answers, so that a reset frees them without walking every entry */
  private readonly byStore = new Map<number, Set<string>>();
  private readonly storeNumbers = new WeakMap<SandboxStore, number>();
  private nextStore = 1;
  private total = 0;

  constructor(budgetBytes: number) {
    this.budgetBytes = budgetBytes;
  }

  stats(): AnswerCacheStats {
    return { bytes: this.total, entries: this.entries.size, budgetBytes: this.budgetBytes };
  }

  private storeNumber(store: SandboxStore): number {
    let n = this.storeNumbers.get(store);
    if (n === undefined) {
      n = this.nextStore++;
      this.storeNumbers.set(store, n);
    }
    return n;
  }

  /** The answer kept for this store and key, now the most recently used; undefined when none is. */
  get(store: SandboxStore, key: string): KeptAnswer | undefined {
    const id = `${this.storeNumber(store)}\n${key}`;
    const answer = this.entries.get(id);
    if (answer) {
      this.entries.delete(id);
      this.entries.set(id, answer);
    }
    return answer;
  }

  /** Keeps a new answer (replacing the key's old one), first dropping the least recently used until it fits. */
  keep(store: SandboxStore, key: string, version: number, at: number, text: string): KeptAnswer {
    const n = this.storeNumber(store);
    const id = `${n}\n${key}`;
    const answer: KeptAnswer = { version, at, text, encoded: new Map(), bytes: 0, id };
    this.remove(id);
    const bytes = 2 * (text.length + id.length) + entryOverhead;
    if (bytes > this.budgetBytes) return answer; // sent, never kept: nothing else is dropped for it
    this.makeRoom(bytes);
    answer.bytes = bytes;
    this.entries.set(id, answer);
    this.total += bytes;
    let ids = this.byStore.get(n);
    if (!ids) {
      ids = new Set();
      this.byStore.set(n, ids);
    }
    ids.add(id);
    return answer;
  }

  /** The bytes compress made of a kept answer, kept beside it while it is still in the cache and they fit. */
  keepEncoded(answer: KeptAnswer, accepted: string, encoded: Encoded): void {
    if (this.entries.get(answer.id) !== answer) return; // replaced or dropped since it was sent
    if (answer.encoded.size >= encodingsPerAnswer) {
      for (const old of answer.encoded.values()) this.resize(answer, -old.bytes.length);
      answer.encoded.clear();
    }
    const old = answer.encoded.get(accepted);
    if (old) this.resize(answer, -old.bytes.length);
    if (answer.bytes + encoded.bytes.length > this.budgetBytes) return;
    // room first, with this answer the most recent, so that it is not the one dropped
    this.entries.delete(answer.id);
    this.entries.set(answer.id, answer);
    this.makeRoom(encoded.bytes.length, answer);
    answer.encoded.set(accepted, encoded);
    this.resize(answer, encoded.bytes.length);
  }

  /** Frees every answer of a store at once (its sandbox was reset, replaced or deleted). */
  drop(store: SandboxStore): void {
    const n = this.storeNumbers.get(store);
    if (n === undefined) return;
    for (const id of [...(this.byStore.get(n) ?? [])]) this.remove(id);
    this.byStore.delete(n);
  }

  private resize(answer: KeptAnswer, delta: number): void {
    answer.bytes += delta;
    this.total += delta;
  }

  private makeRoom(bytes: number, keep?: KeptAnswer): void {
    for (const [id, oldest] of this.entries) {
      if (this.total + bytes <= this.budgetBytes) return;
      if (oldest !== keep) this.remove(id);
    }
  }

  private remove(id: string): void {
    const answer = this.entries.get(id);
    if (!answer) return;
    this.entries.delete(id);
    this.total -= answer.bytes;
    const n = Number(id.slice(0, id.indexOf('\n')));
    const ids = this.byStore.get(n);
    ids?.delete(id);
    if (ids?.size === 0) this.byStore.delete(n);
  }
}

/**
 * The kept answers of the app, `app.answers`, in the budget of --answer-cache-mb; a sandbox's reset, snapshot import
 * or deletion frees its answers at once.
 */
export const answerCachePlugin = fp(
  async (app: FastifyInstance) => {
    const answers = new AnswerCache(app.config.answerCacheMb * 1024 * 1024);
    app.decorate('answers', answers);
    app.sandboxes.onDiscard((sandbox) => answers.drop(sandbox.store));
  },
  { name: 'answer-cache', dependencies: ['sandboxes'] },
);

/** The declared query parameters of each route's schema, by name, once per schema. */
const declaredNames = new WeakMap<object, string[]>();

/**
 * The request's query as validated, normalised: the route's declared parameters in name order, with the values
 * validation made of them (coerced, defaults applied). An undeclared parameter (`?_=1`, a cache buster) is not part
 * of it, nor is the order or spelling of the URL.
 */
function validatedQuery(req: FastifyRequest): string {
  const schema = req.routeOptions.schema?.querystring as { properties?: Record<string, unknown> } | undefined;
  if (!schema?.properties) return '';
  let names = declaredNames.get(schema);
  if (!names) {
    names = Object.keys(schema.properties).sort();
    declaredNames.set(schema, names);
  }
  const query = (req.query ?? {}) as Record<string, unknown>;
  return JSON.stringify(names.map((name) => query[name] ?? null));
}

/** Whether the URL's query names only parameters the route declares (an answer that echoes the URL needs it). */
export function onlyDeclaredQuery(req: FastifyRequest): boolean {
  const q = req.url.indexOf('?');
  if (q < 0) return true;
  const schema = req.routeOptions.schema?.querystring as { properties?: Record<string, unknown> } | undefined;
  const declared = schema?.properties ?? {};
  for (const name of new URLSearchParams(req.url.slice(q + 1)).keys()) if (!Object.hasOwn(declared, name)) return false;
  return true;
}

/**
 * The part of a kept answer's key every route needs: the operation, what the caller names (tenant, user), the
 * validated query, and what the request brings (the base URL the answer's addresses start with, the scenario's tenant
 * options).
 */
export function answerKey(req: FastifyRequest, ...parts: string[]): string {
  const options = req.mock.scenario?.tenantOptions;
  const query = validatedQuery(req);
  return `${req.mock.operationId}|${parts.join('|')}|${query}|${baseUrl(req)}|${options ? JSON.stringify(options) : ''}`;
}

/**
 * Answers of a costly read kept as JSON text (in the app's one budget, `app.answers`), reused while the sandbox
 * store's version (every change moves it) and the sandbox clock's second are the same. Built for the start of that
 * second: a real clock shows time-driven changes (a survey whose end passes) within a second, a frozen clock exactly.
 * The key must hold everything else the answer depends on (answerKey and the route's parts); a null key builds the
 * answer without keeping it.
 */
export function answerCache(app: FastifyInstance) {
  // Sends and returns nothing: call it from a handler that is not async and returns nothing, so Fastify has no
  // promise or thenable reply to wait on (a returned reply makes it watch the socket for the end of the answer).
  return <T>(req: FastifyRequest, reply: FastifyReply, key: string | null, build: (now: Date) => T): void => {
    const { clock, store } = req.mock.sandbox;
    const nowMs = clock.nowMs();
    const at = clock.mode === 'frozen' ? nowMs : nowMs - (nowMs % 1000);
    reply.type('application/json; charset=utf-8');
    if (key === null) {
      reply.send(String(reply.serialize(build(new Date(at)))));
      return;
    }
    const answers = app.answers;
    let answer = answers.get(store, key);
    if (answer?.version !== store.version || answer.at !== at) {
      const text = String(reply.serialize(build(new Date(at))));
      answer = answers.keep(store, key, store.version, at, text);
    }
    req.mock.keptAnswer = answer;
    reply.send(answer.text);
  };
}

const hooksOf = (h: RouteOptions['onSend']): onSendHookHandler[] => (h === undefined ? [] : [h].flat());

/**
 * @fastify/compress on every route, and a kept answer compressed once per Accept-Encoding value: the bytes compress
 * made of its text are kept beside it (keepEncoded, right after compress's onSend) and handed out again, with the
 * headers compress sets, until the answer changes (reuseEncoded, right before it; compress leaves an answer that
 * already has a Content-Encoding alone). Every other hook still sees the answer as JSON text, and an answer a hook
 * changed (a scenario's body fault) is not the kept text, so compress treats it as usual.
 */
export const compressionPlugin = fp(
  async (app: FastifyInstance, options: FastifyCompressOptions) => {
    app.addHook('onRoute', (route) => {
      route.onSend = [reuseEncoded, ...hooksOf(route.onSend)];
    });
    await app.register(compress, options);
    app.addHook('onRoute', (route) => {
      route.onSend = [...hooksOf(route.onSend), keepEncoded];
    });
  },
  { name: 'compression', dependencies: ['request-state'] },
);

/** compress's onSend gets the kept bytes, with its headers already set, when it made them before for this value. */
function reuseEncoded(req: FastifyRequest, reply: FastifyReply, payload: unknown, done: (e: null, p: unknown) => void) {
  // no request state when an earlier onRequest hook answered (a CORS preflight)
  const kept = req.mock?.keptAnswer ?? null;
  if (kept === null) return done(null, payload);
  const accepted = req.headers['accept-encoding'];
  if (payload !== kept.text || accepted === undefined || req.headers['x-no-compression'] !== undefined) {
    req.mock.keptAnswer = null; // not the kept text as compress would see it: nothing to keep from this answer
    return done(null, payload);
  }
  const encoded = kept.encoded.get(accepted);
  if (encoded === undefined) return done(null, payload);
  // the headers compress sets on a compressed answer, in its order
  const vary = reply.getHeader('vary');
  if (vary === undefined) reply.header('vary', 'accept-encoding');
  else {
    const values = [vary].flat().map(String);
    if (!values.some((v) => v.includes('accept-encoding')))
      reply.header('vary', [...values, 'accept-encoding'].join(', '));
  }
  reply.header('content-encoding', encoded.encoding);
  reply.header('content-length', encoded.bytes.length);
  req.mock.keptAnswer = null; // nothing new to keep
  done(null, encoded.bytes);
}

/** After compress's onSend: the bytes it made of a kept answer's text, kept for the next request alike. */
function keepEncoded(req: FastifyRequest, reply: FastifyReply, payload: unknown, done: (e: null, p: unknown) => void) {
  const kept = req.mock?.keptAnswer ?? null;
  const encoding = reply.getHeader('content-encoding');
  if (kept !== null && Buffer.isBuffer(payload) && typeof encoding === 'string')
    req.server.answers.keepEncoded(kept, String(req.headers['accept-encoding']), { encoding, bytes: payload });
  done(null, payload);
}
