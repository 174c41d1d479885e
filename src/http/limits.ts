// Limits of the Node HTTP server against hostile or broken clients (documented in docs/reliability.md).
import type { ServerOptions } from 'node:http';

export type ServerLimits = {
  /** largest request line + headers in bytes; above it Node answers 431 */
  maxHeaderSize: number;
  /** a client must send all its headers within this time, else the connection is closed (408) */
  headersTimeoutMs: number;
  /** a whole request (headers and body) must arrive within this time */
  requestTimeoutMs: number;
  /** an idle keep-alive connection is closed after this time */
  keepAliveTimeoutMs: number;
  /** how often Node checks the two timeouts above */
  connectionsCheckingIntervalMs: number;
};

export const defaultServerLimits: ServerLimits = {
  maxHeaderSize: 16 * 1024,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  connectionsCheckingIntervalMs: 1_000,
};

/** The Fastify options that carry the limits to the Node server. */
export function serverLimitOptions(input: Partial<ServerLimits> = {}) {
  const l = { ...defaultServerLimits, ...input };
  const http: ServerOptions = { maxHeaderSize: l.maxHeaderSize, headersTimeout: l.headersTimeoutMs, connectionsCheckingInterval: l.connectionsCheckingIntervalMs };
  return { http, requestTimeout: l.requestTimeoutMs, keepAliveTimeout: l.keepAliveTimeoutMs };
}
