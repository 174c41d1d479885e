import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** A step before the handler: nothing to wait for (most requests), or a promise of whether it answered the request. */
export type RequestStep = (req: FastifyRequest, reply: FastifyReply) => void | Promise<boolean>;
/** A step on the answer's way out: the payload to send on, or a promise of it. */
export type SendStep = (req: FastifyRequest, reply: FastifyReply, payload: unknown) => unknown;
/** A step after the answer went out. */
export type ResponseStep = (req: FastifyRequest, reply: FastifyReply) => void;

declare module 'fastify' {
  interface FastifyInstance {
    pipeline: Pipeline;
  }
}

/**
 * What every request goes through, as three Fastify hooks (onRequest, onSend, onResponse) that each run the steps
 * the plugins added, in the order they added them: sandbox, data version, scenario, proxy, auth before the handler;
 * journal, body faults, proxy, save on the way out. One hook per stage instead of one per plugin and stage: each
 * Fastify hook costs a turn of its hook runner on every request, and the light read is a budget of ~25 µs.
 * A step that must wait returns a promise; the others are plain calls.
 */
export class Pipeline {
  private readonly requestSteps: RequestStep[] = [];
  private readonly sendSteps: SendStep[] = [];
  private readonly responseSteps: ResponseStep[] = [];

  onRequest(step: RequestStep): void {
    this.requestSteps.push(step);
  }
  onSend(step: SendStep): void {
    this.sendSteps.push(step);
  }
  onResponse(step: ResponseStep): void {
    this.responseSteps.push(step);
  }

  /** Runs the request steps from `from`; `done` is not called when a step answered the request (a stub, a fault). */
  runRequest(req: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void, from = 0): void {
    const steps = this.requestSteps;
    for (let i = from; i < steps.length; i++) {
      let pending: void | Promise<boolean>;
      try {
        pending = steps[i]!(req, reply);
      } catch (err) {
        done(err as Error);
        return;
      }
      if (pending !== undefined) {
        pending.then((answered) => { if (!answered) this.runRequest(req, reply, done, i + 1); }, done);
        return;
      }
    }
    done();
  }

  runSend(req: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: Error | null, payload?: unknown) => void, from = 0): void {
    const steps = this.sendSteps;
    let out = payload;
    for (let i = from; i < steps.length; i++) {
      let next: unknown;
      try {
        next = steps[i]!(req, reply, out);
      } catch (err) {
        done(err as Error);
        return;
      }
      if (next instanceof Promise) {
        next.then((p: unknown) => this.runSend(req, reply, p, done, i + 1), done);
        return;
      }
      out = next;
    }
    done(null, out);
  }

  /** Every step runs even if one fails (the data version must move after a write); the first error is reported. */
  runResponse(req: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void): void {
    let failure: Error | undefined;
    for (const step of this.responseSteps) {
      try {
        step(req, reply);
      } catch (err) {
        failure ??= err as Error;
      }
    }
    done(failure);
  }
}

/** Registered before the plugins that add steps, so its hooks come first and apply to every route. */
export const pipelinePlugin = fp(async (app: FastifyInstance) => {
  const pipeline = new Pipeline();
  app.decorate('pipeline', pipeline);
  app.addHook('onRequest', (req, reply, done) => pipeline.runRequest(req, reply, done));
  app.addHook('onSend', (req, reply, payload, done) => pipeline.runSend(req, reply, payload, done));
  app.addHook('onResponse', (req, reply, done) => pipeline.runResponse(req, reply, done));
}, { name: 'pipeline' });
