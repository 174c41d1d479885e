// How the control plane answers its large exports (the state, a bug capture, the journal as HAR): as a stream of
// JSON.stringify's bytes written in slices while the client reads (src/shared/json-stream.ts), so neither the
// event loop nor a client that reads nothing holds the whole text. The route's response schema still describes
// the 200 (its API document is unchanged): a stream is sent as it is, never through the schema's serializer.
import type { FastifyReply } from 'fastify';
import { JsonStream } from '../shared/json-stream.js';

/**
 * Sends `value` as JSON, streamed; `filename` makes it a download, `indent` (spaces) a file a person reads. Give it
 * data that no later write changes (the store's frozen collections, taken when the call began): the stream reads it
 * as it goes. A client whose reading stopped for --export-stall-timeout ms, with the stream's buffer full, has its
 * connection cut.
 */
export function sendJsonStream(
  reply: FastifyReply,
  value: unknown,
  filename?: string,
  opts: { indent?: number } = {},
): FastifyReply {
  reply.type('application/json; charset=utf-8');
  if (filename !== undefined) reply.header('content-disposition', `attachment; filename="${filename}"`);
  const stallTimeout = reply.server.config.exportStallTimeout;
  return reply.send(new JsonStream(value, { stallTimeout, indent: opts.indent }));
}
