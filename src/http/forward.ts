// The one forwarder: what every request this mock sends on carries and how it goes. Three callers: a portal call
// relayed to the peer that holds its sandbox (streamed, src/http/peers.ts), an admin call sent to that peer
// (src/control/peers.ts), and the pass-through to a real portal (src/proxy/upstream.ts). They share the hop-by-hop
// rule, one bound on each exchange and the words for a peer or upstream that did not answer. Why not
// @fastify/reply-from: docs/proxy.md.
import { request as httpRequest, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Headers that describe one connection, not the message: never forwarded, in either direction. RFC 9110 §7.6.1
 * (Connection and the fields it names, Proxy-Connection, Keep-Alive, TE, Transfer-Encoding, Upgrade); the proxy
 * credentials, which are the next hop's (§11.7.1, §11.7.2); and Trailer (with RFC 2616's misspelling), as neither
 * Node's pipe nor fetch relays trailers, so an answer must not announce any.
 */
export const hopByHop: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'trailers',
  'transfer-encoding',
  'upgrade',
]);

/**
 * Whether a header of a message whose Connection header is `connection` stays on this hop: hop-by-hop, or named in
 * that Connection header (RFC 9110 §7.6.1: "remove any header field with the same name as the connection-option").
 */
export function staysOnThisHop(connection: string | string[] | null | undefined): (name: string) => boolean {
  const listed = [connection ?? []]
    .flat()
    .flatMap((v) => v.split(','))
    .map((v) => v.trim().toLowerCase())
    .filter((v) => v !== '');
  if (listed.length === 0) return (name) => hopByHop.has(name);
  const named = new Set(listed);
  return (name) => hopByHop.has(name) || named.has(name);
}

/** Node's parsed headers less those that stay on this hop and those `dropped` names, as they came (arrays too). */
export function forwardableHeaders(
  headers: IncomingHttpHeaders,
  dropped: (name: string) => boolean = () => false,
): Record<string, string | string[]> {
  const stays = staysOnThisHop(headers.connection);
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !stays(name) && !dropped(name)) out[name] = value;
  }
  return out;
}

/** The words for a call that got no answer in time, the same for peers and the upstream. */
export const noAnswerWithin = (ms: number): string => `no answer within ${ms} ms`;

export type Exchanged<T> = { ok: true; value: T } | { ok: false; timedOut: boolean; why: string };

/**
 * One call with Node's fetch, its answer read by `read`, the whole of it (connect, answer, body) within `timeoutMs`.
 * Never throws: the value `read` made, or why there is none (timed out; else the socket's error code, or the
 * message of what failed, `read`'s own errors included).
 */
export async function exchange<T>(
  url: string,
  init: Omit<RequestInit, 'signal'>,
  timeoutMs: number,
  read: (res: Response) => Promise<T>,
): Promise<Exchanged<T>> {
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    return { ok: true, value: await read(await fetch(url, { ...init, signal })) };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string; message?: string } };
    if (signal.aborted || e.name === 'TimeoutError')
      return { ok: false, timedOut: true, why: noAnswerWithin(timeoutMs) };
    return { ok: false, timedOut: false, why: String(e.cause?.code ?? e.cause?.message ?? e.message) };
  }
}

export type RelayOptions = {
  /** headers set on the relayed request, over the client's */
  add: Record<string, string>;
  timeoutMs: number;
  /** the answer while none has started: why the target did not answer → its status, headers and body */
  failed: (why: string) => { status: number; headers: OutgoingHttpHeaders; body: string };
};

/**
 * Relays a request as it arrived (its URL with prefixes, its headers but the hop-by-hop ones, its body streamed) to
 * `target`, and the answer back as it is: status, headers, bytes. The reply is hijacked: this instance's hooks stay
 * out of it. A target that does not answer within timeoutMs, or breaks off, is `failed` while no answer has started;
 * after that the connection is ended, as the target's was.
 */
export function relay(req: FastifyRequest, reply: FastifyReply, target: URL, o: RelayOptions): void {
  reply.hijack();
  const out = reply.raw;
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const upstream = send(target, {
    method: req.method,
    headers: { ...forwardableHeaders(req.headers), ...o.add },
    timeout: o.timeoutMs,
  });
  const fail = (why: string) => {
    if (out.headersSent || out.destroyed) return out.destroy();
    const answer = o.failed(why);
    out.writeHead(answer.status, answer.headers);
    out.end(answer.body);
  };
  upstream.on('timeout', () => upstream.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
  upstream.on('error', (err: NodeJS.ErrnoException) =>
    fail(err.code === 'TIMEOUT' ? noAnswerWithin(o.timeoutMs) : (err.code ?? err.message)),
  );
  upstream.on('response', (res) => {
    // outside Fastify's error handling: a header the target sent that Node will not write again ends the relay, not
    // the process
    try {
      out.writeHead(res.statusCode ?? 502, forwardableHeaders(res.headers));
    } catch (err) {
      res.destroy();
      return fail(`its answer could not be relayed: ${(err as Error).message.slice(0, 200)}`);
    }
    res.pipe(out);
    res.on('error', () => out.destroy());
    res.on('aborted', () => out.destroy());
  });
  out.on('close', () => {
    if (!out.writableFinished) upstream.destroy(); // the client went away: so does the relayed call
  });
  req.raw.pipe(upstream);
}
