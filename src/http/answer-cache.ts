import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Data } from '../store/data.js';
import { dataVersion } from '../store/data-version.js';

type Kept = { version: number; text: string };
const keptPerStore = 500;

/**
 * Answers of a costly read kept as JSON text per sandbox store, reused while nothing can have changed them:
 * the store's data version is the same (any request that is not a GET moves it, see src/store/data-version.ts)
 * and so is the sandbox clock's second. The answer is built for the start of that second, so a real clock shows
 * time-driven changes (a survey whose end passes) within a second, and a frozen clock (tests, replays) exactly.
 * The key must hold everything else the answer depends on (tenant, user, query, base URL, scenario options).
 *
 * With `selfCheck` (the test suite) every request builds the answer afresh, fails if a kept answer differs from it,
 * and sends the fresh one through the route's serializer.
 */
export function answerCache(options: { selfCheck: boolean }) {
  const kept = new WeakMap<Data, Map<string, Kept>>();
  /** The answer to send (selfCheck), or nothing when the kept text was sent already. */
  return <T>(req: FastifyRequest, reply: FastifyReply, key: string, build: (now: Date) => T): T | undefined => {
    const { clock, data } = req.sandbox;
    const nowMs = clock.nowMs();
    const at = clock.mode === 'frozen' ? nowMs : nowMs - (nowMs % 1000);
    const fullKey = `${at}|${key}`;
    const version = dataVersion(data);
    let perStore = kept.get(data);
    if (!perStore) { perStore = new Map(); kept.set(data, perStore); }
    const hit = perStore.get(fullKey);
    if (hit && hit.version === version && !options.selfCheck) {
      reply.type('application/json; charset=utf-8').send(hit.text);
      return undefined;
    }
    const answer = build(new Date(at));
    const text = JSON.stringify(answer);
    if (hit && hit.version === version && hit.text !== text) throw new Error(`kept answer for ${req.url} is stale:\n${hit.text.slice(0, 500)}\n${text.slice(0, 500)}`);
    if (perStore.size >= keptPerStore) perStore.clear();
    perStore.set(fullKey, { version, text });
    if (options.selfCheck) return answer;
    reply.type('application/json; charset=utf-8').send(text);
    return undefined;
  };
}
