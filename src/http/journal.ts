import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isSideRoute } from './context.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** the status and JSON text of the answer as it left (a body fault may break the connection after it) */
    journalAnswer: { status: number; body: string | undefined } | null;
    /** the id its journal entry will have (0 when the journal is off) */
    journalId: number;
  }
}

/** answers kept: up to this many characters */
const keptBodyChars = 8192;

/**
 * Records every API request of a sandbox (admin and docs calls excluded); secrets are redacted when the journal is
 * read. A request is recorded when its connection is done with it ('close'), which also covers a connection that a
 * scenario fault dropped before any answer (no onSend, no onResponse for those).
 */
export const journalPlugin = fp(async (app: FastifyInstance) => {
  app.decorateRequest('journalId', 0);
  if (app.config.journalLimit === 0) return;
  app.decorateRequest('journalAnswer', null);
  app.addHook('onRequest', async (req, reply) => {
    if (isSideRoute(req.url)) return;
    req.journalId = req.sandbox.journal.reserveId();
    reply.raw.once('close', () => record(req));
  });
  // registered before compression, so the answer is still JSON text here
  app.addHook('onSend', async (req, reply, payload) => {
    // an error after the headers left (a truncated body) cannot change what the client got
    if (reply.raw.headersSent) return payload;
    const json = typeof payload === 'string' && payload.length <= keptBodyChars && String(reply.getHeader('content-type') ?? '').includes('json');
    req.journalAnswer = { status: reply.statusCode, body: json ? payload : undefined };
    return payload;
  });
  const record = (req: FastifyRequest) => {
    const elapsed = performance.now() - req.arrivedAt;
    const clock = req.sandbox.clock;
    req.sandbox.journal.add({
      // the sandbox clock when the request arrived
      atMs: clock.mode === 'frozen' ? clock.nowMs() : Math.round(clock.nowMs() - elapsed),
      // no status for a connection dropped before any answer (0, as HAR has it)
      method: req.method, operationId: req.operationId, status: req.journalAnswer?.status ?? 0,
      durationMs: Math.round(elapsed * 100) / 100, scenario: req.scenario?.name ?? null, stubbed: req.stubbed,
      fault: req.fault, afterCommit: req.faultAfterCommit,
    }, {
      url: req.raw.url ?? req.url, routedUrl: req.url, rawHeaders: req.raw.rawHeaders, response: req.journalAnswer?.body,
      requestBody: req.body !== undefined && !Buffer.isBuffer(req.body) ? JSON.stringify(req.body) : undefined,
    }, req.journalId);
  };
}, { name: 'journal', dependencies: ['request-context'] });
