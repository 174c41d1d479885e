// The MCP endpoint itself: both protocol eras, stateless answers of one JSON body, GET/DELETE 405, the admin token,
// and the Host and Origin checks against DNS rebinding.
import t from 'tap';
import { mcpClient, listening } from './support/mcp-client.js';
import { mcpAllowedHostnames } from '../src/mcp/allowed-hosts.js';

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const jsonHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

t.test('both eras: initialize, then tools/list with a real tool, through the SDK client', async (t) => {
  const { base } = await listening(t);
  for (const era of ['legacy', 'modern'] as const) {
    const client = await mcpClient(t, base, { era });
    t.equal(client.getServerVersion()?.name, 'portal-mock', `${era}: server name`);
    const { tools } = await client.listTools();
    t.ok(
      tools.some((tool) => tool.name === 'list_sandboxes'),
      `${era}: list_sandboxes listed`,
    );
  }
});

t.test('stateless: no session id, one JSON body; GET and DELETE are 405 with a JSON-RPC error', async (t) => {
  const { base } = await listening(t);
  const res = await fetch(`${base}/__admin/mcp`, {
    method: 'POST',
    headers: jsonHeaders,
    body: JSON.stringify(initialize),
  });
  t.equal(res.status, 200);
  t.equal(res.headers.get('mcp-session-id'), null, 'no session');
  t.match(res.headers.get('content-type'), /^application\/json/, 'one JSON body, no event stream');
  t.match(await res.json(), { jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'portal-mock' } } });
  for (const method of ['GET', 'DELETE']) {
    const other = await fetch(`${base}/__admin/mcp`, { method });
    t.equal(other.status, 405, method);
    t.match(await other.json(), { jsonrpc: '2.0', error: { code: -32000 } }, `${method}: JSON-RPC error`);
  }
});

t.test('a foreign Origin or Host is refused with 403 and a JSON-RPC error', async (t) => {
  const { base } = await listening(t);
  const origin = await fetch(`${base}/__admin/mcp`, {
    method: 'POST',
    headers: { ...jsonHeaders, origin: 'http://evil.example' },
    body: JSON.stringify(initialize),
  });
  t.equal(origin.status, 403);
  t.match(await origin.json(), { jsonrpc: '2.0', error: { message: /Invalid Origin: evil\.example/ } });
  const local = await fetch(`${base}/__admin/mcp`, {
    method: 'POST',
    headers: { ...jsonHeaders, origin: 'http://localhost:5173' },
    body: JSON.stringify(initialize),
  });
  t.equal(local.status, 200, 'a localhost origin on another port passes');
});

t.test('the allowed names: localhost, --host or the LAN addresses and machine name, the peers, the flag', async (t) => {
  const names = mcpAllowedHostnames({
    host: '0.0.0.0',
    peers: ['http://mock-b:3000,https://Mock-C.internal:8443', 'dns:mocks.svc:3000'],
    extra: ['Balancer.example,[::2]'],
    lan: ['192.168.1.20'],
    machine: 'Dev-Box',
  });
  t.same(names, [
    'localhost',
    '127.0.0.1',
    '[::1]',
    '192.168.1.20',
    'dev-box',
    'mock-b',
    'mock-c.internal',
    'mocks.svc',
    'balancer.example',
    '[::2]',
  ]);
  const bound = mcpAllowedHostnames({ host: '10.0.0.5', peers: [], extra: [], lan: ['192.168.1.20'], machine: 'x' });
  t.same(bound, ['localhost', '127.0.0.1', '[::1]', '10.0.0.5'], 'a --host other than 0.0.0.0: that address only');
});
