import { gzipSync } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SandboxStore } from '../store/store.js';
import { baseUrl } from './context.js';

/**
 * The text (compared by selfCheck), its UTF-8 bytes, sent as they are (no encoding per request), and the same
 * bytes gzipped, made on the first request that accepts gzip.
 */
type Kept = { version: number; text: string; bytes: Buffer; gzipped: Buffer | null };
const keptPerStore = 500;
/** below this the gzip header and framing cost more than they save */
const gzipFrom = 1024;

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * a kept answer's JSON as UTF-8, sent as it is or gzipped: the journal refers to these bytes (never the
     * compressed ones) instead of copying them (decorated in src/http/request-context.ts)
     */
    answerPlain: Buffer | null;
  }
}

/** Whether the client takes gzip (every mobile HTTP stack sends `Accept-Encoding: gzip` on its own). */
function acceptsGzip(req: FastifyRequest): boolean {
  const accepted = req.headers['accept-encoding'];
  return typeof accepted === 'string' && /\bgzip\b(?!;q=0(\.0*)?(,|$))/.test(accepted);
}

/** Sends a kept answer: gzipped when the client takes it and it is worth it, else the plain bytes. */
function sendKept(req: FastifyRequest, reply: FastifyReply, kept: Kept): void {
  reply.type('application/json; charset=utf-8');
  req.answerPlain = kept.bytes;
  if (kept.bytes.length < gzipFrom) {
    reply.send(kept.bytes);
    return;
  }
  // the answer differs with Accept-Encoding (and Origin: src/http/cors.ts)
  reply.header('vary', 'Origin, Accept-Encoding');
  if (!acceptsGzip(req)) {
    reply.send(kept.bytes);
    return;
  }
  kept.gzipped ??= gzipSync(kept.bytes);
  reply.header('content-encoding', 'gzip').send(kept.gzipped);
}

/**
 * The part of a kept answer's key every route needs: what the caller names (tenant, user, query) and what the
 * request brings (the base URL the answer's addresses start with, the scenario's tenant options).
 */
export function answerKey(req: FastifyRequest, ...parts: string[]): string {
  const options = req.scenario?.tenantOptions;
  return `${parts.join('|')}|${baseUrl(req)}|${options ? JSON.stringify(options) : ''}`;
}

/**
 * Answers of a costly read kept as JSON text per sandbox store, reused while nothing can have changed them:
 * the sandbox store's version is the same (every change moves it, see src/store/store.ts)
 * and so is the sandbox clock's second. The answer is built for the start of that second, so a real clock shows
 * time-driven changes (a survey whose end passes) within a second, and a frozen clock (tests, replays) exactly.
 * The key must hold everything else the answer depends on (tenant, user, query, base URL, scenario options).
 *
 * With `selfCheck` (the test suite) every request builds the answer afresh, fails if a kept answer differs from it,
 * and sends the fresh one through the route's serializer.
 */
export function answerCache(options: { selfCheck: boolean }) {
  const kept = new WeakMap<SandboxStore, Map<string, Kept>>();
  /** The answer to send (selfCheck), or nothing when the kept text was sent already. */
  return <T>(req: FastifyRequest, reply: FastifyReply, key: string, build: (now: Date) => T): T | undefined => {
    const { clock, store: data } = req.sandbox;
    const nowMs = clock.nowMs();
    const at = clock.mode === 'frozen' ? nowMs : nowMs - (nowMs % 1000);
    const fullKey = `${at}|${key}`;
    const version = data.version;
    let perStore = kept.get(data);
    if (!perStore) { perStore = new Map(); kept.set(data, perStore); }
    const hit = perStore.get(fullKey);
    if (hit && hit.version === version && !options.selfCheck) {
      sendKept(req, reply, hit);
      return undefined;
    }
    const answer = build(new Date(at));
    const text = JSON.stringify(answer);
    if (hit && hit.version === version && hit.text !== text) throw new Error(`kept answer for ${req.url} is stale:\n${hit.text.slice(0, 500)}\n${text.slice(0, 500)}`);
    if (perStore.size >= keptPerStore) perStore.clear();
    const fresh: Kept = { version, text, bytes: Buffer.from(text, 'utf8'), gzipped: null };
    perStore.set(fullKey, fresh);
    if (options.selfCheck) return answer;
    sendKept(req, reply, fresh);
    return undefined;
  };
}
