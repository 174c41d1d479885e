// WireMock's scenarios of a sandbox (their states, a reset, one set to a state) and the reset of the sandbox's
// WireMock as a whole (mappings, states, journal).
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors } from '../../../schemas/common.js';
import { startedState } from '../../../wiremock/match.js';
import { Empty, Scenario, ScenarioParams, WireMockError, WireMockOrOwnError, shown, tags, wmError } from './common.js';

export const wiremockScenarioRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/scenarios',
    {
      schema: {
        operationId: 'wiremockScenariosList',
        tags,
        summary: "The sandbox's WireMock scenarios",
        description:
          'Every scenario a mapping names: its state, the states its mappings mention, and its mappings. States ' +
          'are per sandbox: two sandboxes with the same scenario names never share one.',
        response: { 200: Type.Object({ scenarios: Type.Array(Scenario) }), ...errors(401, 429) },
      },
      config: { sandbox: 'use' },
    },
    async (req) => {
      const stubs = req.mock.sandbox.wiremock;
      return {
        scenarios: stubs.scenarios().map((s) => ({
          ...s,
          mappings: stubs.mappings.filter((m) => m.scenarioName === s.name).map(shown), // oldest first, as WireMock
        })),
      };
    },
  );

  app.post(
    '/scenarios/reset',
    {
      schema: {
        operationId: 'wiremockScenariosReset',
        tags,
        summary: 'Every scenario back to Started',
        description: 'Every WireMock scenario of the sandbox back in the state Started; its mappings and journal stay.',
        response: { 200: Empty, ...errors(401, 429) },
      },
      config: { sandbox: 'write' },
    },
    async (req) => {
      const { sandbox } = req.mock;
      sandbox.wiremock = sandbox.wiremock.withStatesReset();
      return {};
    },
  );

  app.put(
    '/scenarios/:name/state',
    {
      schema: {
        operationId: 'wiremockScenarioSetState',
        tags,
        summary: 'Put a scenario in a state',
        description:
          'Moves the scenario to `state` (Started when not given). A scenario no mapping names is a 404, a state ' +
          "none of its mappings mentions a 422, in WireMock's shape.",
        params: ScenarioParams,
        body: Type.Object({ state: Type.Optional(Type.String({ minLength: 1 })) }),
        response: { 200: Empty, 404: WireMockOrOwnError, 422: WireMockError, ...errors(400, 401, 429) },
      },
      config: { sandbox: 'write' },
    },
    async (req, reply) => {
      const { sandbox } = req.mock;
      const { name } = req.params;
      const state = req.body.state ?? startedState;
      const scenario = sandbox.wiremock.scenarios().find((s) => s.name === name);
      const shortName = name.slice(0, 200);
      if (!scenario) return reply.code(404).send(wmError(404, `Scenario ${shortName} does not exist`));
      if (!scenario.possibleStates.includes(state))
        return reply.code(422).send(wmError(11, `Scenario ${shortName} does not support state ${state.slice(0, 200)}`));
      sandbox.wiremock = sandbox.wiremock.withState(name, state);
      return {};
    },
  );

  app.post(
    '/reset',
    {
      schema: {
        operationId: 'wiremockReset',
        tags,
        summary: 'Reset mappings, scenario states and journal',
        description:
          "The sandbox's mappings back to the start ones (--wiremock DIR's, then its scenario's), every scenario " +
          'Started, its journal ' +
          "emptied, as WireMock's reset. Its data, clock and portal scenario stay (POST /__admin/reset resets those).",
        response: { 200: Empty, ...errors(401, 429) },
      },
      config: { sandbox: 'write' },
    },
    async (req) => {
      const { sandbox } = req.mock;
      sandbox.wiremock = app.scenarios.wiremockOf(sandbox.scenario);
      sandbox.journal.clear();
      return {};
    },
  );
};
