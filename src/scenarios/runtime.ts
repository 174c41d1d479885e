// Applies the behaviour part of a scenario in one place, keyed by operationId, before auth and the handler:
// latency, faults and stubs. Randomness comes from the sandbox's seeded source, so a flaky run replays.
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SeededRandom } from '../store/random.js';
import { isSideRoute } from '../http/context.js';
import type { Fault, Latency, Scenario, Stub } from './schema.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** the scenario fault that acts on this answer */
    fault: Fault['kind'] | null;
    /** answered by a scenario (stub or fault) rather than the mock's own handler */
    stubbed: boolean;
  }
}

/** Whether a fault leaves the client with no answer at all. */
export const dropsConnection = (kind: Fault['kind'] | null): boolean => kind === 'reset' || kind === 'empty';

const applies = (operations: string[] | undefined, op: string | null) => !operations || (op !== null && operations.includes(op));

/** A delay in ms for one latency rule. */
export function delayOf(rule: Latency, random: SeededRandom): number {
  if (rule.fixedMs !== undefined) return rule.fixedMs;
  if (rule.uniformMs) {
    const { min, max } = rule.uniformMs;
    return Math.round(min + random.next() * Math.max(0, max - min));
  }
  if (rule.longTailMs) {
    // log-normal: median m, p99 = m·e^(2.326σ)
    const { median, p99 } = rule.longTailMs;
    if (median <= 0) return 0;
    const sigma = Math.log(Math.max(p99, median) / median) / 2.326;
    return Math.min(120_000, Math.round(median * Math.exp(sigma * random.normal())));
  }
  return 0;
}

const chance = (p: number | undefined, random: SeededRandom) => p === undefined || p >= 1 || random.next() < p;

export function pickFault(faults: Fault[] | undefined, op: string | null, random: SeededRandom): Fault | null {
  for (const fault of faults ?? []) if (applies(fault.operations, op) && chance(fault.probability, random)) return fault;
  return null;
}

/** Whether a stub is for this request: by operationId (known operations), or by method and exact path (any path). */
function stubMatches(stub: Stub, op: string | null, target: { method: string; path: string } | undefined): boolean {
  if (stub.path !== undefined) return target !== undefined && stub.path === target.path && stub.method?.toUpperCase() === target.method.toUpperCase();
  if (op === null || stub.operationId === undefined) return false;
  return stub.operationId === '*' ? !stub.except?.includes(op) : stub.operationId === op;
}

export function pickStub(scenario: Scenario, op: string | null, random: SeededRandom, uses: Map<string, number>, target?: { method: string; path: string }): Stub | null {
  const stubs = scenario.stubs ?? [];
  for (let i = 0; i < stubs.length; i++) {
    const stub = stubs[i]!;
    if (!stubMatches(stub, op, target)) continue;
    const key = `${scenario.name}#${i}`;
    if (stub.times !== undefined && (uses.get(key) ?? 0) >= stub.times) continue;
    if (!chance(stub.probability, random)) continue;
    if (stub.times !== undefined) uses.set(key, (uses.get(key) ?? 0) + 1);
    return stub;
  }
  return null;
}

/** Whether a scenario has anything that acts on requests (latency, faults, stubs); most have none. */
export const actsOnRequests = (scenario: Scenario | null): boolean =>
  scenario !== null && ((scenario.latency?.length ?? 0) > 0 || (scenario.faults?.length ?? 0) > 0 || (scenario.stubs?.length ?? 0) > 0);

/** The onRequest part: delay, then a connection fault, then a stub. Returns true when the request was answered. */
export async function applyScenario(req: FastifyRequest, reply: FastifyReply): Promise<boolean> {
  const scenario = req.scenario;
  if (!scenario) return false;
  const op = req.operationId;
  if (op?.startsWith('admin') || isSideRoute(req.url)) return false;
  const { random, stubUses } = req.sandbox;

  let delay = 0;
  for (const rule of scenario.latency ?? []) if (applies(rule.operations, op)) delay += delayOf(rule, random);
  if (delay > 0) await sleep(delay);

  const fault = pickFault(scenario.faults, op, random);
  if (fault) {
    req.fault = fault.kind;
    req.stubbed = true;
    // a broken body goes out uncompressed, so the half that arrives is the answer's own text (the compression
    // plugin's documented opt-out); compressed, a truncated stream would fail before its headers and answer 500
    if (fault.kind === 'truncated' || fault.kind === 'malformed') req.headers['x-no-compression'] = 'scenario fault';
  }
  if (fault && dropsConnection(fault.kind)) {
    reply.hijack();
    const socket = req.raw.socket;
    if (fault.kind === 'reset' && typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
    else socket.destroy();
    return true;
  }

  const stub = pickStub(scenario, op, random, stubUses, { method: req.method, path: req.url.split('?')[0] ?? req.url });
  if (stub) {
    req.stubbed = true;
    reply.code(stub.status).headers(stub.headers ?? {});
    if (stub.body === undefined) await reply.send();
    else if (typeof stub.body === 'string') await reply.type(stub.headers?.['content-type'] ?? 'text/plain; charset=utf-8').serializer((v: unknown) => String(v)).send(stub.body);
    else await reply.type('application/json; charset=utf-8').serializer((v: unknown) => JSON.stringify(v)).send(stub.body);
    return true;
  }
  return false;
}

/** The onSend part: a body fault breaks the payload (malformed) or the stream (truncated: half, then the connection drops). */
export function applyBodyFault(req: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
  if ((req.fault !== 'truncated' && req.fault !== 'malformed') || (typeof payload !== 'string' && !Buffer.isBuffer(payload))) return payload;
  const text = String(payload);
  const half = text.slice(0, Math.max(1, Math.floor(text.length / 2)));
  if (req.fault === 'malformed') return `${half}\u0000<<not json`;
  reply.removeHeader('content-length');
  let sent = false;
  return new Readable({
    read() {
      if (!sent) {
        sent = true;
        this.push(half);
        setImmediate(() => this.destroy(new Error('truncated by scenario fault')));
      }
    },
  });
}
