// The other instances of a deployment (--peers): their sandboxes for the one listing, and the owner of a sandbox
// for the calls that name it in the path or arrive at another instance than the balancer would pick (docs/cluster.md).
import { lookup } from 'node:dns/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import type { SandboxInfo } from '../schemas/control.js';
import { isSandboxName } from '../store/sandbox.js';
import { header } from '../http/context.js';

/** A peer that does not answer within this is reported as unreachable, not waited for any longer. */
const peerTimeoutMs = 1500;

type PeerAnswer = { peer: string; base?: string; status?: number; instance?: string; body?: unknown; error?: string };

/** `work`, or after peerTimeoutMs an error whose code says so: a resolver that hangs must not hold the call either. */
function withinPeerTimeout<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    const code = `no answer within ${peerTimeoutMs} ms`;
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

const peerHeaders = (app: FastifyInstance): Record<string, string> => ({
  accept: 'application/json',
  'x-mock-forwarded': app.instance.name,
  ...(app.config.adminToken ? { authorization: `Bearer ${app.config.adminToken}` } : {}),
});

/**
 * A peer's answer as JSON. Anything else (a proxy's HTML error page, an answer broken off) throws an error that
 * says what came, so the caller answers 502 or 503 naming the peer, never a 500.
 */
async function jsonOf(res: Response): Promise<unknown> {
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
  try {
    const res = await fetch(p.base + path, { headers: peerHeaders(app), signal: AbortSignal.timeout(peerTimeoutMs) });
    return {
      ...p,
      status: res.status,
      instance: res.headers.get('x-mock-instance') ?? p.base,
      body: await jsonOf(res),
    };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string; message?: string } };
    if (e.name === 'TimeoutError') return { ...p, error: `no answer within ${peerTimeoutMs} ms` };
    return { ...p, error: e.cause?.code ?? e.cause?.message ?? e.message };
  }
}

/** GET `path` of every peer at once; each answer or why there is none. */
async function askPeers(app: FastifyInstance, path: string): Promise<PeerAnswer[]> {
  return Promise.all((await peerBases(app)).map((p) => askPeer(app, p, path)));
}

const why = (a: PeerAnswer) => `${a.peer}: ${a.error ?? `status ${a.status}`}`;

/** This instance's sandboxes and every peer's, each naming its instance; peers that did not answer, as "peer: why". */
export async function clusterSandboxes(
  app: FastifyInstance,
  local: SandboxInfo[],
): Promise<{ sandboxes: SandboxInfo[]; unreachable: string[] }> {
  const seen = new Set([app.instance.name]);
  const sandboxes = [...local];
  const unreachable: string[] = [];
  for (const a of await askPeers(app, '/__admin/sandboxes?scope=local')) {
    if (a.status !== 200 || !Array.isArray(a.body)) unreachable.push(why(a));
    else if (!seen.has(a.instance!)) {
      // dns:NAME lists this instance too; one instance may have several addresses
      seen.add(a.instance!);
      sandboxes.push(...(a.body as SandboxInfo[]));
    }
  }
  return { sandboxes, unreachable };
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
  return { unreachable: answers.filter((a) => a.status !== 404 && a.instance !== app.instance.name).map(why) };
}

/**
 * When this instance does not hold sandbox `name` but a peer does, sends the admin call there (once: a forwarded
 * call is never forwarded again) and relays its answer; false when the call is this instance's to answer. When no
 * peer holds it but some could not be asked (down, frozen, not resolving), one of them may: 503 naming them, and
 * nothing is done here, so no second copy of the sandbox is made. Unless the balancer routed the call here by this
 * very name (deploy/haproxy.cfg says so in x-mock-routing-key): then this instance is the name's owner, as for any
 * request with that key, and an unrelated instance being down does not stop it.
 */
export async function forwardToOwner(req: FastifyRequest, reply: FastifyReply, name: string): Promise<boolean> {
  const app = req.server;
  if (app.config.peers.length === 0 || req.headers['x-mock-forwarded'] !== undefined) return false;
  if (!isSandboxName(name) || app.sandboxes.find(name)) return false; // an invalid name is the handler's 400 or 404
  const { owner, unreachable } = await findOwner(app, name);
  if (!owner?.base) {
    if (unreachable.length === 0 || header(req, 'x-mock-routing-key') === name) return false;
    reply.header('x-mock-unreachable-peers', unreachable.join('; '));
    throw new ApiError(
      'instanceDown',
      `sandbox "${name}" is not on instance ${app.instance.name} and may live on a ` +
        `peer that could not be asked (${unreachable.join('; ')}); nothing was done: try again once they answer`,
    );
  }
  // the name travels as the sandbox key, except for DELETE /__admin/sandboxes/NAME, whose path names it
  const headers = {
    ...peerHeaders(app),
    'content-type': 'application/json',
    ...(req.method === 'DELETE' ? {} : { 'x-mock-sandbox': name }),
  };
  let res, answer;
  try {
    res = await fetch(owner.base + req.url, {
      method: req.method,
      headers,
      body: req.body === undefined ? null : JSON.stringify(req.body),
      signal: AbortSignal.timeout(10_000),
    });
    answer = await jsonOf(res); // inside: an owner that dies mid-answer or answers HTML is a 502 too
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    throw new ApiError(
      'badGateway',
      `sandbox "${name}" lives on instance ${owner.instance}, which did not answer: ` +
        `${e.name === 'TimeoutError' ? 'no answer within 10000 ms' : (e.cause?.code ?? e.message)} (peer ${owner.peer})`,
    );
  }
  const instance = res.headers.get('x-mock-instance') ?? owner.instance;
  await reply.code(res.status).header('x-mock-instance', instance).send(answer);
  return true;
}
