// The other instances of a deployment (--peers): their sandboxes for the one listing, and the owner of a sandbox
// for the calls that name it in the path or arrive at another instance than the balancer would pick (docs/cluster.md).
import { lookup } from 'node:dns/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import type { SandboxInfo } from '../schemas/admin.js';

/** A peer that does not answer within this is reported, never waited for. */
const peerTimeoutMs = 1500;

type PeerAnswer = { peer: string; base?: string; status?: number; instance?: string; body?: unknown; error?: string };

/** The peers' base URLs now: dns:NAME:PORT is resolved on every call, as pods come and go. */
async function peerBases(app: FastifyInstance): Promise<PeerAnswer[]> {
  const entries = app.config.peers.flatMap((p) => p.split(',')).map((p) => p.trim().replace(/\/+$/, '')).filter((p) => p !== '');
  const lists = await Promise.all(entries.map(async (peer): Promise<PeerAnswer[]> => {
    const dns = /^dns:(.+):(\d+)$/.exec(peer);
    if (!dns) return [{ peer, base: peer }];
    try {
      const found = await lookup(dns[1]!, { all: true });
      return found.map((a) => ({ peer, base: `http://${a.family === 6 ? `[${a.address}]` : a.address}:${dns[2]}` }));
    } catch (err) {
      return [{ peer, error: `does not resolve (${(err as NodeJS.ErrnoException).code ?? String(err)})` }];
    }
  }));
  return lists.flat();
}

const peerHeaders = (app: FastifyInstance): Record<string, string> =>
  ({ accept: 'application/json', 'x-mock-forwarded': app.instance.name, ...(app.config.adminToken ? { authorization: `Bearer ${app.config.adminToken}` } : {}) });

/** GET `path` of every peer at once; each answer or why there is none. */
async function askPeers(app: FastifyInstance, path: string): Promise<PeerAnswer[]> {
  return Promise.all((await peerBases(app)).map(async (p): Promise<PeerAnswer> => {
    if (!p.base) return p;
    try {
      const res = await fetch(p.base + path, { headers: peerHeaders(app), signal: AbortSignal.timeout(peerTimeoutMs) });
      return { ...p, status: res.status, instance: res.headers.get('x-mock-instance') ?? p.base, body: await res.json() };
    } catch (err) {
      const e = err as Error & { cause?: { code?: string; message?: string } };
      return { ...p, error: e.name === 'TimeoutError' ? `no answer within ${peerTimeoutMs} ms` : e.cause?.code ?? e.cause?.message ?? e.message };
    }
  }));
}

/** This instance's sandboxes and every peer's, each naming its instance; peers that did not answer, as "peer: why". */
export async function clusterSandboxes(app: FastifyInstance, local: SandboxInfo[]): Promise<{ sandboxes: SandboxInfo[]; unreachable: string[] }> {
  const seen = new Set([app.instance.name]);
  const sandboxes = [...local];
  const unreachable: string[] = [];
  for (const a of await askPeers(app, '/__admin/sandboxes?scope=local')) {
    if (a.status !== 200 || !Array.isArray(a.body)) unreachable.push(`${a.peer}: ${a.error ?? `status ${a.status}`}`);
    else if (!seen.has(a.instance!)) { // dns:NAME lists this instance too; one instance may have several addresses
      seen.add(a.instance!);
      sandboxes.push(...(a.body as SandboxInfo[]));
    }
  }
  return { sandboxes, unreachable };
}

/**
 * When this instance does not hold sandbox `name` but a peer does, sends the admin call there (once: a forwarded
 * call is never forwarded again) and relays its answer; false when the call is this instance's to answer.
 */
export async function forwardToOwner(req: FastifyRequest, reply: FastifyReply, name: string): Promise<boolean> {
  const app = req.server;
  if (app.config.peers.length === 0 || req.headers['x-mock-forwarded'] !== undefined || app.sandboxes.find(name)) return false;
  const owner = (await askPeers(app, `/__admin/sandboxes/${encodeURIComponent(name)}?scope=local`))
    .find((a) => a.status === 200 && a.instance !== app.instance.name);
  if (!owner?.base) return false;
  // the name travels as the sandbox key, except for DELETE /__admin/sandboxes/NAME, whose path names it
  const headers = { ...peerHeaders(app), 'content-type': 'application/json', ...(req.method === 'DELETE' ? {} : { 'x-mock-sandbox': name }) };
  let res;
  try {
    res = await fetch(owner.base + req.url, { method: req.method, headers, body: req.body === undefined ? null : JSON.stringify(req.body), signal: AbortSignal.timeout(10_000) });
  } catch (err) {
    throw new ApiError('badGateway', `sandbox "${name}" lives on instance ${owner.instance}, which did not answer: ${(err as Error).message}`);
  }
  await reply.code(res.status).header('x-mock-instance', res.headers.get('x-mock-instance') ?? owner.instance).send(await res.json());
  return true;
}
