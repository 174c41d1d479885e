// Thin tools where the control plane already fits: list, reset and delete sandboxes, switch or define a scenario,
// set the clock. Each is one admin call; its refusal is the tool's error.
import { Type } from '@sinclair/typebox';
import type { McpServer } from '@modelcontextprotocol/server';
import { ActiveScenario, ClockAnswer, ClockChange, SandboxInfo } from '../../schemas/control.js';
import { toolSchema } from '../json-schema.js';
import { fromAnswer } from '../results.js';
import { adminUrl, SandboxName, type ToolContext } from './context.js';

const closed = { additionalProperties: false };
const SandboxInput = Type.Object({ sandbox: SandboxName }, closed);

const schemas = {
  listIn: toolSchema(Type.Object({}, closed)),
  listOut: toolSchema(Type.Object({ sandboxes: Type.Array(SandboxInfo) })),
  resetIn: toolSchema(
    Type.Object(
      {
        sandbox: SandboxName,
        seed: Type.Optional(Type.Integer({ minimum: 0, maximum: 2 ** 31 - 1, description: 'reseed with this seed' })),
      },
      closed,
    ),
  ),
  sandboxOut: toolSchema(SandboxInfo),
  deleteIn: toolSchema(SandboxInput),
  deleteOut: toolSchema(Type.Object({ deleted: Type.String() })),
  scenarioIn: toolSchema(
    Type.Object(
      {
        sandbox: SandboxName,
        name: Type.Optional(Type.String({ minLength: 1, description: 'a known scenario (a wrong one lists them)' })),
        definition: Type.Optional(
          Type.Object(
            {},
            {
              additionalProperties: true,
              description: 'a whole scenario inline (resource portal-mock://schemas/scenario), with its own name',
            },
          ),
        ),
      },
      closed,
    ),
  ),
  scenarioOut: toolSchema(ActiveScenario),
  clockIn: toolSchema(Type.Object({ sandbox: SandboxName, ...ClockChange.properties }, closed)),
  clockOut: toolSchema(ClockAnswer),
};

const readOnly = { readOnlyHint: true, idempotentHint: true, openWorldHint: false };
const moveClock = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
const destroy = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };
const asObject = (body: unknown) => body as Record<string, unknown>;

export function registerSandboxTools(server: McpServer, { call }: ToolContext): void {
  server.registerTool(
    'list_sandboxes',
    {
      title: 'List sandboxes',
      description:
        'Every sandbox (this instance and its peers): name, scenario, clock, journal and outbox sizes. Use it to ' +
        "find one to reuse (its name feeds any tool's `sandbox`); arrange_sandbox makes one.",
      inputSchema: schemas.listIn,
      outputSchema: schemas.listOut,
      annotations: readOnly,
    },
    async () => fromAnswer(await call({ method: 'GET', url: '/__admin/sandboxes' }), (body) => ({ sandboxes: body })),
  );

  server.registerTool(
    'reset_sandbox',
    {
      title: 'Reset a sandbox',
      description:
        'Puts a sandbox back to its seeded state (data, start scenario, clock, journal, outbox); made if missing. ' +
        "Returns the sandbox, whose name feeds the other tools' `sandbox`.",
      inputSchema: schemas.resetIn,
      outputSchema: schemas.sandboxOut,
      annotations: destroy,
    },
    async ({ sandbox, seed }) =>
      fromAnswer(
        await call({
          method: 'POST',
          url: adminUrl('/__admin/reset', { sandbox }),
          body: seed === undefined ? {} : { seed },
        }),
        asObject,
      ),
  );

  server.registerTool(
    'delete_sandbox',
    {
      title: 'Delete a sandbox',
      description:
        'Deletes a sandbox and its data (not default: reset it). Returns the name deleted; nothing takes it further.',
      inputSchema: schemas.deleteIn,
      outputSchema: schemas.deleteOut,
      annotations: destroy,
    },
    async ({ sandbox }) =>
      fromAnswer(await call({ method: 'DELETE', url: `/__admin/sandboxes/${encodeURIComponent(sandbox)}` }), asObject),
  );

  server.registerTool(
    'set_scenario',
    {
      title: 'Switch or define a scenario',
      description:
        'Activates a scenario in a sandbox (stubs, faults, latency, data effects): `name` of a known one, or a ' +
        '`definition` inline (defined, then activated). Give one of them. Returns the active scenario; call_portal ' +
        'then answers by it.',
      inputSchema: schemas.scenarioIn,
      outputSchema: schemas.scenarioOut,
      annotations: destroy, // a scenario's data block changes records
    },
    async ({ sandbox, name, definition }) =>
      fromAnswer(
        await call({
          method: 'PUT',
          url: adminUrl('/__admin/scenario', { sandbox }),
          body: {
            ...(name === undefined ? {} : { name }),
            ...(definition === undefined ? {} : { scenario: definition }),
          },
        }),
        asObject,
      ),
  );

  server.registerTool(
    'set_clock',
    {
      title: 'Set the sandbox clock',
      description:
        'Exactly one of: freeze (ISO instant), offsetMs (real time shifted), advanceMs (move on, e.g. past a ' +
        'session lifetime), mode "real". Returns now and the clock state; call_portal then answers at that time.',
      inputSchema: schemas.clockIn,
      outputSchema: schemas.clockOut,
      annotations: moveClock, // advanceMs twice moves twice
    },
    async ({ sandbox, ...clock }) =>
      fromAnswer(await call({ method: 'PUT', url: adminUrl('/__admin/clock', { sandbox }), body: clock }), asObject),
  );
}
