// The MCP server of the mock: its tools, resources and prompts, built for one request (the endpoint is stateless)
// or one stdio connection. Everything it does goes through `call`, the control plane's own routes, so a tool's
// errors are the admin API's and a sandbox a peer holds is answered by its owner.
import { McpServer } from '@modelcontextprotocol/server';
import type { AdminCall } from './admin-call.js';
import { registerSandboxTools } from './tools/sandboxes.js';

export type MockMcpServerOptions = {
  /** sends an admin or portal request (app.inject over HTTP, fetch from a stdio bridge) */
  call: AdminCall;
  /** the package version, shown to clients as the server's */
  version: string;
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
  registerSandboxTools(server, options.call);
  return server;
}
