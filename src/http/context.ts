import type { IncomingMessage } from 'node:http';
import type { FastifyRequest } from 'fastify';
import type { Sandbox } from '../store/sandbox.js';
import type { DomainContext } from '../domain/context.js';
import { effectsOf } from '../domain/effects.js';
import { fail } from '../errors.js';
import { pathOf as pathOfUrl } from '../shared/url-path.js';

/** A request header as one non-empty string, else undefined (absent, empty or repeated). */
export const header = (req: FastifyRequest, name: string): string | undefined => {
  const v = req.headers[name];
  return typeof v === 'string' && v !== '' ? v : undefined;
};

/** The four headers of a session, as /mobile/auth hands them out. */
export const sessionHeaders = [
  'x-service-tenant-id',
  'x-service-device-id',
  'x-service-session-id',
  'x-service-session-code',
] as const;

/** The path of a request as routed (prefixes stripped), without its query. */
export const pathOf = (req: FastifyRequest) => pathOfUrl(req.url);

/**
 * Prefixes a client may put before any operation: `/sandbox/NAME` (picks the sandbox), `/wiremock` (the sandbox's
 * WireMock base URL, docs/wiremock.md "Serving"; not before `/__admin`, which is its admin API) and `/api/v2`.
 */
const prefixRe = /^(\/sandbox\/([^/?#]*))?(\/wiremock(?=[/?#]|$)(?!\/__admin(?:[/?#]|$)))?(\/api\/v2(?=[/?#]|$))?/;

export type PrefixInfo = {
  sandbox: string | null;
  sandboxPrefix: string;
  /** `/wiremock` when the request came through the sandbox's WireMock base URL, else '' */
  wiremockPrefix: string;
  apiPrefix: string;
};

export const noPrefix: PrefixInfo = { sandbox: null, sandboxPrefix: '', wiremockPrefix: '', apiPrefix: '' };

/** The prefixes of a URL as the client sent it (what the rewriter strips), or null when it has none. */
export function prefixesOf(url: string): PrefixInfo | null {
  const m = prefixRe.exec(url);
  if (!m || m[0] === '') return null;
  return {
    sandbox: m[2] !== undefined ? decodeOrRaw(m[2]) : null,
    sandboxPrefix: m[1] ?? '',
    wiremockPrefix: m[3] ?? '',
    apiPrefix: m[4] ?? '',
  };
}

/**
 * The URL a WireMock mapping matches: as the client sent it, less `/sandbox/NAME` and `/wiremock` (an `/api/v2`
 * prefix is kept: a mapping names it, as it would on a WireMock server standing in for the portal).
 */
export function wireMockUrl(url: string, prefix: PrefixInfo | null = prefixesOf(url)): string {
  const rest = prefix ? url.slice(prefix.sandboxPrefix.length + prefix.wiremockPrefix.length) : url;
  return rest.startsWith('/') ? rest : `/${rest}`;
}

/**
 * The sandbox key, also the routing key of a balancer (deploy/haproxy.cfg applies the same rule): the
 * x-mock-sandbox header, else the /sandbox/NAME/ path prefix, else the `sandbox` query parameter of /__admin, else
 * "default".
 */
export function sandboxKey(header: unknown, prefixSandbox: string | null | undefined, adminQuery?: unknown): string {
  if (typeof header === 'string' && header !== '') return header;
  if (prefixSandbox != null) return prefixSandbox;
  return typeof adminQuery === 'string' && adminQuery !== '' ? adminQuery : 'default';
}

/** A malformed escape (`/sandbox/%/…`) must not throw here: this runs outside Fastify's error handling and would crash the process. */
const decodeOrRaw = (s: string): string => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

/** Strips the prefixes once, before routing, remembering what was stripped for the request. */
export function makeUrlRewriter(seen: WeakMap<IncomingMessage, PrefixInfo>) {
  return (raw: IncomingMessage): string => {
    const url = raw.url ?? '/';
    const prefix = prefixesOf(url);
    if (!prefix) return url;
    seen.set(raw, prefix);
    const rest = url.slice(prefix.sandboxPrefix.length + prefix.wiremockPrefix.length + prefix.apiPrefix.length);
    return rest.startsWith('/') ? rest : `/${rest}`;
  };
}

/**
 * Where a reverse proxy serves us below a path (X-Forwarded-Prefix: /portal), without a trailing slash; a value that
 * is not a path is ignored, so it cannot turn the host of the addresses we hand out into another one.
 */
export function forwardedPrefix(req: FastifyRequest): string {
  const prefix = header(req, 'x-forwarded-prefix');
  return prefix !== undefined && /^(\/[\w\-.~%]+)*\/?$/.test(prefix) ? prefix.replace(/\/+$/, '') : '';
}

/**
 * Hosts already found well-formed. A client sends the same Host on every request, and checking one takes a URL
 * parse; a handful of hosts is all a mock sees, so the set is simply emptied when it fills.
 */
const wellFormedHosts = new Set<string>();
const wellFormedHostsKept = 64;
/** How many Host values are remembered now (the bounds test pushes past the 64). */
export const rememberedHostCount = (): number => wellFormedHosts.size;

/** A host[:port] the URL parser takes as it is: no user-info, path, space or bad escape hidden in it. */
function isAuthority(v: string | undefined): v is string {
  if (v === undefined) return false;
  if (wellFormedHosts.has(v)) return true;
  if (!/^(?:[A-Za-z0-9._~-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/.test(v) || !URL.canParse(`http://${v}/`)) return false;
  if (wellFormedHosts.size >= wellFormedHostsKept) wellFormedHosts.clear();
  wellFormedHosts.add(v);
  return true;
}

/**
 * The scheme and host the client used: X-Forwarded-Proto and X-Forwarded-Host when they are well-formed, else the
 * connection's own. A Host header that is not host[:port] is refused (400, as HTTP/1.1 has it): the addresses built
 * from it would not parse.
 */
export function clientOrigin(req: FastifyRequest): string {
  const claimed = req.protocol.toLowerCase();
  const encrypted = (req.raw.socket as { encrypted?: boolean } | null)?.encrypted === true;
  const protocol = claimed === 'http' || claimed === 'https' ? claimed : encrypted ? 'https' : 'http';
  const host = isAuthority(req.host) ? req.host : header(req, 'host');
  if (!isAuthority(host)) {
    throw fail.badRequest(`the Host header "${String(host ?? '').slice(0, 80)}" is not host[:port]`);
  }
  return `${protocol}://${host}`;
}

/**
 * The address the client used to reach us, with the sandbox prefix, so answers hand out URLs a phone can reach
 * (Host and X-Forwarded-Proto/Host/Prefix are honoured).
 */
export function baseUrl(req: FastifyRequest): string {
  return `${clientOrigin(req)}${forwardedPrefix(req)}${req.mock.prefix.sandboxPrefix}`;
}

/** The domain context of a request: its sandbox's store, clock, outbox and the client's base address. */
export function domainContext(req: FastifyRequest, now?: Date, sandbox: Sandbox = req.mock.sandbox): DomainContext {
  return {
    store: sandbox.store,
    now: now ?? sandbox.clock.now(),
    outbox: sandbox.outbox,
    baseUrl: baseUrl(req),
    effects: effectsOf(req.mock?.scenario ?? null),
  };
}
