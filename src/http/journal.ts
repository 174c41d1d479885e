import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { keptChars, keptText } from '../store/journal.js';

/** Keeps what the journal shows of a body read as text: JSON by the parser below, other types by their own parsers. */
export function keepBodyText(req: FastifyRequest, text: string): void {
  if (req.server.config.journalLimit > 0) req.mock.journal.body = keptText(text);
}

/**
 * Records every portal request of a sandbox (registered in the portal context only); secrets are redacted when the journal is
 * read. A request is recorded when its connection is done with it ('close'), which also covers a connection that a
 * scenario fault dropped before any answer (no onSend, no onResponse for those).
 *
 * The body is kept as the text the JSON parser received, never serialized again from the parsed value: the 'close'
 * listener runs outside Fastify's error handling, where a throw (JSON.stringify of a body nested thousands deep
 * overflows the stack) would end the process.
 */

export const journalPlugin = fp(
  async (app: FastifyInstance) => {
    if (app.config.journalLimit === 0) return;
    // Fastify's own JSON parser (body limit, empty body, __proto__ and constructor refused), given the text as a string
    const parseJson = app.getDefaultJsonParser('error', 'error');
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
      const text = String(body);
      keepBodyText(req, text);
      parseJson(req, text, done);
    });
    // callback-style hooks: nothing here waits, so no promise per request
    app.addHook('onRequest', (req, reply, done) => {
      req.mock.journal.id = req.mock.sandbox.journal.reserveId();
      reply.raw.once('close', () => {
        try {
          record(req);
        } catch (err) {
          req.log.error({ err }, 'the request could not be journaled');
        }
      });
      done();
    });
    // registered before compression, so the answer is still JSON text here
    app.addHook('onSend', (req, reply, payload, done) => {
      // an error after the headers left (a truncated body) cannot change what the client got
      if (!reply.raw.headersSent) {
        const json =
          typeof payload === 'string' &&
          payload.length <= keptChars &&
          String(reply.getHeader('content-type') ?? '').includes('json');
        req.mock.journal.status = reply.statusCode;
        req.mock.journal.answer = json ? payload : undefined;
      }
      done(null, payload);
    });
    const record = (req: FastifyRequest) => {
      const elapsed = performance.now() - req.mock.arrivedAt;
      const clock = req.mock.sandbox.clock;
      req.mock.sandbox.journal.add(
        {
          // the sandbox clock when the request arrived
          atMs: clock.mode === 'frozen' ? clock.nowMs() : Math.round(clock.nowMs() - elapsed),
          // no status for a connection dropped before any answer (0, as HAR has it)
          method: req.method,
          operationId: req.mock.operationId,
          status: req.mock.journal.status,
          durationMs: Math.round(elapsed * 100) / 100,
          scenario: req.mock.scenario?.name ?? null,
          stubbed: req.mock.stubbed,
          stub: req.mock.stub,
          fault: req.mock.fault,
          afterCommit: req.mock.faultAfterCommit,
          mapping: req.mock.wiremockMapping,
        },
        {
          url: req.originalUrl, // as the client sent it (Fastify's rewriteUrl replaced req.raw.url)
          routedUrl: req.url,
          rawHeaders: req.raw.rawHeaders,
          response: req.mock.journal.answer,
          requestBody: req.mock.journal.body,
        },
        req.mock.journal.id,
      );
    };
  },
  { name: 'journal', dependencies: ['request-context'] },
);
