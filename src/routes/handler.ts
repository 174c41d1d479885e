import type { FastifyReply, FastifyRequest } from 'fastify';
import { JsonStream } from '../shared/json-stream.js';
import { baseUrl, domainContext } from '../http/context.js';
import { caller } from '../auth/caller.js';

/** The arguments a domain function over a signed-in caller starts with: `fn(...callerArgs(req), input)`. */
export function callerArgs(req: FastifyRequest) {
  const { tenant, user } = caller(req);
  return [domainContext(req), tenant, user] as const;
}

/** The absolute address of the list as the client called it (prefixes included), for the `_links` of a page. */
export const listUrl = (req: FastifyRequest) => `${baseUrl(req)}${req.mock.prefix.apiPrefix}${req.url}`;

/** Items past which an answer the API does not page is streamed rather than sent as one text. */
export const streamedFrom = 500;

/**
 * An answer the API does not page, whose list is made as it is written (`lazy` holds a LazyList of `items` entries):
 * past `streamedFrom` entries it is written in slices while the client reads, so that a sandbox filled through the
 * records API does not hold the event loop while megabytes are made and serialized (issue 54: 10,000 processes made
 * a 9 MB catalog in 315 ms, 20,000 moderation items a 10 MB queue in about half a second). Else, and for a scenario's
 * truncated or malformed answer (cut from the text), `whole()` goes through the schema's serializer. A stream never
 * goes through the serializer: its bytes are JSON.stringify's, which equal the serializer's for answers built in the
 * schema's order with no other field (test: portal/streamed-lists).
 */
export function streamedPast<T>(
  req: FastifyRequest,
  reply: FastifyReply,
  items: number,
  lazy: object,
  whole: () => T,
): T | FastifyReply {
  const bodyFault = req.mock.fault === 'truncated' || req.mock.fault === 'malformed';
  if (bodyFault || items <= streamedFrom) return whole();
  reply.type('application/json; charset=utf-8');
  return reply.send(new JsonStream(lazy, { stallTimeout: req.server.config.exportStallTimeout }));
}
