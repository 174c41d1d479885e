import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** A step before the handler: nothing to wait for (most requests), or a promise of whether it answered the request. */
export type RequestStep = (req: FastifyRequest, reply: FastifyReply) => void | Promise<boolean>;
/** A step on the answer's way out: the payload to send on, or a promise of it. */
export type SendStep = (req: FastifyRequest, reply: FastifyReply, payload: unknown) => unknown;
/** A step once the answer is final (status, headers, payload), just before it is written; it must not throw. */
export type FinalStep = (req: FastifyRequest, reply: FastifyReply) => void;

declare module 'fastify' {
  interface FastifyInstance {
    pipeline: Pipeline;
  }
}

/**
 * What every request goes through, as two Fastify hooks (onRequest, onSend) that each run the steps the plugins
 * added, in the order they added them: sandbox, data version, scenario, proxy, auth before the handler; journal,
 * body faults, proxy, save on the way out; then the final steps (data version, journal record, proxy compare) once
 * the answer is final. One hook per stage instead of one per plugin and stage: each Fastify hook costs a turn of its
 * hook runner on every request, and the light read is a budget of ~25 µs. The final steps run at the end of onSend
 * rather than in an onResponse hook, which cost another ~0.8 µs (measured on bare Fastify), and so also for an answer
 * whose connection breaks before it is finished (a truncated body), which never emits the event onResponse waits for.
 * A step that must wait returns a promise; the others are plain calls.
 */
export class Pipeline {
  private readonly requestSteps: RequestStep[] = [];
  private readonly sendSteps: SendStep[] = [];
  private readonly finalSteps: FinalStep[] = [];

  onRequest(step: RequestStep): void {
    this.requestSteps.push(step);
  }
  onSend(step: SendStep): void {
    this.sendSteps.push(step);
  }
  onFinal(step: FinalStep): void {
    this.finalSteps.push(step);
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
    this.runFinal(req, reply);
    done(null, out);
  }

  /**
   * The final steps; also called for an answer that never goes through onSend (a connection dropped by a scenario
   * fault). Every step runs even if one fails (the data version must move after a write): a failure is logged, as
   * the answer itself is right.
   */
  runFinal(req: FastifyRequest, reply: FastifyReply): void {
    for (const step of this.finalSteps) {
      try {
        step(req, reply);
      } catch (err) {
        req.log.error({ err }, 'a final step of the pipeline failed');
      }
    }
  }
}

/** Registered before the plugins that add steps, so its hooks come first and apply to every route. */
export const pipelinePlugin = fp(async (app: FastifyInstance) => {
  const pipeline = new Pipeline();
  app.decorate('pipeline', pipeline);
  app.addHook('onRequest', (req, reply, done) => pipeline.runRequest(req, reply, done));
  app.addHook('onSend', (req, reply, payload, done) => pipeline.runSend(req, reply, payload, done));
}, { name: 'pipeline' });
