// The MCP server of the mock: its tools, resources and prompts, built for one request (the endpoint is stateless)
// or one stdio connection. Everything it does goes through `call`, the control plane's own routes, so a tool's
// errors are the admin API's and a sandbox a peer holds is answered by its owner.
import { McpServer } from '@modelcontextprotocol/server';
import type { AdminCall } from './admin-call.js';
import { registerPrompts } from './prompts.js';
import { registerResources } from './resources.js';
import { registerArrangeTool } from './tools/arrange.js';
import { registerCaptureTools } from './tools/capture.js';
import { type OperationIndex, operationsFromDocument, type ToolContext } from './tools/context.js';
import { registerObserveTools } from './tools/observe.js';
import { registerPortalTools } from './tools/portal.js';
import { registerRecordTools } from './tools/records.js';
import { registerSandboxTools } from './tools/sandboxes.js';
import { registerSessionTools } from './tools/session.js';

export type MockMcpServerOptions = {
  /** sends an admin or portal request (app.inject over HTTP, fetch from a stdio bridge) */
  call: AdminCall;
  /** the package version, shown to clients as the server's */
  version: string;
  /** the portal's operations by id; default: read from /docs/json through `call` once per server */
  operations?: () => Promise<OperationIndex>;
};

/** Instructions an agent reads once at initialize: where to start. */
const instructions =
  'portal-mock: a stateful mock of a corporate portal API, in sandboxes. Start with arrange_sandbox (a sandbox, ' +
  'scenario, clock, records and a signed-in user in one call), then call_portal with the session headers it ' +
  'returns; read_journal and read_findings say what the app did and what the real portal would do differently.';

/** A configured McpServer over the control plane reached through `options.call`. */
export function createMockMcpServer(options: MockMcpServerOptions): McpServer {
  const server = new McpServer(
    { name: 'portal-mock', version: options.version },
    { capabilities: { tools: {}, resources: {}, prompts: {} }, instructions },
  );
  const context: ToolContext = {
    call: options.call,
    operations: options.operations ?? operationsFromDocument(options.call),
  };
  // in the order an agent needs them
  registerArrangeTool(server, context);
  registerSessionTools(server, context);
  registerPortalTools(server, context);
  registerObserveTools(server, context);
  registerRecordTools(server, context);
  registerSandboxTools(server, context);
  registerCaptureTools(server, context);
  registerResources(server, options.call);
  registerPrompts(server);
  return server;
}
