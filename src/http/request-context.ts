import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sandboxKey } from './context.js';
import { answeredHere, ownerElsewhere, relayToOwner } from './peers.js';

/**
 * The portal context's first hook: the request's sandbox (sandboxKey), created on first use. With --peers, a sandbox
 * this instance does not hold is looked for on the peers first: the one that holds it answers the request (relayed
 * as it is), and while a peer that may hold it cannot be asked the answer is a 503 naming it; a copy is made here
 * only when every peer said it has none (src/http/peers.ts, docs/cluster.md). On the way out, the sandbox's commit:
 * a change acknowledged to a client is in the sandbox's log before the answer leaves (a no-op in memory). Every
 * method commits: a read that moves tickets with the clock writes too.
 */
export const requestContextPlugin = fp(
  async (app: FastifyInstance) => {
    /** The request is in flight on its sandbox until its connection is done with it: the idle sweep waits. */
    const inFlight = (req: FastifyRequest, reply: FastifyReply) => {
      const sandbox = req.mock.sandbox;
      app.sandboxes.enter(sandbox);
      reply.raw.once('close', () => app.sandboxes.leave(sandbox));
    };
    app.addHook('onRequest', (req, reply, done) => {
      // the key was checked on arrival (src/http/request-state.ts)
      const name = sandboxKey(req.headers['x-mock-sandbox'], req.mock.prefix.sandbox);
      if (answeredHere(req, name)) {
        req.mock.sandbox = app.sandboxes.get(name); // no promise on the way of a sandbox held here
        inFlight(req, reply);
        return done();
      }
      ownerElsewhere(req, reply, name)
        .then((owner) => {
          if (owner) return relayToOwner(req, reply, owner, name); // answered: the request goes no further here
          req.mock.sandbox = app.sandboxes.get(name); // every peer said it has none: made here (429 past the limit)
          inFlight(req, reply);
          done();
        })
        .catch(done);
    });
    app.addHook('onSend', (req, _reply, payload, done) => {
      req.mock.sandbox?.commit(); // none when the request was refused before one was chosen (a bad sandbox name)
      done(null, payload);
    });
  },
  { name: 'request-context', dependencies: ['request-state'] },
);
