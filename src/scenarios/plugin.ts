import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { fail } from '../errors.js';
import type { ScenarioRegistry } from './registry.js';
import { actsOnRequests, applyBodyFault, applyScenario, dropsConnection } from './runtime.js';

declare module 'fastify' {
  interface FastifyInstance {
    scenarios: ScenarioRegistry;
  }
}

/** Resolves which scenario applies to each request: the x-mock-scenario header (this request only), else the sandbox's. */
export const scenarioPlugin = fp(async (app: FastifyInstance) => {
  app.decorateRequest('scenario', null);
  app.decorateRequest('scenarioFromHeader', false);
  app.decorateRequest('fault', null);
  app.decorateRequest('stubbed', false);
  // a synchronous way through for scenarios that only change data or auth (no promise per request)
  app.pipeline.onRequest((req, reply) => {
    const fromHeader = req.headers['x-mock-scenario'];
    if (typeof fromHeader === 'string' && fromHeader !== '') {
      const scenario = app.scenarios.get(fromHeader);
      if (!scenario) throw fail.badRequest(`unknown scenario "${fromHeader.slice(0, 80)}" in x-mock-scenario; known: ${app.scenarios.names().join(', ')}`);
      req.scenario = scenario;
      req.scenarioFromHeader = true;
    } else {
      req.scenario = app.scenarios.get(req.sandbox.scenario) ?? null;
    }
    if (!actsOnRequests(req.scenario)) return;
    // an answered request (stub, fault) goes no further; a dropped connection has no onSend, so its final steps
    // (the journal's record among them) run here
    return applyScenario(req, reply).then((answered) => {
      if (answered && dropsConnection(req.fault)) app.pipeline.runFinal(req, reply);
      return answered;
    });
  });
  app.pipeline.onSend(applyBodyFault);
}, { name: 'scenarios', dependencies: ['pipeline', 'request-context'] });
