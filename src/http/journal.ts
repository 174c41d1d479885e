import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isSideRoute } from './context.js';
import { keptChars, keptText } from '../store/journal.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** the status and JSON text of the answer as it left (a body fault may break the connection after it) */
    journalAnswer: { status: number; body: string | undefined } | null;
    /** the id its journal entry will have (0 when the journal is off) */
    journalId: number;
    /** the request body's text as it arrived, cut (keptText): what the journal keeps of the body */
    journalBody: string | undefined;
  }
}

/** Keeps what the journal shows of a body read as text: JSON by the parser below, other types by their own parsers. */
export function keepBodyText(req: FastifyRequest, text: string): void {
  if (req.server.config.journalLimit > 0) req.journalBody = keptText(text);
}

/**
 * Records every API request of a sandbox (admin and docs calls excluded); secrets are redacted when the journal is
 * read. A request is recorded when its connection is done with it ('close'), which also covers a connection that a
 * scenario fault dropped before any answer (no onSend, no onResponse for those).
 *
 * The body is kept as the text the JSON parser received, never serialized again from the parsed value: the 'close'
 * listener runs outside Fastify's error handling, where a throw (JSON.stringify of a body nested thousands deep
 * overflows the stack) would end the process.
 */

export const journalPlugin = fp(
  async (app: FastifyInstance) => {
    app.decorateRequest('journalId', 0);
    if (app.config.journalLimit === 0) return;
    app.decorateRequest('journalAnswer', null);
    app.decorateRequest('journalBody', undefined);
    // Fastify's own JSON parser (body limit, empty body, __proto__ and constructor refused), given the text as a string
    const parseJson = app.getDefaultJsonParser('error', 'error');
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
      const text = String(body);
      keepBodyText(req, text);
      parseJson(req, text, done);
    });
    app.addHook('onRequest', async (req, reply) => {
      if (isSideRoute(req.url)) return;
      req.journalId = req.sandbox.journal.reserveId();
      reply.raw.once('close', () => {
        try {
          record(req);
        } catch (err) {
          req.log.error({ err }, 'the request could not be journaled');
        }
      });
    });
    // registered before compression, so the answer is still JSON text here
    app.addHook('onSend', async (req, reply, payload) => {
      // an error after the headers left (a truncated body) cannot change what the client got
      if (reply.raw.headersSent) return payload;
      const json =
        typeof payload === 'string' &&
        payload.length <= keptChars &&
        String(reply.getHeader('content-type') ?? '').includes('json');
      req.journalAnswer = { status: reply.statusCode, body: json ? payload : undefined };
      return payload;
    });
    const record = (req: FastifyRequest) => {
      const elapsed = performance.now() - req.arrivedAt;
      const clock = req.sandbox.clock;
      req.sandbox.journal.add(
        {
          // the sandbox clock when the request arrived
          atMs: clock.mode === 'frozen' ? clock.nowMs() : Math.round(clock.nowMs() - elapsed),
          // no status for a connection dropped before any answer (0, as HAR has it)
          method: req.method,
          operationId: req.operationId,
          status: req.journalAnswer?.status ?? 0,
          durationMs: Math.round(elapsed * 100) / 100,
          scenario: req.scenario?.name ?? null,
          stubbed: req.stubbed,
          fault: req.fault,
          afterCommit: req.faultAfterCommit,
        },
        {
          url: req.raw.url ?? req.url,
          routedUrl: req.url,
          rawHeaders: req.raw.rawHeaders,
          response: req.journalAnswer?.body,
          requestBody: req.journalBody,
        },
        req.journalId,
      );
    };
  },
  { name: 'journal', dependencies: ['request-context'] },
);
