import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SandboxStore } from '../store/store.js';
import { baseUrl } from './context.js';

type Kept = { version: number; text: string };
const keptPerStore = 500;

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
  const kept = new WeakMap<SandboxStore, Map<string, Kept>>();
  // Sends and returns nothing: call it from a handler that is not async and returns nothing, so Fastify has no
  // promise or thenable reply to wait on (a returned reply makes it watch the socket for the end of the answer).
  return <T>(req: FastifyRequest, reply: FastifyReply, key: string, build: (now: Date) => T): void => {
    const { clock, store } = req.mock.sandbox;
    const nowMs = clock.nowMs();
    const at = clock.mode === 'frozen' ? nowMs : nowMs - (nowMs % 1000);
    const fullKey = `${at}|${key}`;
    let perStore = kept.get(store);
    if (!perStore) {
      perStore = new Map();
      kept.set(store, perStore);
    }
    let answer = perStore.get(fullKey);
    if (answer?.version !== store.version) {
      if (perStore.size >= keptPerStore) perStore.clear();
      answer = { version: store.version, text: String(reply.serialize(build(new Date(at)))) };
      perStore.set(fullKey, answer);
    }
    reply.type('application/json; charset=utf-8').send(answer.text);
  };
}
