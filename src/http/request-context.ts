import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { sandboxKey } from './context.js';

/**
 * The portal context's first hook: the request's sandbox (sandboxKey), created on first use. On the way out, the
 * sandbox's commit: a change acknowledged to a client is in the sandbox's log before the answer leaves (a no-op in
 * memory). Every method commits: a read that moves tickets with the clock writes too.
 */
export const requestContextPlugin = fp(
  async (app: FastifyInstance) => {
    app.addHook('onRequest', (req, _reply, done) => {
      // the key was checked on arrival (src/http/request-state.ts)
      req.mock.sandbox = app.sandboxes.get(sandboxKey(req.headers['x-mock-sandbox'], req.mock.prefix.sandbox));
      done();
    });
    app.addHook('onSend', (req, _reply, payload, done) => {
      req.mock.sandbox?.commit(); // none when the request was refused before one was chosen (a bad sandbox name)
      done(null, payload);
    });
  },
  { name: 'request-context', dependencies: ['request-state'] },
);
