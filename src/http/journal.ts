import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { redactBody, redactHeaders } from '../store/journal.js';

declare module 'fastify' {
  interface FastifyRequest {
    journalAt: string;
    journalResponse: unknown;
  }
}

const keptBodyChars = 8192;

/** Records every API request of a sandbox (admin and docs calls excluded) with secrets redacted. */
export const journalPlugin = fp(async (app: FastifyInstance) => {
  if (app.config.journalLimit === 0) return;
  app.decorateRequest('journalAt', '');
  app.decorateRequest('journalResponse', undefined);
  const skip = (url: string) => url.startsWith('/__admin') || url.startsWith('/docs');
  // callback-style hooks: no promise per request
  app.addHook('onRequest', (req, _reply, done) => {
    req.journalAt = req.sandbox.clock.iso();
    done();
  });
  app.addHook('onSend', (req, reply, payload, done) => {
    if (!skip(req.url) && typeof payload === 'string' && payload.length <= keptBodyChars && String(reply.getHeader('content-type') ?? '').includes('json')) {
      req.journalResponse = payload;
    }
    done(null, payload);
  });
  app.addHook('onResponse', (req, reply, done) => {
    if (req.sandbox && !skip(req.url)) record(req, reply);
    done();
  });
  const record = (req: FastifyRequest, reply: FastifyReply) => {
    const response = req.journalResponse;
    const headers = req.headers;
    const op = req.routeOptions.schema?.operationId;
    req.sandbox.journal.add({
      at: req.journalAt || req.sandbox.clock.iso(), method: req.method, url: req.raw.url ?? req.url, path: req.url.split('?')[0] ?? req.url,
      operationId: typeof op === 'string' ? op : null, status: reply.statusCode, durationMs: Math.round(reply.elapsedTime * 100) / 100,
      scenario: req.scenario?.name ?? null, stubbed: req.stubbed, requestHeaders: {},
      ...(req.body !== undefined && !Buffer.isBuffer(req.body) ? { requestBody: redactBody(req.body) } : {}),
    }, () => {
      // redacted when the journal is read, not on every request
      let responseBody: unknown;
      if (typeof response === 'string') {
        try { responseBody = redactBody(JSON.parse(response)); } catch { responseBody = response; }
      }
      return { requestHeaders: redactHeaders(headers), ...(responseBody !== undefined ? { responseBody } : {}) };
    });
  };
}, { name: 'journal', dependencies: ['request-context'] });
