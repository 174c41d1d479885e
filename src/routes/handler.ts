import type { FastifyRequest } from 'fastify';
import { baseUrl, domainContext } from '../http/context.js';
import { caller } from '../auth/caller.js';

/** The arguments a domain function over a signed-in caller starts with: `fn(...callerArgs(req), input)`. */
export function callerArgs(req: FastifyRequest) {
  const { tenant, user } = caller(req);
  return [domainContext(req), tenant, user] as const;
}

/** The absolute address of the list as the client called it (prefixes included), for the `_links` of a page. */
export const listUrl = (req: FastifyRequest) => `${baseUrl(req)}${req.mock.prefix.apiPrefix}${req.url}`;
