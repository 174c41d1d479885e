import fp from 'fastify-plugin';
import compress, { type FastifyCompressOptions } from '@fastify/compress';
import type { FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler, RouteOptions } from 'fastify';
import type { SandboxStore } from '../store/store.js';
import { baseUrl } from './context.js';

/**
 * A kept answer: its JSON text, and the bytes @fastify/compress made of that text, per Accept-Encoding value (the
 * same value negotiates the same encoding). Replaced, bytes and all, when the store's version or the clock's second
 * (`at`, the time it was built for) moves.
 */
export type KeptAnswer = { version: number; at: number; text: string; encoded: Map<string, Encoded> };
type Encoded = { encoding: string; bytes: Buffer };
const keptPerStore = 500;
/** Accept-Encoding values kept per answer: clients send a handful; anything beyond is compressed as usual */
const encodingsPerAnswer = 8;

/**
 * The part of a kept answer's key every route needs: what the caller names (tenant, user, query) and what the
 * request brings (the base URL the answer's addresses start with, the scenario's tenant options).
 */
export function answerKey(req: FastifyRequest, ...parts: string[]): string {
  const options = req.mock.scenario?.tenantOptions;
  return `${parts.join('|')}|${baseUrl(req)}|${options ? JSON.stringify(options) : ''}`;
}

/**
 * Answers of a costly read kept as JSON text per sandbox store, reused while the store's version (every change moves
 * it) and the sandbox clock's second are the same. Built for the start of that second: a real clock shows time-driven
 * changes (a survey whose end passes) within a second, a frozen clock exactly. The key must hold everything else the
 * answer depends on (answerKey and the route's parts).
 */
export function answerCache() {
  const kept = new WeakMap<SandboxStore, Map<string, KeptAnswer>>();
  // Sends and returns nothing: call it from a handler that is not async and returns nothing, so Fastify has no
  // promise or thenable reply to wait on (a returned reply makes it watch the socket for the end of the answer).
  return <T>(req: FastifyRequest, reply: FastifyReply, key: string, build: (now: Date) => T): void => {
    const { clock, store } = req.mock.sandbox;
    const nowMs = clock.nowMs();
    const at = clock.mode === 'frozen' ? nowMs : nowMs - (nowMs % 1000);
    let perStore = kept.get(store);
    if (!perStore) {
      perStore = new Map();
      kept.set(store, perStore);
    }
    let answer = perStore.get(key);
    if (answer?.version !== store.version || answer.at !== at) {
      if (perStore.size >= keptPerStore) perStore.clear();
      const text = String(reply.serialize(build(new Date(at))));
      answer = { version: store.version, at, text, encoded: new Map() };
      perStore.set(key, answer);
    }
    req.mock.keptAnswer = answer;
    reply.type('application/json; charset=utf-8').send(answer.text);
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
  if (kept !== null && Buffer.isBuffer(payload) && typeof encoding === 'string') {
    if (kept.encoded.size >= encodingsPerAnswer) kept.encoded.clear();
    kept.encoded.set(String(req.headers['accept-encoding']), { encoding, bytes: payload });
  }
  done(null, payload);
}
