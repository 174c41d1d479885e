import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors, ref } from '../../schemas/common.js';
import { fail } from '../../errors.js';
import { Data } from '../../schemas/tenant-data.js';
import { checkOrThrow, CheckError } from '../../schemas/check.js';
import { SandboxInfo, Snapshot } from '../../schemas/control.js';
import { clockProblem } from '../../store/clock.js';
import { sandboxInfo, SandboxQuery } from '../sandbox.js';
import { sendJsonStream } from '../export-stream.js';

const tags = ['mock'];

/** A sandbox's whole data as a snapshot: exported, and imported over it. */
export const stateRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/state',
    {
      schema: {
        operationId: 'mockStateExport',
        tags,
        summary: 'Export the sandbox as a snapshot',
        querystring: SandboxQuery,
        description:
          'The whole data of the sandbox as a snapshot (JSON), to save and import later with PUT /__admin/state or ' +
          '--state. Streamed as it is written (a client that reads nothing for --export-stall-timeout ms is cut). A ' +
          'sandbox that does not exist is a 404 (SANDBOX_NOT_FOUND); reading creates nothing.',
        response: { 200: ref(Snapshot), ...errors(400, 401, 404, 502, 503) },
      },
      config: { sandbox: 'read' },
    },
    async (req, reply) => {
      const { sandbox } = req.mock;
      // taken now, streamed after: toData holds the store's frozen collections as they are at this instant, so
      // writes made while the export streams do not tear it. The keys in the order the schema's serializer wrote
      // them before the export streamed (its required ones first): the same bytes as then
      return sendJsonStream(reply, {
        format: 'portal-mock-state' as const,
        version: 1 as const,
        data: sandbox.store.toData(),
        sandbox: sandbox.name,
        seed: sandbox.store.meta.seed,
        scenario: sandbox.scenario,
        clock: sandbox.clock.state,
      });
    },
  );

  app.put(
    '/state',
    {
      schema: {
        operationId: 'mockStateImport',
        tags,
        summary: 'Import a snapshot (validated; an invalid one changes nothing)',
        description:
          'Replaces the data of the sandbox with a snapshot of GET /__admin/state. The snapshot is checked first: an ' +
          'invalid one is a 422 and changes nothing.',
        querystring: SandboxQuery,
        body: ref(Snapshot),
        response: { 200: ref(SandboxInfo), ...errors(400, 401, 422) },
      },
      bodyLimit: 256 * 1024 * 1024,
      config: { sandbox: 'write' },
    },
    async (req) => {
      let data;
      try {
        data = checkOrThrow(Data, req.body.data, 'snapshot data');
      } catch (e) {
        if (e instanceof CheckError)
          throw fail.unprocessable(`invalid snapshot: at data${e.path}: ${e.expected}`, [
            { field: `body.data${e.path.replace(/\//g, '.')}`, message: e.expected },
          ]);
        throw e;
      }
      if (req.body.scenario !== undefined && !app.scenarios.get(req.body.scenario)) {
        throw fail.unprocessable(
          `invalid snapshot: unknown scenario "${req.body.scenario}"; known: ${app.scenarios.names().join(', ')}`,
        );
      }
      const clockRefused = req.body.clock ? clockProblem(req.body.clock) : null;
      if (clockRefused)
        throw fail.unprocessable(`invalid snapshot: clock: ${clockRefused}`, [
          { field: 'body.clock', message: clockRefused },
        ]);
      const { sandbox } = req.mock; // everything checked: only now is it changed
      app.sandboxes.replaceData(sandbox, data); // parsed for this request alone: no copy needed
      if (req.body.scenario !== undefined) sandbox.scenario = req.body.scenario;
      if (req.body.clock) sandbox.clock.state = req.body.clock;
      return sandboxInfo(sandbox, app.instance.name);
    },
  );
};
