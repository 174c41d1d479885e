// Applies the behaviour part of a scenario in one place, keyed by operationId: before auth and the handler latency,
// faults and stubs; on the way out faults after the commit and the bandwidth limit. Randomness comes from the
// sandbox's seeded source (every fault is picked on arrival), so a flaky run replays.
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SeededRandom } from '../store/random.js';
import { pathOf } from '../http/context.js';
import type { Fault, Latency, Scenario, Stub } from '../schemas/scenario.js';
import { jsonMatches, RegexBudget, textMatches } from '../shared/matchers.js';

/** Whether a fault leaves the client with no answer at all. */
export const dropsConnection = (kind: Fault['kind'] | null): boolean => kind === 'reset' || kind === 'empty';

const applies = (operations: string[] | undefined, op: string | null) =>
  !operations || (op !== null && operations.includes(op));

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

function pickFault(faults: Fault[] | undefined, op: string | null, random: SeededRandom): Fault | null {
  for (const fault of faults ?? [])
    if (applies(fault.operations, op) && chance(fault.probability, random)) return fault;
  return null;
}

// one budget of regular-expression work per request, shared by its arrival and body stages: a request that would
// take more is answered as if the remaining regex matchers did not match (docs/scenarios.md, "Matching requests")
const budgets = new WeakMap<FastifyRequest, RegexBudget>();
function budgetOf(req: FastifyRequest): RegexBudget {
  let budget = budgets.get(req);
  if (!budget) {
    const { regexBudget, regexMaxText } = req.server.config;
    budget = new RegexBudget({ budget: regexBudget, maxText: regexMaxText });
    budgets.set(req, budget);
  }
  return budget;
}

/** Whether a stub is for this request: by operationId (known operations), or by method and exact path (any path). */
function stubMatches(stub: Stub, op: string | null, req: FastifyRequest): boolean {
  if (stub.path !== undefined) {
    if (stub.path !== pathOf(req) || stub.method?.toUpperCase() !== req.method.toUpperCase()) return false;
  } else if (op === null || stub.operationId === undefined) return false;
  else if (stub.operationId === '*' ? stub.except?.includes(op) : stub.operationId !== op) return false;
  const { query, headers } = stub.match ?? {};
  const received = req.query as Record<string, string | string[] | undefined>;
  for (const [name, m] of Object.entries(query ?? {}))
    if (!textMatches(m, valuesOf(received, name), budgetOf(req))) return false;
  for (const [name, m] of Object.entries(headers ?? {}))
    if (!textMatches(m, valuesOf(req.headers, name.toLowerCase()), budgetOf(req))) return false;
  return true;
}

/** The values of a parameter or header (own keys only: `constructor` is no header), undefined when absent. */
function valuesOf(from: Record<string, string | string[] | undefined>, name: string): string[] | undefined {
  const v = Object.hasOwn(from, name) ? from[name] : undefined;
  return v === undefined ? undefined : Array.isArray(v) ? v : [v];
}

/** A stub with a body matcher waits for the body (preValidation); the others answer on arrival (onRequest). */
const needsBody = (stub: Stub) => stub.match?.body !== undefined;

/** The parsed body when the request is JSON (the journal's parser, or Fastify's, made it), else undefined. */
function jsonBody(req: FastifyRequest): unknown {
  return /\bjson\b/i.test(req.headers['content-type'] ?? '') ? req.body : undefined;
}

/**
 * The first stub, in the scenario's order, that is for this request at this stage, has uses left and wins its
 * draw; its use is counted.
 */
function pickStub(req: FastifyRequest, scenario: Scenario, stage: 'arrival' | 'body'): number | null {
  const { random, stubUses } = req.mock.sandbox;
  const body = stage === 'body' ? jsonBody(req) : undefined;
  for (const [i, stub] of (scenario.stubs ?? []).entries()) {
    if (needsBody(stub) !== (stage === 'body') || !stubMatches(stub, req.mock.operationId, req)) continue;
    if (stage === 'body' && (body === undefined || !jsonMatches(stub.match!.body, body, budgetOf(req)))) continue;
    const key = `${scenario.name}#${i}`;
    const used = stubUses.get(key) ?? 0;
    if (stub.times !== undefined && used >= stub.times) continue;
    if (!chance(stub.probability, random)) continue;
    if (stub.times !== undefined) stubUses.set(key, used + 1);
    return i;
  }
  return null;
}

/** Answers with the stub at `index` of the request's scenario, when one is for it at this stage. */
async function answerWithStub(req: FastifyRequest, reply: FastifyReply, stage: 'arrival' | 'body'): Promise<boolean> {
  const scenario = req.mock.scenario;
  const index = scenario ? pickStub(req, scenario, stage) : null;
  if (index === null) return false;
  const stub = scenario!.stubs![index]!;
  req.mock.stubbed = true;
  req.mock.stub = stub.name === undefined ? { index } : { index, name: stub.name };
  reply.code(stub.status).headers(stub.headers ?? {});
  if (stub.body === undefined) await reply.send();
  else if (typeof stub.body === 'string')
    await reply
      .type(stub.headers?.['content-type'] ?? 'text/plain; charset=utf-8')
      .serializer((v: unknown) => String(v))
      .send(stub.body);
  else
    await reply
      .type('application/json; charset=utf-8')
      .serializer((v: unknown) => JSON.stringify(v))
      .send(stub.body);
  return true;
}

/** Whether the scenario has stubs that wait for the request body. */
export const hasBodyStubs = (scenario: Scenario | null): boolean => scenario?.stubs?.some(needsBody) ?? false;

