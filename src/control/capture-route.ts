import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors } from '../schemas/common.js';
import { ScenarioFile } from '../schemas/scenario.js';
import { checkSandboxName } from '../store/sandbox.js';
import { forwardToOwner } from './peers.js';
import { sandboxNotFound } from './sandbox.js';
import { bugCapture, captureName } from './capture.js';

const tags = ['mock'];

/** GET /__admin/sandboxes/{name}/capture: the sandbox as one scenario file that replays it anywhere (docs/data.md). */
export const adminCaptureRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/__admin/sandboxes/:name/capture',
    {
      schema: {
        operationId: 'mockSandboxCapture',
        tags,
        summary: 'A bug capture: the sandbox as one scenario file that replays it byte for byte on any server',
        description:
          'The sandbox as a scenario file: `pin` (the seed and reference date of its base world, its clock frozen at ' +
          'this instant, the id-less collections it changed), `data` (its data changes, every collection, sign-ins ' +
          'included), and the behaviour of its scenario with what that extends, flattened. Applied on another server ' +
          '(PUT /__admin/scenario with it inline, PUT /__admin/scenarios/{name}, or a file and --scenario), started ' +
          'on any day with any --now and --seed, the sandbox answers every GET as this one does now. Answered as a ' +
          'download (content-disposition). Reads never make a sandbox (404); a sandbox whose tenant record a state ' +
          'import changed is a 409.',
        params: Type.Object({ name: Type.String() }),
        querystring: Type.Object({
          as: Type.Optional(
            Type.String({
              pattern: '^[a-z0-9][a-z0-9-]{0,63}$',
              description: 'the scenario name of the capture (default capture-NAME)',
            }),
          ),
        }),
        response: { 200: ScenarioFile, ...errors(400, 401, 404, 409, 502, 503) },
      },
    },
    async (req, reply) => {
      const name = checkSandboxName(req.params.name);
      if (await forwardToOwner(req, reply, name)) return reply;
      const sandbox = app.sandboxes.find(name);
      if (!sandbox) throw sandboxNotFound(req, name);
      const scenarioName = req.query.as ?? captureName(name);
      const capture = bugCapture(sandbox, app.scenarios.get(sandbox.scenario), {
        name: scenarioName,
        instance: app.instance.name,
      });
      reply.header('content-disposition', `attachment; filename="${scenarioName}.json"`);
      return capture;
    },
  );
};
