// Thin tools over the sandbox routes: make, list, reset, delete.
import { Type } from '@sinclair/typebox';
import type { McpServer } from '@modelcontextprotocol/server';
import { SandboxInfo } from '../../schemas/control.js';
import type { AdminCall } from '../admin-call.js';
import { toolSchema } from '../json-schema.js';
import { fromAnswer } from '../results.js';

const ListSandboxesInput = toolSchema(Type.Object({}, { additionalProperties: false }));
const ListSandboxesOutput = toolSchema(Type.Object({ sandboxes: Type.Array(SandboxInfo) }));

export function registerSandboxTools(server: McpServer, call: AdminCall): void {
  server.registerTool(
    'list_sandboxes',
    {
      title: 'List sandboxes',
      description:
        'Every sandbox that exists (of this instance and its peers): name, scenario, clock, journal and outbox ' +
        'sizes, instance. Use it to find a sandbox to reuse.',
      inputSchema: ListSandboxesInput,
      outputSchema: ListSandboxesOutput,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async () => fromAnswer(await call({ method: 'GET', url: '/__admin/sandboxes' }), (body) => ({ sandboxes: body })),
  );
}