/** The preValidation part: the stubs with a body matcher, once the body is parsed. True when one answered. */
export const applyBodyStubs = (req: FastifyRequest, reply: FastifyReply): Promise<boolean> =>
  answerWithStub(req, reply, 'body');

/** Whether a scenario has anything that acts on requests (latency, faults, stubs); most have none. */
export const actsOnRequests = (scenario: Scenario | null): boolean =>
  scenario !== null &&
  ((scenario.latency?.length ?? 0) > 0 || (scenario.faults?.length ?? 0) > 0 || (scenario.stubs?.length ?? 0) > 0);

/** The onRequest part: delay, then a connection fault, then a stub. Returns true when the request was answered. */
export async function applyScenario(req: FastifyRequest, reply: FastifyReply): Promise<boolean> {
  const scenario = req.mock.scenario;
  if (!scenario) return false;
  const op = req.mock.operationId;
  const { random } = req.mock.sandbox;

  let delay = 0;
  for (const rule of scenario.latency ?? []) if (applies(rule.operations, op)) delay += delayOf(rule, random);
  if (delay > 0) await sleep(delay);

  const fault = pickFault(scenario.faults, op, random);
  if (fault) {
    req.mock.fault = fault.kind;
    req.mock.stubbed = true;
    req.mock.faultAfterCommit = fault.phase === 'after-commit' || !dropsConnection(fault.kind);
    // a broken answer goes out uncompressed, so the half that arrives is the answer's own text (the compression
    // plugin's documented opt-out); compressed, a truncated stream would fail before its headers and answer 500
    req.headers['x-no-compression'] = 'scenario fault';
    if (!req.mock.faultAfterCommit) {
      reply.hijack();
      dropConnection(reply, fault.kind);
      return true;
    }
  }

  return answerWithStub(req, reply, 'arrival');
}

/** Resets the connection (RST) or closes it (FIN) with nothing more sent (inject has no socket: its response is destroyed). */
export function dropConnection(reply: FastifyReply, kind: Fault['kind']): void {
  const socket = reply.raw.socket;
  if (kind === 'reset' && typeof socket?.resetAndDestroy === 'function') socket.resetAndDestroy();
  else reply.raw.destroy();
}

/**
 * The onSend part, after the sandbox's commit (request-context's onSend runs first): an after-commit reset or empty
 * drops the connection, so the change happened (and is in the --data log) but the client never hears of it; a body
 * fault breaks the payload (malformed) or the stream (truncated: half, then the connection drops).
 */
export function applyBodyFault(req: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
  if (req.mock.faultAfterCommit && dropsConnection(req.mock.fault)) {
    dropConnection(reply, req.mock.fault!);
    return payload; // Node discards writes to a destroyed socket (inject has none: it gets the answer)
  }
  if (
    (req.mock.fault !== 'truncated' && req.mock.fault !== 'malformed') ||
    (typeof payload !== 'string' && !Buffer.isBuffer(payload))
  )
    return payload;
  const text = String(payload);
  const half = text.slice(0, Math.max(1, Math.floor(text.length / 2)));
  if (req.mock.fault === 'malformed') return `${half}\u0000<<not json`;
  reply.removeHeader('content-length');
  let sent = false;
  return new Readable({
    read() {
      if (sent) return;
      sent = true;
      this.push(half);
      // the connection is closed, not the stream failed: a deliberate fault is one warning line, not an error's stack
      setImmediate(() => {
        req.log.warn({ fault: 'truncated', sentChars: half.length }, 'scenario fault: answer truncated');
        reply.raw.destroy();
      });
    },
  });
}

/** Yields the bytes of `source` in slices, each after its transfer time at `bytesPerSecond` (a serial link). */
async function* throttle(
  source: AsyncIterable<Buffer> | Iterable<Buffer>,
  bytesPerSecond: number,
): AsyncGenerator<Buffer> {
  const slice = Math.max(1, Math.floor(bytesPerSecond / 20)); // about 20 writes a second
  let due = performance.now();
  for await (const bytes of source) {
    for (let i = 0; i < bytes.length; i += slice) {
      const part = bytes.subarray(i, i + slice);
      // a late timer is made up within one slice; time the source was idle is not (no saved-up burst)
      due = Math.max(due, performance.now() - (slice / bytesPerSecond) * 1000) + (part.length / bytesPerSecond) * 1000;
      if (due > performance.now()) await sleep(due - performance.now());
      yield part;
    }
  }
}

/** A body (bytes, or a stream: compression's is a readable-stream one) moved at the scenario's bandwidth, else itself. */
export function throttled<T>(req: FastifyRequest, body: T): T | Readable {
  const rate = req.mock.scenario?.bandwidth?.bytesPerSecond;
  if (!rate || req.method === 'HEAD' || req.raw.socket.destroyed) return body;
  const source =
    typeof body === 'string' || Buffer.isBuffer(body)
      ? body.length > 0
        ? [Buffer.from(body)]
        : null
      : typeof body === 'object' && body !== null && Symbol.asyncIterator in body
        ? (body as AsyncIterable<Buffer>)
        : null;
  return source ? Readable.from(throttle(source, rate), { objectMode: false }) : body;
}

/** The last onSend of a route (after compression): the answer's bytes on the wire move at the scenario's bandwidth. */
export async function throttleAnswer(req: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  const out = throttled(req, payload);
  // the same bytes: a plain answer keeps its length (fastify keeps a set content-length for a stream)
  if (out !== payload && (typeof payload === 'string' || Buffer.isBuffer(payload)))
    reply.header('content-length', Buffer.byteLength(payload));
  return out;
}
