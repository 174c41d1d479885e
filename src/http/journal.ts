import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { redactBody } from '../store/journal.js';
import { isSideRoute } from './context.js';
import { dropsConnection } from '../scenarios/runtime.js';

declare module 'fastify' {
  interface FastifyRequest {
    journalResponse: string | Buffer | undefined;
  }
}

/** answers kept: up to this many characters (a text) or bytes (a kept answer, see src/http/answer-cache.ts) */
const keptBodyChars = 8192;

/**
 * Records every API request of a sandbox (admin and docs calls excluded); secrets are redacted when the journal is
 * read. Two steps of the pipeline (src/http/pipeline.ts); the journal copies what it keeps into preallocated storage
 * or shares it (see Journal for why).
 */
export const journalPlugin = fp(async (app: FastifyInstance) => {
  if (app.config.journalLimit === 0) return;
  app.decorateRequest('journalResponse', undefined);
  app.pipeline.onSend((req, reply, payload) => {
    // a kept answer's bytes are shared with the journal, not copied (see Journal); other answers are JSON text
    if (req.answerPlain) {
      if (req.answerPlain.length <= keptBodyChars) req.journalResponse = req.answerPlain;
    } else if (typeof payload === 'string' && payload.length <= keptBodyChars && !isSideRoute(req.url) && String(reply.getHeader('content-type') ?? '').includes('json')) {
      req.journalResponse = payload;
    }
    return payload;
  });
  app.pipeline.onFinal((req, reply) => {
    if (req.sandbox && !isSideRoute(req.url)) record(req, reply);
  });
  const record = (req: FastifyRequest, reply: FastifyReply) => {
    const elapsed = performance.now() - req.arrivedAt;
    const clock = req.sandbox.clock;
    req.sandbox.journal.add({
      // the sandbox clock when the request arrived
      atMs: clock.mode === 'frozen' ? clock.nowMs() : Math.round(clock.nowMs() - elapsed),
      // no status for a connection a scenario fault dropped (0, as HAR has it)
      method: req.method, operationId: req.operationId, status: dropsConnection(req.fault) ? 0 : reply.statusCode,
      durationMs: Math.round(elapsed * 100) / 100, scenario: req.scenario?.name ?? null, stubbed: req.stubbed,
    }, {
      url: req.raw.url ?? req.url, routedUrl: req.url, rawHeaders: req.raw.rawHeaders, response: req.journalResponse,
      requestBody: req.body !== undefined && !Buffer.isBuffer(req.body) ? JSON.stringify(redactBody(req.body)) : undefined,
    });
  };
}, { name: 'journal', dependencies: ['pipeline', 'request-context'] });
