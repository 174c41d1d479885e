import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { fail } from '../errors.js';
import {
  actsOnRequests,
  applyBodyFault,
  applyBodyStubs,
  applyScenario,
  hasBodyStubs,
  throttleAnswer,
  throttled,
} from './runtime.js';

/**
 * x-mock-scenario must name a known scenario on every route, the control plane's included: a misspelt name is a 400
 * wherever it is sent, never silently the sandbox's scenario.
 */
export const scenarioHeaderPlugin = fp(
  async (app: FastifyInstance) => {
    app.addHook('onRequest', (req, _reply, done) => {
      const named = req.headers['x-mock-scenario'];
      if (typeof named === 'string' && named !== '' && !app.scenarios.get(named))
        throw fail.badRequest(
          `unknown scenario "${named.slice(0, 80)}" in x-mock-scenario; known: ${app.scenarios.names().join(', ')}`,
        );
      done();
    });
  },
  { name: 'scenario-header', dependencies: ['request-state'] },
);

/** Resolves which scenario applies to each request: the x-mock-scenario header (this request only), else the sandbox's. */
export const scenarioPlugin = fp(
  async (app: FastifyInstance) => {
    // callback-style: only a scenario that acts on requests waits (a delay, a stub); a stub that answered has sent
    // the reply, and Fastify then runs no further hook
    app.addHook('onRequest', (req, reply, done) => {
      const fromHeader = req.headers['x-mock-scenario'];
      if (typeof fromHeader === 'string' && fromHeader !== '') {
        req.mock.scenario = app.scenarios.get(fromHeader) ?? null; // known: scenarioHeaderPlugin checked it
        req.mock.scenarioFromHeader = true;
      } else {
        req.mock.scenario = app.scenarios.get(req.mock.sandbox.scenario) ?? null;
      }
      if (!actsOnRequests(req.mock.scenario)) return done();
      applyScenario(req, reply).then(() => done(), done);
    });
    // stubs with a body matcher need the parsed body: tried after auth, before validation and the handler
    app.addHook('preValidation', (req, reply, done) => {
      if (!hasBodyStubs(req.mock.scenario)) return done();
      applyBodyStubs(req, reply).then(() => done(), done);
    });
    app.addHook('onSend', (req, reply, payload, done) => done(null, applyBodyFault(req, reply, payload)));
  },
  { name: 'scenarios', dependencies: ['request-context'] },
);

/**
 * The scenario's bandwidth limit on bodies. Its onSend goes into each route's own hooks, after the one
 * @fastify/compress adds there (this plugin is registered after it), so it paces the bytes that go on the wire.
 */
export const bandwidthPlugin = fp(
  async (app: FastifyInstance) => {
    app.addHook('onRoute', (route) => {
      route.onSend = [...[route.onSend ?? []].flat(), throttleAnswer];
    });
    app.addHook('preParsing', (req, _reply, payload, done) => done(null, throttled(req, payload)));
  },
  { name: 'scenario-bandwidth', dependencies: ['scenarios'] },
);
