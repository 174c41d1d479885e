// The other instances of a deployment (--peers), as a request needs them: which one holds a sandbox, and relaying a
// portal call to it. One copy of each sandbox, always (docs/cluster.md): a request about a sandbox this instance does
// not hold is answered by the instance that does, or is a 503 while a peer that may hold it cannot be asked; it never
// makes a copy here. The control plane's listing and its JSON forwarding build on this (src/control/peers.ts).
import { lookup } from 'node:dns/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, ErrorKinds, errorBody } from '../errors.js';
import { isSandboxName } from '../store/sandbox.js';
import { header } from './context.js';
import { exchange, noAnswerWithin, relay } from './forward.js';

/** A peer that does not answer within this is reported as unreachable, not waited for any longer. */
export const peerTimeoutMs = 1500;

/**
 * How long a relayed portal call may wait for the owner's answer: a scenario may delay an answer by up to 120 s
 * (src/schemas/scenario.ts, Latency), so a shorter bound would cut answers the owner gives on purpose.
 */
const portalRelayTimeoutMs = 125_000;

export type PeerAnswer = {
  peer: string;
  base?: string;
  status?: number;
  instance?: string;
  body?: unknown;
  error?: string;
};

/** `work`, or after peerTimeoutMs an error whose code says so: a resolver that hangs must not hold the call either. */
function withinPeerTimeout<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    const code = noAnswerWithin(peerTimeoutMs);
    timer = setTimeout(() => reject(Object.assign(new Error(code), { code })), peerTimeoutMs);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** The peers' base URLs now: dns:NAME:PORT is resolved on every call, as pods come and go. */
async function peerBases(app: FastifyInstance): Promise<PeerAnswer[]> {
  const entries = app.config.peers
    .flatMap((p) => p.split(','))
    .map((p) => p.trim().replace(/\/+$/, ''))
    .filter((p) => p !== '');
  const lists = await Promise.all(
    entries.map(async (peer): Promise<PeerAnswer[]> => {
      const dns = /^dns:(.+):(\d+)$/.exec(peer);
      if (!dns) return [{ peer, base: peer }];
      try {
        const found = await withinPeerTimeout(lookup(dns[1]!, { all: true }));
        return found.map((a) => ({ peer, base: `http://${a.family === 6 ? `[${a.address}]` : a.address}:${dns[2]}` }));
      } catch (err) {
        return [{ peer, error: `does not resolve (${(err as NodeJS.ErrnoException).code ?? String(err)})` }];
      }
    }),
  );
  return lists.flat();
}

export const peerHeaders = (app: FastifyInstance): Record<string, string> => ({
  accept: 'application/json',
  'x-mock-forwarded': app.instance.name,
  ...(app.config.adminToken ? { authorization: `Bearer ${app.config.adminToken}` } : {}),
});

/**
 * The instance name each peer address last answered with, so that a 503 about a peer that is down names the
 * instance too (its address alone says little in a listing of instance names). Keyed by the --peers addresses and
 * what their names resolve to, not by client input; emptied when it fills, as a handful of peers is the rule.
 */
const knownNames = new WeakMap<object, Map<string, string>>(); // by app.instance: one object for every context
const knownNamesKept = 256;

function remember(app: FastifyInstance, base: string, instance: string): void {
  const names = knownNames.get(app.instance) ?? new Map<string, string>();
  knownNames.set(app.instance, names);
  if (names.size >= knownNamesKept && !names.has(base)) names.clear();
  names.set(base, instance);
}

/**
 * A peer's answer as JSON. Anything else (a proxy's HTML error page, an answer broken off) throws an error that
 * says what came, so the caller answers 502 or 503 naming the peer, never a 500.
 */
export async function jsonOf(res: Response): Promise<unknown> {
  const type = res.headers.get('content-type')?.split(';')[0]?.trim() ?? '';
  if (!/^application\/(.+\+)?json$/i.test(type)) {
    await res.body?.cancel().catch(() => {}); // the connection is not kept waiting for a body nobody reads
    throw new Error(`answered ${res.status} ${type || 'without a content type'}, not JSON`);
  }
  try {
    return await res.json();
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    throw new Error(e.name === 'SyntaxError' ? `answered malformed JSON (${e.message})` : (e.cause?.code ?? e.message));
  }
}

/** GET `path` of one peer: its answer or why there is none. */
async function askPeer(app: FastifyInstance, p: PeerAnswer, path: string): Promise<PeerAnswer> {
  if (!p.base) return p;
  const base = p.base;
  const asked = await exchange(base + path, { headers: peerHeaders(app) }, peerTimeoutMs, async (res) => {
    const instance = res.headers.get('x-mock-instance');
    if (instance) remember(app, base, instance);
    return { ...p, status: res.status, instance: instance ?? base, body: await jsonOf(res) };
  });
  return asked.ok ? asked.value : { ...p, error: asked.why };
}

/** GET `path` of every peer at once; each answer or why there is none. */
export async function askPeers(app: FastifyInstance, path: string): Promise<PeerAnswer[]> {
  return Promise.all((await peerBases(app)).map((p) => askPeer(app, p, path)));
}

