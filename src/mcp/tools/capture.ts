// A bug capture (the sandbox as one scenario file that replays it byte for byte, docs/data.md) and its replay in a
// sandbox of this or another server.
import { Type } from '@sinclair/typebox';
import type { McpServer } from '@modelcontextprotocol/server';
import { ActiveScenario } from '../../schemas/control.js';
import { toolSchema } from '../json-schema.js';
import { accepted, fromAnswer, structured } from '../results.js';
import { adminUrl, SandboxName, type ToolContext } from './context.js';

const closed = { additionalProperties: false };
/**
 * Bytes of a capture the tool answers inline: past this (256 KiB, some 64,000 tokens) it would fill an agent's
 * context, so the tool answers where to download it and its size instead (docs/mcp.md).
 */
export const maxInlineCaptureBytes = 256 * 1024;
const Capture = Type.Object(
  { name: Type.String() },
  {
    additionalProperties: true,
    description:
      'a bug capture: a scenario file with summary (read it first), pin, data (what was arranged), followed (what ' +
      'the clock moved on) and wiremock (its stubs), as capture_sandbox returns it',
  },
);
const schemas = {
  captureIn: toolSchema(
    Type.Object(
      {
        sandbox: SandboxName,
        as: Type.Optional(
          Type.String({
            pattern: '^[a-z0-9][a-z0-9-]{0,63}$',
            description: 'its scenario name (default capture-NAME)',
          }),
        ),
      },
      closed,
    ),
  ),
  captureOut: toolSchema(
    Type.Object({
      bytes: Type.Integer({ description: 'its size as JSON' }),
      capture: Type.Optional(Capture),
      url: Type.Optional(
        Type.String({
          description: `where to download a capture larger than ${maxInlineCaptureBytes} bytes, given instead of it`,
        }),
      ),
      fetch: Type.Optional(Type.String({ description: 'how to download it' })),
    }),
  ),
  replayIn: toolSchema(Type.Object({ sandbox: SandboxName, capture: Capture }, closed)),
  replayOut: toolSchema(ActiveScenario),
};

export function registerCaptureTools(server: McpServer, { call }: ToolContext): void {
  server.registerTool(
    'capture_sandbox',
    {
      title: 'Capture a sandbox as a bug file',
      description:
        'The sandbox as one scenario file that replays it byte for byte on any server: `summary` (a few lines: the ' +
        'clock, the scenario, what was arranged and what followed), `pin` (seed, frozen clock), `data` (the changes ' +
        "that were arranged; a group's membership as the ids that joined), `followed` (base tickets the clock moved " +
        'on), `wiremock` (its WireMock stubs and scenario states, if any), its scenario flattened. Attach it to a bug ' +
        'report, or give `capture` unchanged to replay_capture. A capture ' +
        `larger than ${maxInlineCaptureBytes} bytes is not inlined: the answer gives its size and the URL to ` +
        'download it from.',
      inputSchema: schemas.captureIn,
      outputSchema: schemas.captureOut,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ sandbox, as }) => {
      const url = adminUrl(`/__admin/sandboxes/${encodeURIComponent(sandbox)}/capture`, { as });
      const answer = await call({ method: 'GET', url, maxBytes: maxInlineCaptureBytes });
      if (answer.bytes !== undefined && accepted(answer))
        return structured({
          bytes: answer.bytes,
          url,
          fetch:
            `${answer.bytes} bytes, more than the ${maxInlineCaptureBytes} answered inline: download it with GET ` +
            `${url} on this server (the admin token as for this endpoint), e.g. curl -o capture.json ` +
            `"http://HOST:PORT${url}"; give the file to replay_capture or PUT /__admin/scenario`,
        });
      return fromAnswer(answer, (capture) => ({ bytes: Buffer.byteLength(JSON.stringify(capture)), capture }));
    },
  );

  server.registerTool(
    'replay_capture',
    {
      title: 'Replay a bug capture',
      description:
        'Defines a capture_sandbox file as a scenario on this server and activates it in a sandbox (made if ' +
        'missing): its world, clock, data, followed and WireMock stubs (none if the capture has none), all or ' +
        'nothing, so the sandbox then answers as the captured one did. Returns the active scenario; then call_portal ' +
        'in that sandbox (the captured session still signs). Absolute URLs in answers carry the Host of the server ' +
        "answering, so on another server they differ in host:port only: give call_portal `host` the origin's " +
        'host:port to compare bytes.',
      inputSchema: schemas.replayIn,
      outputSchema: schemas.replayOut,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ sandbox, capture }) =>
      fromAnswer(
        await call({ method: 'PUT', url: adminUrl('/__admin/scenario', { sandbox }), body: { scenario: capture } }),
        (body) => body as Record<string, unknown>,
      ),
  );
}
