// Limits of the Node HTTP server against hostile or broken clients (documented in docs/reliability.md).
import type { ServerOptions } from 'node:http';

export const defaultServerLimits = {
  /** largest request line + headers in bytes; above it Node answers 431 */
  maxHeaderSize: 16 * 1024,
  /** a client must send all its headers within this time, else the connection is closed (408) */
  headersTimeoutMs: 10_000,
  /** a whole request (headers and body) must arrive within this time */
  requestTimeoutMs: 30_000,
  /** an idle keep-alive connection is closed after this time */
  keepAliveTimeoutMs: 5_000,
  /** how often Node checks the two timeouts above */
  connectionsCheckingIntervalMs: 1_000,
  /**
   * a body refused as too large (413) is read and thrown away up to this many bytes before the answer, so the client
   * reads the 413 instead of a reset (src/http/refused-body.ts)
   */
  drainBytes: 32 * 1024 * 1024,
  /**
   * ... or for this long (the whole request's own limit), whichever comes first; then the answer goes and the
   * connection closes
   */
  drainMs: 30_000,
};
export type ServerLimits = typeof defaultServerLimits;

/** The Fastify options that carry the limits to the Node server. */
export function serverLimitOptions(input: Partial<ServerLimits> = {}) {
  const l = { ...defaultServerLimits, ...input };
  const http: ServerOptions = {
    maxHeaderSize: l.maxHeaderSize,
    headersTimeout: l.headersTimeoutMs,
    connectionsCheckingInterval: l.connectionsCheckingIntervalMs,
  };
  return { http, requestTimeout: l.requestTimeoutMs, keepAliveTimeout: l.keepAliveTimeoutMs };
}