/** "peer (instance): why" of a peer that gave no usable answer; the instance as it last answered, when it has. */
export function why(app: FastifyInstance, a: PeerAnswer): string {
  const name = a.base ? knownNames.get(app.instance)?.get(a.base) : undefined;
  return `${a.peer}${name ? ` (${name})` : ''}: ${a.error ?? `status ${a.status}`}`;
}

/**
 * The peer that holds sandbox `name`: the first to say so, without waiting for the others (a name lives on one
 * instance); else the peers that could not be asked ("peer: why"), none when every peer answered that it does not.
 */
async function findOwner(app: FastifyInstance, name: string): Promise<{ owner?: PeerAnswer; unreachable: string[] }> {
  const path = `/__admin/sandboxes/${encodeURIComponent(name)}?scope=local`;
  const asked = (await peerBases(app)).map((p) => askPeer(app, p, path));
  const holds = (a: PeerAnswer) => a.status === 200 && a.instance !== app.instance.name; // dns:NAME lists this one too
  const owner = await Promise.any(
    asked.map(async (answer) => {
      const a = await answer;
      if (!holds(a)) throw new Error('does not hold it');
      return a;
    }),
  ).catch(() => undefined);
  if (owner) return { owner, unreachable: [] };
  const answers = await Promise.all(asked); // all settled: Promise.any rejects only once every one has
  return {
    unreachable: answers.filter((a) => a.status !== 404 && a.instance !== app.instance.name).map((a) => why(app, a)),
  };
}

/**
 * The sandbox each request was already checked for (a control-plane route that names a second sandbox in its path
 * checks that one too), so that a request never asks the peers twice about one name.
 */
const checked = new WeakMap<FastifyRequest, string>();

/**
 * Whether this instance answers a request about sandbox `name` without asking anyone: no --peers, a call another
 * instance forwarded here (never forwarded again), a name that is not valid (the route's 400 or 404), or a sandbox
 * this instance holds.
 */
export function answeredHere(req: FastifyRequest, name: string): boolean {
  const app = req.server;
  return (
    app.config.peers.length === 0 ||
    req.headers['x-mock-forwarded'] !== undefined ||
    checked.get(req) === name ||
    !isSandboxName(name) ||
    app.sandboxes.find(name) !== undefined
  );
}

/**
 * The instance that answers a request about sandbox `name`, which this instance does not hold: the peer that holds
 * it, or undefined when this instance is to answer (and may make it) because every peer said it does not. When no
 * peer holds it but some could not be asked (down, frozen, not resolving), one of them may: a 503 naming them (also
 * in x-mock-unreachable-peers), so that no second copy is made here. Unless the balancer routed the call here by
 * this very name (deploy/haproxy.cfg says so in x-mock-routing-key): then this instance is the name's owner, as for
 * any request with that key, and an unrelated instance being down does not stop it.
 */
export async function ownerElsewhere(
  req: FastifyRequest,
  reply: FastifyReply,
  name: string,
): Promise<PeerAnswer | undefined> {
  if (answeredHere(req, name)) return undefined;
  const app = req.server;
  const { owner, unreachable } = await findOwner(app, name);
  checked.set(req, name);
  if (owner?.base) return owner;
  if (unreachable.length === 0 || header(req, 'x-mock-routing-key') === name) return undefined;
  reply.header('x-mock-unreachable-peers', unreachable.join('; '));
  throw new ApiError(
    'instanceDown',
    `sandbox "${name}" is not on instance ${app.instance.name} and may live on a ` +
      `peer that could not be asked (${unreachable.join('; ')}); nothing was done: try again once they answer`,
  );
}

/** The message of a call the owner of a sandbox did not answer: relayed here, or forwarded by the control plane. */
export const ownerDidNotAnswer = (owner: PeerAnswer, name: string, why: string): string =>
  `sandbox "${name}" lives on instance ${owner.instance}, which did not answer: ${why} (peer ${owner.peer})`;

/**
 * Relays a portal request, as it arrived, to the instance that holds its sandbox, and that instance's answer back as
 * it is (a file, a page, an image alike: src/http/forward.ts). The call is the owner's: its journal, findings and
 * scenario see it, this instance's do not. An owner that does not answer within portalRelayTimeoutMs, or breaks off,
 * is a 502 naming it while no answer has started.
 */
export function relayToOwner(req: FastifyRequest, reply: FastifyReply, owner: PeerAnswer, name: string): void {
  const app = req.server;
  relay(req, reply, new URL(req.originalUrl, owner.base), {
    add: { 'x-mock-forwarded': app.instance.name },
    timeoutMs: portalRelayTimeoutMs,
    failed: (why) => ({
      status: 502,
      headers: { 'content-type': 'application/json; charset=utf-8', 'x-mock-instance': app.instance.name },
      body: JSON.stringify(errorBody(502, ErrorKinds.badGateway.code, ownerDidNotAnswer(owner, name, why))),
    }),
  });
}
