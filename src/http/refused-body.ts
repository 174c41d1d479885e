// A body refused as too large (413) is read to its end and thrown away before the answer goes, as nginx's lingering
// close does: a server that answers and closes while the client still sends makes the client's kernel meet a reset,
// and the client reads a broken pipe instead of the 413 (12 of 12 bodies of 1.5 MB on a loaded machine). Bounded:
// past `bytes` or `ms`, or once the client pauses, the answer goes anyway and the connection closes.
import fp from 'fastify-plugin';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { bodyTurns } from './body-turns.js';
import { defaultServerLimits } from './limits.js';

export type DrainLimits = { bytes: number; ms: number };
/** How long a refused body may pause before the answer goes without the rest. */
const drainIdleMs = 2_000;

/** Reads `raw` to its end (or the bounds) and throws it away; answers whether it ended. */
export function drainBody(raw: IncomingMessage, { bytes, ms }: DrainLimits): Promise<boolean> {
  return new Promise((resolve) => {
    let read = 0;
    // a client that stopped sending (it waits for the answer, or sent less than it announced) is answered now:
    // nothing of it is in flight for a close to reset
    let idle = setTimeout(() => finish(false), drainIdleMs);
    const finish = (ended: boolean) => {
      clearTimeout(timer);
      clearTimeout(idle);
      bodyTurns.forget(raw);
      raw.off('data', onData);
      raw.off('end', onEnd);
      raw.off('close', onStop);
      raw.off('error', onStop);
      resolve(ended);
    };
    const onData = (chunk: Buffer) => {
      read += chunk.length;
      if (read > bytes) return finish(false);
      bodyTurns.take(raw, chunk.length);
      clearTimeout(idle);
      idle = setTimeout(() => finish(false), drainIdleMs);
    };
    const onEnd = () => finish(true);
    const onStop = () => finish(raw.complete);
    const timer = setTimeout(() => finish(false), ms);
    raw.on('data', onData);
    raw.once('end', onEnd);
    raw.once('close', onStop);
    raw.once('error', onStop);
    raw.resume();
  });
}

/** On every route (registered at the root): a 413 whose body has not all arrived waits for it first. */
export const refusedBodyPlugin = fp(
  async (app: FastifyInstance, limits: Partial<DrainLimits>) => {
    const bounds = {
      bytes: limits.bytes ?? defaultServerLimits.drainBytes,
      ms: limits.ms ?? defaultServerLimits.drainMs,
    };
    // callback-style, answering at once but for a 413: an async hook on every answer would make every reply.send
    // wait a turn, and a hook that sends (a forwarded request) would see the request go on to the next hook
    app.addHook('onSend', (req, reply, payload, done) => {
      const raw = req.raw;
      if (reply.statusCode !== 413 || raw.complete || raw.destroyed) return done(null, payload);
      drainBody(raw, bounds).then((ended) => {
        // a body that keeps coming past the bounds: answered, and the connection closed after the answer
        if (!ended) reply.header('connection', 'close');
        done(null, payload);
      });
    });
  },
  { name: 'refused-body' },
);
