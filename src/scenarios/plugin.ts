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
    app.addHook('onRequest', async (req) => {
      const named = req.headers['x-mock-scenario'];
      if (typeof named === 'string' && named !== '' && !app.scenarios.get(named))
        throw fail.badRequest(
          `unknown scenario "${named.slice(0, 80)}" in x-mock-scenario; known: ${app.scenarios.names().join(', ')}`,
        );
    });
  },
  { name: 'scenario-header', dependencies: ['request-state'] },
);

/** Resolves which scenario applies to each request: the x-mock-scenario header (this request only), else the sandbox's. */
export const scenarioPlugin = fp(
  async (app: FastifyInstance) => {
    app.addHook('onRequest', async (req, reply) => {
      const fromHeader = req.headers['x-mock-scenario'];
      if (typeof fromHeader === 'string' && fromHeader !== '') {
        req.mock.scenario = app.scenarios.get(fromHeader) ?? null; // known: scenarioHeaderPlugin checked it
        req.mock.scenarioFromHeader = true;
      } else {
        req.mock.scenario = app.scenarios.get(req.mock.sandbox.scenario) ?? null;
      }
      // a request answered by a stub or a fault goes no further
      if (actsOnRequests(req.mock.scenario) && (await applyScenario(req, reply))) return reply;
    });
    // stubs with a body matcher need the parsed body: tried after auth, before validation and the handler
    app.addHook('preValidation', async (req, reply) => {
      if (hasBodyStubs(req.mock.scenario) && (await applyBodyStubs(req, reply))) return reply;
    });
    app.addHook('onSend', async (req, reply, payload) => applyBodyFault(req, reply, payload));
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
    app.addHook('preParsing', async (req, _reply, payload) => throttled(req, payload));
  },
  { name: 'scenario-bandwidth', dependencies: ['scenarios'] },
);
