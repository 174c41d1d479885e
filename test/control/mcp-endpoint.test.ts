// The MCP endpoint itself: both protocol eras, stateless answers of one JSON body, GET/DELETE 405, the admin token,
// and the Host and Origin checks against DNS rebinding.
import { request } from 'node:http';
import { hostname } from 'node:os';
import t from 'tap';
import { mcpClient, listening, structuredOf, textOf } from '../support/mcp-client.js';
import { accounts } from '../helper.js';
import { localhostAllowedHostnames } from '@modelcontextprotocol/server';
import { localhostNames, mcpAllowedHostnames } from '../../src/mcp/allowed-hosts.js';
import { maxMcpSubscriptions } from '../../src/mcp/route.js';
import { lanAddresses } from '../../src/shared/lan.js';

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
  t.same(localhostNames, localhostAllowedHostnames(), "the localhost names are the SDK's");
});

/** A POST with a Host header of our choosing (fetch sets its own). */
function postAs(base: string, host: string, body: unknown): Promise<{ status: number; body: string }> {
  const { port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method: 'POST', path: '/__admin/mcp', headers: { ...jsonHeaders, host } },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => {
          text += chunk.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

t.test('a Host this instance does not answer to is refused; --mcp-allowed-hosts adds one', async (t) => {
  const { base } = await listening(t, { mcpAllowedHosts: ['mocks.example'] });
  const evil = await postAs(base, 'evil.example:3000', initialize);
  t.equal(evil.status, 403);
  t.match(JSON.parse(evil.body), { jsonrpc: '2.0', error: { code: -32000, message: 'Invalid Host: evil.example' } });
  const allowed = await postAs(base, 'mocks.example', initialize);
  t.equal(allowed.status, 200, "the flag's name passes");
  t.match(JSON.parse(allowed.body), { result: { serverInfo: { name: 'portal-mock' } } });
  const local = await postAs(base, 'localhost:1234', initialize);
  t.equal(local.status, 200, 'localhost on any port passes');
});

t.test('with --host 0.0.0.0: the LAN addresses the banner prints and the machine name pass', async (t) => {
  const { base } = await listening(t, { host: '0.0.0.0' }); // the option; the test still listens on loopback
  for (const name of [...lanAddresses(), hostname().toLowerCase()]) {
    const answer = await postAs(base, `${name}:3000`, initialize);
    t.equal(answer.status, 200, `Host ${name}`);
  }
  t.equal((await postAs(base, 'evil.example', initialize)).status, 403, 'another name does not');
});

t.test('with --admin-token: no token or a wrong one is a 401; the token reaches the tools', async (t) => {
  const { app, base } = await listening(t, { adminToken: 's3cret' });
  await t.rejects(mcpClient(t, base), /401|admin token required/, 'no token: the client cannot connect');
  await t.rejects(mcpClient(t, base, { headers: { authorization: 'Bearer wrong' } }), /401|admin token required/);
  const raw = await fetch(`${base}/__admin/mcp`, {
    method: 'POST',
    headers: jsonHeaders,
    body: JSON.stringify(initialize),
  });
  t.equal(raw.status, 401);
  t.match(
    await raw.json(),
    { statusCode: 401, code: 'UNAUTHORIZED', message: /admin token required/ },
    "the control plane's error body",
  );

  const tokenHeaders: Record<string, string>[] = [
    { authorization: 'Bearer s3cret' },
    { 'x-mock-admin-token': 's3cret' },
  ];
  for (const headers of tokenHeaders) {
    const client = await mcpClient(t, base, { headers });
    const listed = structuredOf<{ sandboxes: unknown[] }>(
      await client.callTool({ name: 'list_sandboxes', arguments: {} }),
    );
    t.ok(
      listed.sandboxes.length >= 1,
      `${Object.keys(headers)[0]}: the admin routes behind the tools accept the token`,
    );
  }
  // the admin token is no portal credential: a portal call through the tools is not sent with it
  const client = await mcpClient(t, base, { headers: { authorization: 'Bearer s3cret' } });
  const session = structuredOf<{ headers: Record<string, string> }>(
    await client.callTool({ name: 'sign_in', arguments: { sandbox: 'tok', email: accounts.admin.email } }),
  );
  const tickets = structuredOf<{ status: number }>(
    await client.callTool({
      name: 'call_portal',
      arguments: { sandbox: 'tok', operationId: 'workflowTicketIndex', session: session.headers },
    }),
  );
  t.equal(tickets.status, 200);
  const journal = await app.inject({
    url: '/__admin/requests?sandbox=tok&operationId=workflowTicketIndex',
    headers: { authorization: 'Bearer s3cret' },
  });
  t.notOk(journal.json()[0].requestHeaders.authorization, 'no Authorization reached the portal');
});

t.test('bounds: a body over --body-limit is a 413, a body that is not JSON a 415, nothing else read', async (t) => {
  const { base } = await listening(t, { bodyLimit: 4096 });
  const big = { ...initialize, params: { ...initialize.params, padding: 'x'.repeat(5000) } };
  const tooLarge = await fetch(`${base}/__admin/mcp`, {
    method: 'POST',
    headers: jsonHeaders,
    body: JSON.stringify(big),
  });
  t.equal(tooLarge.status, 413);
  t.match(await tooLarge.json(), { statusCode: 413 });
  const form = await fetch(`${base}/__admin/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'a=1',
  });
  t.equal(form.status, 415);
  t.match(await form.json(), { code: 'UNSUPPORTED_MEDIA_TYPE' });
  const notRpc = await fetch(`${base}/__admin/mcp`, { method: 'POST', headers: jsonHeaders, body: '"hello"' });
  t.equal(notRpc.status, 400, 'a JSON body that is no JSON-RPC message');
});

t.test('a sandbox a peer holds: the tools act on it there (the control plane forwards the inject calls)', async (t) => {
  const { base: ownerBase } = await listening(t, { instanceName: 'owner' });
  const { base: askedBase } = await listening(t, { instanceName: 'asked', peers: [ownerBase] });
  const made = await fetch(`${ownerBase}/__admin/sandboxes/far`, { method: 'PUT' });
  t.equal(made.status, 201);
  const client = await mcpClient(t, askedBase);
  const clock = structuredOf<{ now: string }>(
    await client.callTool({ name: 'set_clock', arguments: { sandbox: 'far', freeze: '2026-04-01T00:00:00.000Z' } }),
  );
  t.equal(clock.now, '2026-04-01T00:00:00.000Z');
  const there = (await (await fetch(`${ownerBase}/__admin/clock?sandbox=far`)).json()) as { now: string };
  t.equal(there.now, '2026-04-01T00:00:00.000Z', 'the clock changed on the owner');
  const here = await fetch(`${askedBase}/__admin/sandboxes?scope=local`);
  t.notOk(
    ((await here.json()) as { name: string }[]).some((s) => s.name === 'far'),
    'no copy of far was made on the instance asked',
  );
  // the portal calls of the tools are relayed too: a two-factor sign-in (its code read from the owner's outbox)
  const session = structuredOf<{ twoFactor: boolean; headers: Record<string, string> }>(
    await client.callTool({ name: 'sign_in', arguments: { sandbox: 'far', email: accounts.twoFactor.email } }),
  );
  t.equal(session.twoFactor, true);
  const tickets = structuredOf<{ status: number; headers: Record<string, string> }>(
    await client.callTool({
      name: 'call_portal',
      arguments: { sandbox: 'far', operationId: 'workflowTicketIndex', session: session.headers },
    }),
  );
  t.same([tickets.status, tickets.headers['x-mock-instance']], [200, 'owner'], 'a portal call answered by the owner');
  const keyed = await fetch(`${askedBase}/__admin/mcp`, {
    method: 'POST',
    headers: { ...jsonHeaders, 'x-mock-sandbox': 'far' },
    body: JSON.stringify(initialize),
  });
  t.equal(keyed.status, 200);
  t.equal(
    keyed.headers.get('x-mock-instance'),
    'asked',
    'the endpoint answers where it is asked, whatever key it names',
  );
  const missing = await client.callTool({ name: 'read_outbox', arguments: { sandbox: 'nowhere' } });
  t.match(textOf(missing), /404 SANDBOX_NOT_FOUND: sandbox "nowhere" does not exist on instance asked or its peers/);
});

t.test('subscriptions/listen streams are bounded, and end when the server closes', async (t) => {
  const { app, base } = await listening(t);
  const client = await mcpClient(t, base, { era: 'modern' });
  const open = [];
  for (let i = 0; i < maxMcpSubscriptions; i++) open.push(await client.listen({ toolsListChanged: true }));
  await t.rejects(
    client.listen({ toolsListChanged: true }),
    /Subscription limit reached/,
    `the ${maxMcpSubscriptions + 1}th`,
  );
  await open[0]?.close();
  const again = await client.listen({ toolsListChanged: true });
  t.ok(again, 'a closed one makes room');
  await app.close(); // waits for no stream: each ends, with its connection
  t.equal(await again.closed, 'graceful', 'the server ended the stream');
});
