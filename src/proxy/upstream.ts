// Forwarding one request to the upstream (the real portal) with the one forwarder (src/http/forward.ts): credentials
// of the mock stripped, the upstream's own credentials (--proxy-header) added, a hard timeout, faults mapped to 502/504.
import type { IncomingHttpHeaders } from 'node:http';
import { exchange, forwardableHeaders, staysOnThisHop } from '../http/forward.js';
import { isSecretHeader } from '../shared/secrets.js';

/**
 * Besides the hop-by-hop ones (src/http/forward.ts): what fetch works out itself (the host and the length of what it
 * sends) and the encoding (the client's accept-encoding is fetch's own choice upstream; fetch decodes the answer, so
 * its encoding and length no longer hold). Set-Cookie is copied apart, one header a cookie.
 */
const fetchOwnRequestHeaders = new Set(['host', 'content-length', 'accept-encoding']);
const fetchOwnAnswerHeaders = new Set(['host', 'content-length', 'content-encoding', 'set-cookie']);

/** The session of the mock's client besides its secret: the mock's, never the upstream's. */
const mockSessionHeaders = new Set(['x-service-session-id', 'x-service-device-id']);

/** A client's credentials and session are for the mock: never sent upstream. */
function isMockCredentialHeader(name: string): boolean {
  const n = name.toLowerCase();
  return isSecretHeader(n) || mockSessionHeaders.has(n) || n.startsWith('x-mock-');
}

export type UpstreamHeader = { name: string; value: string };

/** Parses `--proxy-header "Name: value"` entries. */
export function parseProxyHeaders(list: readonly string[]): UpstreamHeader[] {
  return list
    .map((line) => {
      const i = line.indexOf(':');
      return { name: line.slice(0, i).trim().toLowerCase(), value: line.slice(i + 1).trim() };
    })
    .filter((h) => h.name !== '');
}

/** The headers sent upstream: the client's, less hop-by-hop and the mock's secrets, plus (overridden by) the proxy headers. */
export function upstreamRequestHeaders(client: IncomingHttpHeaders, extra: readonly UpstreamHeader[]): Headers {
  const out = new Headers();
  const forwarded = forwardableHeaders(
    client,
    (name) => fetchOwnRequestHeaders.has(name) || isMockCredentialHeader(name),
  );
  for (const [name, value] of Object.entries(forwarded)) out.set(name, Array.isArray(value) ? value.join(', ') : value);
  for (const h of extra) out.set(h.name, h.value);
  return out;
}

/** Credentials belong in --proxy-header: a URL with user-info is refused (fetch would refuse it too, quoting it). */
export function userInfoProblem(url: string): string | null {
  const u = URL.parse(url);
  if (!u) return 'not a URL';
  return u.username || u.password ? "put the upstream's credentials in --proxy-header, not in the URL" : null;
}

/** The upstream's address for messages and logs: no user-info, no query. */
export function upstreamName(base: string): string {
  const u = URL.parse(base);
  return u ? `${u.origin}${u.pathname.replace(/\/$/, '')}` : '(invalid upstream URL)';
}

/** `base` keeps its own path: `http://portal/api/v2` + `/goals/list?x=1`. */
function upstreamUrl(base: string, pathAndQuery: string): string {
  return `${base.replace(/\/+$/, '')}${pathAndQuery.startsWith('/') ? pathAndQuery : `/${pathAndQuery}`}`;
}

export type UpstreamRequest = {
  base: string;
  method: string;
  /** path and query, prefixes already removed */
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer | undefined;
  extraHeaders: readonly UpstreamHeader[];
  timeoutMs: number;
};

export type UpstreamAnswer =
  | { ok: true; status: number; headers: Array<[string, string]>; body: Buffer; contentType: string }
  | { ok: false; status: 502 | 504; reason: string };

/** Sends the request; never throws and never waits past timeoutMs (the body read included). */
export async function callUpstream(r: UpstreamRequest): Promise<UpstreamAnswer> {
  const payload = r.method !== 'GET' && r.method !== 'HEAD' && r.body?.length ? new Uint8Array(r.body) : undefined;
  const init = { method: r.method, headers: upstreamRequestHeaders(r.headers, r.extraHeaders), body: payload };
  const sent = await exchange(upstreamUrl(r.base, r.url), { ...init, redirect: 'manual' }, r.timeoutMs, async (res) => {
    const body = Buffer.from(await res.arrayBuffer());
    const stays = staysOnThisHop(res.headers.get('connection'));
    const headers: Array<[string, string]> = [];
    res.headers.forEach((value, key) => {
      if (!stays(key) && !fetchOwnAnswerHeaders.has(key)) headers.push([key, value]);
    });
    for (const cookie of res.headers.getSetCookie()) headers.push(['set-cookie', cookie]);
    return { ok: true as const, status: res.status, headers, body, contentType: res.headers.get('content-type') ?? '' };
  });
  if (sent.ok) return sent.value;
  const name = upstreamName(r.base);
  if (sent.timedOut) {
    return {
      ok: false,
      status: 504,
      reason: `upstream ${name} did not answer within ${r.timeoutMs} ms (--proxy-timeout)`,
    };
  }
  const why = sent.why.replace(/\/\/[^/@\s]+@/g, '//[redacted]@');
  return { ok: false, status: 502, reason: `upstream ${name} is unreachable: ${why}` };
}
