import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { redactBody } from '../store/journal.js';

declare module 'fastify' {
  interface FastifyRequest {
    journalResponse: string | undefined;
  }
}

const keptBodyChars = 8192;
const skip = (url: string) => url.startsWith('/__admin') || url.startsWith('/docs');

/**
 * Records every API request of a sandbox (admin and docs calls excluded); secrets are redacted when the journal is
 * read. Two callback-style hooks and one small record per request: see JournalRecord for why it is kept lean.
 */
export const journalPlugin = fp(async (app: FastifyInstance) => {
  if (app.config.journalLimit === 0) return;
  app.decorateRequest('journalResponse', undefined);
  app.addHook('onSend', (req, reply, payload, done) => {
    if (typeof payload === 'string' && payload.length <= keptBodyChars && !skip(req.url) && String(reply.getHeader('content-type') ?? '').includes('json')) {
      req.journalResponse = payload;
    }
    done(null, payload);
  });
  app.addHook('onResponse', (req, reply, done) => {
    if (req.sandbox && !skip(req.url)) record(req, reply);
    done();
  });
  const record = (req: FastifyRequest, reply: FastifyReply) => {
    const op = req.routeOptions.schema?.operationId;
    const url = req.url;
    const query = url.indexOf('?');
    const elapsed = reply.elapsedTime;
    req.sandbox.journal.add({
      // the sandbox clock when the request arrived
      atMs: req.sandbox.clock.mode === 'frozen' ? req.sandbox.clock.nowMs() : Math.round(req.sandbox.clock.nowMs() - elapsed),
      method: req.method, url: req.raw.url ?? url, path: query < 0 ? url : url.slice(0, query),
      operationId: typeof op === 'string' ? op : null, status: reply.statusCode, durationMs: Math.round(elapsed * 100) / 100,
      scenario: req.scenario?.name ?? null, stubbed: req.stubbed, rawHeaders: req.raw.rawHeaders,
      ...(req.body !== undefined && !Buffer.isBuffer(req.body) ? { requestBody: redactBody(req.body) } : {}),
      response: req.journalResponse,
    });
  };
}, { name: 'journal', dependencies: ['request-context'] });
