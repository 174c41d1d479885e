import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { fail } from '../errors.js';
import type { ScenarioRegistry } from './registry.js';

declare module 'fastify' {
  interface FastifyInstance {
    scenarios: ScenarioRegistry;
  }
}

/** Resolves which scenario applies to each request: the x-mock-scenario header (this request only), else the sandbox's. */
export const scenarioPlugin = fp(async (app: FastifyInstance) => {
  app.decorateRequest('scenario', null);
  app.decorateRequest('scenarioFromHeader', false);
  app.addHook('onRequest', async (req) => {
    const fromHeader = req.headers['x-mock-scenario'];
    if (typeof fromHeader === 'string' && fromHeader !== '') {
      const scenario = app.scenarios.get(fromHeader);
      if (!scenario) throw fail.badRequest(`unknown scenario "${fromHeader.slice(0, 80)}" in x-mock-scenario; known: ${app.scenarios.names().join(', ')}`);
      req.scenario = scenario;
      req.scenarioFromHeader = true;
      return;
    }
    req.scenario = app.scenarios.get(req.sandbox.scenario) ?? null;
  });
}, { name: 'scenarios', dependencies: ['request-context'] });
