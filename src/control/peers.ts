// The control plane's side of --peers (docs/cluster.md): one listing of every instance's sandboxes, and an admin call
// about a sandbox another instance holds done by that instance. Who holds a sandbox: src/http/peers.ts.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import type { SandboxInfo } from '../schemas/control.js';
import { exchange } from '../http/forward.js';
import { askPeers, jsonOf, ownerDidNotAnswer, ownerElsewhere, peerHeaders, why } from '../http/peers.js';

/** How long an owner may take to answer a forwarded admin call (a reset of a large sandbox included). */
const forwardTimeoutMs = 10_000;

/**
 * This instance's sandboxes and every peer's, each named once with the instance that holds it; peers that did not
 * answer, as "peer: why"; and the names more than one instance holds ("name: instance, instance"), listed with the
 * first instance that answered for it (this one first). A name held twice is made only by a ring change that
 * scripts/move-sandboxes.mjs has not followed yet, or by files from before one copy was enforced: the listing says
 * so instead of showing it twice.
 */
export async function clusterSandboxes(
  app: FastifyInstance,
  local: SandboxInfo[],
): Promise<{ sandboxes: SandboxInfo[]; unreachable: string[]; copies: string[] }> {
  const seen = new Set([app.instance.name]);
  const sandboxes = [...local];
  const holders = new Map(local.map((s) => [s.name, [s.instance]]));
  const unreachable: string[] = [];
  for (const a of await askPeers(app, '/__admin/sandboxes?scope=local')) {
    if (a.status !== 200 || !Array.isArray(a.body)) unreachable.push(why(app, a));
    else if (!seen.has(a.instance!)) {
      // dns:NAME lists this instance too; one instance may have several addresses
      seen.add(a.instance!);
      for (const s of a.body as SandboxInfo[]) {
        const held = holders.get(s.name);
        // every instance has its own default sandbox: each is listed, they are not copies of one
        if (held && s.name !== 'default') held.push(s.instance);
        else {
          holders.set(s.name, [s.instance]);
          sandboxes.push(s);
        }
      }
    }
  }
  const copies = [...holders]
    .filter(([name, on]) => name !== 'default' && on.length > 1)
    .map(([name, on]) => `${name}: ${on.join(', ')}`);
  return { sandboxes, unreachable, copies };
}

/** Whether the route says it answers `type` for `status` (the QR code's SVG), beside the JSON of every route. */
function declares(req: FastifyRequest, status: number, type: string): boolean {
  const responses = (req.routeOptions.schema?.response ?? {}) as Record<string, { content?: Record<string, unknown> }>;
  return Object.keys(responses[String(status)]?.content ?? {}).includes(type);
}

/**
 * When a peer holds sandbox `name` and this instance does not, sends the admin call there (once: a forwarded call is
 * never forwarded again) and relays its answer; false when the call is this instance's to answer. While a peer that
 * may hold it cannot be asked: the 503 of ownerElsewhere, and nothing is done here.
 */
export async function forwardToOwner(req: FastifyRequest, reply: FastifyReply, name: string): Promise<boolean> {
  const owner = await ownerElsewhere(req, reply, name);
  if (!owner?.base) return false;
  const app = req.server;
  // the name travels as the sandbox key, whatever named it here (header, prefix, query, body; a DELETE's too)
  const headers = { ...peerHeaders(app), 'content-type': 'application/json', 'x-mock-sandbox': name };
  const body = req.body === undefined ? null : JSON.stringify(req.body);
  const sent = await exchange(
    owner.base + req.url,
    { method: req.method, headers, body },
    forwardTimeoutMs,
    async (res) => {
      // inside: an owner that dies mid-answer, or answers what the route never does (a proxy's HTML page), is a 502
      const type = res.headers.get('content-type')?.split(';')[0]?.trim() ?? '';
      let answer: unknown;
      if (req.method === 'HEAD') {
        await res.body?.cancel(); // an answer without a body: its status and type are the answer
        if (type !== '') reply.type(res.headers.get('content-type')!);
      } else if (type !== '' && declares(req, res.status, type)) {
        answer = Buffer.from(await res.arrayBuffer());
        reply.type(res.headers.get('content-type')!);
      } else answer = await jsonOf(res);
      return { res, answer };
    },
  );
  if (!sent.ok) {
    throw new ApiError('badGateway', ownerDidNotAnswer(owner, name, sent.why));
  }
  const { res, answer } = sent.value;
  const instance = res.headers.get('x-mock-instance') ?? owner.instance!;
  await reply.code(res.status).header('x-mock-instance', instance).send(answer);
  return true;
}
