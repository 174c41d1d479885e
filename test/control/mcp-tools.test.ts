// Every MCP tool through the SDK's own client over real HTTP, each checked by its effect as the admin API reads it
// (app.inject), not only by its own answer; bad arguments; the resources, the template and the prompts.
import t from 'tap';
import { accounts, tenants } from '../helper.js';
import { listening, mcpClient, structuredOf, textOf } from '../support/mcp-client.js';
import { maxArrangeEntries } from '../../src/mcp/tools/arrange.js';
import { maxBodyChars } from '../../src/mcp/tools/portal.js';
import { maxJournalEntries } from '../../src/mcp/tools/observe.js';
import { maxInlineCaptureBytes } from '../../src/mcp/tools/capture.js';

// any: answers of many admin routes; each assertion reads the fields it knows
type Json = any;
type Args = Record<string, unknown>;
const promptText = (prompt: { messages: { content: unknown }[] }) =>
  (prompt.messages[0]?.content as { text?: string } | undefined)?.text ?? '';

const setup = async (t: { teardown(fn: () => unknown): void }) => {
  const { app, base } = await listening(t);
  const client = await mcpClient(t, base);
  const admin = async (url: string): Promise<{ status: number; body: Json }> => {
    const res = await app.inject({ url, headers: { host: new URL(base).host } }); // as the tools' calls name it
    return { status: res.statusCode, body: res.json() };
  };
  const call = (name: string, args: Args) => client.callTool({ name, arguments: args });
  return { app, client, admin, call };
};

t.test('tools/list: every tool described, with schemas and annotations; the whole list under 40 KB', async (t) => {
  const { client } = await setup(t);
  const list = await client.listTools();
  const bytes = Buffer.byteLength(JSON.stringify(list));
  t.comment(`tools/list: ${list.tools.length} tools, ${bytes} bytes as JSON`);
  t.ok(bytes < 40 * 1024, `tools/list is ${bytes} bytes, under 40 KB`);
  t.same(
    list.tools.map((tool) => tool.name),
    [
      'arrange_sandbox',
      'sign_in',
      'call_portal',
      'read_journal',
      'read_findings',
      'read_outbox',
      'records',
      'list_sandboxes',
      'reset_sandbox',
      'delete_sandbox',
      'set_scenario',
      'set_clock',
      'capture_sandbox',
      'replay_capture',
    ],
  );
  for (const tool of list.tools) {
    t.ok((tool.description ?? '').length > 40, `${tool.name}: a description an agent can act on`);
    t.equal(tool.inputSchema.type, 'object', `${tool.name}: an input schema`);
    t.equal(tool.outputSchema?.type, 'object', `${tool.name}: an output schema`);
    t.equal(tool.annotations?.openWorldHint, false, `${tool.name}: closed world`);
    t.equal(typeof tool.annotations?.readOnlyHint, 'boolean', `${tool.name}: readOnlyHint`);
    t.notMatch(JSON.stringify(tool.inputSchema), /\$ref/, `${tool.name}: a schema that stands alone`);
  }
  const records = list.tools.find((tool) => tool.name === 'records');
  t.ok(
    (records?.inputSchema.properties?.collection as { enum?: string[] } | undefined)?.enum?.includes('wfTickets'),
    'records: the collections as an enum',
  );
});

t.test('arrange_sandbox makes a sandbox, its clock, records and a two-factor sign-in in one call', async (t) => {
  const { admin, call } = await setup(t);
  const arranged = structuredOf<Json>(
    await call('arrange_sandbox', {
      sandbox: 'qa-1',
      scenario: 'slow-network',
      clock: { freeze: '2026-03-05T10:00:00.000Z' },
      records: [
        { collection: 'users', fields: { twoFactor: true } },
        { collection: 'wfTickets', fields: { userId: '$0', statusId: 3 } },
      ],
      signIn: { record: 0 },
    }),
  );
  t.match(arranged, { sandbox: 'qa-1', created: true, scenario: 'slow-network', now: '2026-03-05T10:00:00.000Z' });
  const [users, tickets] = arranged.made;
  t.equal(users.collection, 'users');
  t.ok(users.dependents.employments.length === 1, "the user's employment is made with it");
  const sandbox = await admin('/__admin/sandboxes/qa-1');
  t.match(sandbox.body, { scenario: 'slow-network', clock: { mode: 'frozen', at: '2026-03-05T10:00:00.000Z' } });
  const ticket = await admin(`/__admin/data/${tenants.romashka}/wfTickets/${tickets.ids[0]}?sandbox=qa-1`);
  t.match(ticket.body, { userId: users.ids[0], statusId: 3 }, '"$0" named the user made first');
  t.match(arranged.session, {
    userId: users.ids[0],
    twoFactor: true,
    headers: { 'x-service-tenant-id': tenants.romashka },
  });
  const codes = await admin('/__admin/outbox?sandbox=qa-1&kind=two-factor-code');
  t.equal(codes.body.length, 1, 'the code came from the outbox');
  const signIns = await admin('/__admin/requests/count?sandbox=qa-1&path=/mobile/*&status=200');
  t.equal(signIns.body.count, 3, 'request-two-factor, manual-bind, auth: the real flow');

  const own = structuredOf<Json>(
    await call('arrange_sandbox', {
      sandbox: 'qa-1',
      records: [{ collection: 'users', fields: { password: 'Secret-42' } }],
      signIn: { record: 0 },
    }),
  );
  t.match(own, { created: false, session: { twoFactor: false } }, "a made user signs in with its record's password");

  const again = structuredOf<Json>(await call('arrange_sandbox', { sandbox: 'qa-1', reset: true }));
  t.match(again, { created: false, scenario: 'default', made: [] }, 'reused and reset');
  const gone = await admin(`/__admin/data/${tenants.romashka}/wfTickets/${tickets.ids[0]}?sandbox=qa-1`);
  t.equal(gone.status, 404, 'the reset dropped the made ticket');
});

t.test('arrange_sandbox refuses before doing anything, and a refused step leaves no sandbox it made', async (t) => {
  const { admin, call } = await setup(t);
  const early = await call('arrange_sandbox', {
    sandbox: 'qa-2',
    records: [{ collection: 'wfTickets', fields: { userId: '$0' } }],
    signIn: { record: 0 },
  });
  t.ok(early.isError);
  t.match(
    textOf(early),
    /nothing was done: records\[0\]\.fields: "\$0" must name an earlier entry.*signIn\.record: records\[0\] must be a users entry/,
  );
  const refused = await call('arrange_sandbox', {
    sandbox: 'qa-2',
    records: [{ collection: 'users', fields: { twoFactor: 'yes' } }],
  });
  t.ok(refused.isError);
  t.match(
    textOf(refused),
    /^records\[0\] \(users\): 400 VALIDATION_FAILED: .*twoFactor.*\(the sandbox it made was deleted again\)/,
  );
  t.equal((await admin('/__admin/sandboxes/qa-2')).status, 404, 'no sandbox left behind');
});

t.test('sign_in, call_portal (by operationId and by path), read_journal with expectCount', async (t) => {
  const { admin, call } = await setup(t);
  const session = structuredOf<Json>(await call('sign_in', { sandbox: 'qa-3', email: accounts.admin.email }));
  t.match(session, { email: accounts.admin.email, userId: accounts.admin.userId, twoFactor: false });
  const byId = structuredOf<Json>(
    await call('call_portal', {
      sandbox: 'qa-3',
      operationId: 'workflowTicketIndex',
      query: { 'per-page': 2 },
      session: session.headers,
    }),
  );
  t.match(byId, { operation: 'GET /workflow-ticket?per-page=2', status: 200, headers: { 'content-type': /json/ } });
  t.equal(byId.body.data.length, 2);
  const noSession = structuredOf<Json>(
    await call('call_portal', { sandbox: 'qa-3', method: 'GET', path: '/workflow-ticket' }),
  );
  t.equal(noSession.status, 401, "a portal refusal is the portal's answer, not a tool error");

  const journal = structuredOf<Json>(
    await call('read_journal', { sandbox: 'qa-3', operationId: 'workflowTicketIndex', expectCount: 2, limit: 1 }),
  );
  t.equal(journal.count, 2);
  t.equal(journal.entries.length, 1, 'limit');
  t.equal(journal.entries[0].status, 401, 'newest first');
  const direct = await admin('/__admin/requests/count?sandbox=qa-3&operationId=workflowTicketIndex');
  t.equal(direct.body.count, 2, 'the admin API counts the same');
  const wrong = await call('read_journal', { sandbox: 'qa-3', operationId: 'workflowTicketIndex', expectCount: 5 });
  t.ok(wrong.isError);
  t.match(textOf(wrong), /expected 5 matching journal entries, found 2 \(newest: GET \/workflow-ticket 401/);
  const fields = structuredOf<Json>(
    await call('read_journal', { sandbox: 'qa-3', fields: { 'query.per-page': '2' }, limit: 0 }),
  );
  t.same(fields, { count: 1, entries: [] }, 'field filters; limit 0 counts only');

  const unknown = await call('call_portal', { sandbox: 'qa-3', operationId: 'workflowTicketIdx' });
  t.ok(unknown.isError);
  t.match(
    textOf(unknown),
    /unknown operationId "workflowTicketIdx"; closest: workflowTicketIndex, .*\(106 known: portal-mock:\/\/openapi\/portal\)/,
  );
  const document = structuredOf<Json>(
    await call('call_portal', { sandbox: 'qa-3', method: 'GET', path: '/docs/json' }),
  );
  t.equal(document.truncated, true, `an answer over ${maxBodyChars} characters is cut`);
  t.equal(document.body.length, maxBodyChars);
  const missing = await call('call_portal', { sandbox: 'qa-3', operationId: 'pagesWorkflowTicket' });
  t.match(textOf(missing), /pathParams needs id for \/pages\/workflow-ticket\/\{id\}/);
});

t.test('read_findings and read_outbox read what the admin API reads', async (t) => {
  const { admin, call } = await setup(t);
  const arranged = structuredOf<Json>(
    await call('arrange_sandbox', { sandbox: 'qa-4', signIn: { email: accounts.twoFactor.email } }),
  );
  t.equal(arranged.session.twoFactor, true);
  // a search by a user without the right: the real portal answers an empty list (a finding)
  const noRights = structuredOf<Json>(await call('sign_in', { sandbox: 'qa-4', email: accounts.noRights.email }));
  await call('call_portal', {
    sandbox: 'qa-4',
    method: 'GET',
    path: '/user/search',
    query: { q: 'ivan' },
    session: noRights.headers,
  });
  const findings = structuredOf<Json>(await call('read_findings', { sandbox: 'qa-4' }));
  t.same(findings.findings, (await admin('/__admin/findings?sandbox=qa-4')).body);
  t.ok(findings.findings.length > 0, 'a finding, with its explanation');
  t.match(findings.findings[0], { code: 'search-without-right', message: /empty/ });
  const outbox = structuredOf<Json>(await call('read_outbox', { sandbox: 'qa-4', kind: 'two-factor-code' }));
  t.same(outbox.messages, (await admin('/__admin/outbox?sandbox=qa-4&kind=two-factor-code')).body);
  t.match(outbox.messages, [{ to: accounts.twoFactor.email, code: /^\d+$/ }]);
});

t.test('records: create, get, list, patch, delete, as the records API does', async (t) => {
  const { admin, call } = await setup(t);
  const made = structuredOf<Json>(
    await call('records', { sandbox: 'qa-5', action: 'create', collection: 'ideas', count: 2, fields: {} }),
  );
  t.equal(made.records.length, 2);
  const id = made.records[0].id;
  const got = structuredOf<Json>(await call('records', { sandbox: 'qa-5', action: 'get', collection: 'ideas', id }));
  t.same(got.records, [(await admin(`/__admin/data/${tenants.romashka}/ideas/${id}?sandbox=qa-5`)).body]);
  const patched = structuredOf<Json>(
    await call('records', {
      sandbox: 'qa-5',
      action: 'patch',
      collection: 'ideas',
      id,
      fields: { title: 'Faster VPN' },
    }),
  );
  t.equal(patched.records[0].title, 'Faster VPN');
  const listed = structuredOf<Json>(
    await call('records', { sandbox: 'qa-5', action: 'list', collection: 'ideas', filters: { title: 'Faster VPN' } }),
  );
  t.match(listed, { total: 1, records: [{ id }] });
  const deleted = structuredOf<Json>(
    await call('records', { sandbox: 'qa-5', action: 'delete', collection: 'ideas', id }),
  );
  t.equal(deleted.deleted, id);
  t.equal((await admin(`/__admin/data/${tenants.romashka}/ideas/${id}?sandbox=qa-5`)).status, 404, 'gone');
  const other = structuredOf<Json>(
    await call('records', {
      sandbox: 'qa-5',
      action: 'list',
      collection: 'users',
      tenantId: tenants.northwind,
      limit: 1,
    }),
  );
  t.equal(other.records[0].email.endsWith('northwind.test'), true, 'tenantId picks the tenant');
  const noId = await call('records', { sandbox: 'qa-5', action: 'get', collection: 'ideas' });
  t.match(textOf(noId), /get needs id/);
});

t.test('sandbox tools: list, set_scenario (by name, inline), set_clock, reset, delete', async (t) => {
  const { admin, call } = await setup(t);
  const scenario = structuredOf<Json>(await call('set_scenario', { sandbox: 'qa-6', name: 'flaky' }));
  t.match(scenario, { sandbox: 'qa-6', name: 'flaky' });
  t.equal((await admin('/__admin/scenario?sandbox=qa-6')).body.name, 'flaky');
  const inline = structuredOf<Json>(
    await call('set_scenario', {
      sandbox: 'qa-6',
      definition: { name: 'agent-made', description: 'made by a tool', stubs: [] },
    }),
  );
  t.match(inline, { name: 'agent-made' });
  t.equal((await admin('/__admin/scenario?sandbox=qa-6')).body.name, 'agent-made');
  const clock = structuredOf<Json>(await call('set_clock', { sandbox: 'qa-6', advanceMs: 60_000 }));
  t.equal(clock.now, '2026-03-02T09:01:00.000Z');
  t.equal((await admin('/__admin/clock?sandbox=qa-6')).body.now, '2026-03-02T09:01:00.000Z');
  const listed = structuredOf<Json>(await call('list_sandboxes', {}));
  t.same(
    listed.sandboxes.map((s: Json) => s.name),
    (await admin('/__admin/sandboxes')).body.map((s: Json) => s.name),
  );
  const reset = structuredOf<Json>(await call('reset_sandbox', { sandbox: 'qa-6' }));
  t.match(reset, { name: 'qa-6', scenario: 'default', now: '2026-03-02T09:00:00.000Z' });
  t.same(structuredOf(await call('delete_sandbox', { sandbox: 'qa-6' })), { deleted: 'qa-6' });
  t.equal((await admin('/__admin/sandboxes/qa-6')).status, 404);
});

t.test('bad arguments: schema violations and admin-API refusals are tool errors with the message', async (t) => {
  const { call } = await setup(t);
  const cases: [string, Args, RegExp][] = [
    ['set_clock', { sandbox: 'qa-7', advanceMs: 'soon' }, /Input validation error.*advanceMs/],
    ['records', { sandbox: 'qa-7', action: 'drop', collection: 'ideas' }, /Input validation error.*action/],
    ['delete_sandbox', { sandbox: 'no such/name' }, /Input validation error.*sandbox/],
    ['list_sandboxes', { extra: 1 }, /Input validation error/],
    ['set_clock', { sandbox: 'qa-7', advanceMs: 1, mode: 'real' }, /^400 VALIDATION_FAILED: give exactly one of/],
    ['set_scenario', { sandbox: 'qa-7', name: 'nope' }, /^404 NOT_FOUND: unknown scenario "nope"; known: .*flaky/],
    ['delete_sandbox', { sandbox: 'default' }, /^400 BAD_REQUEST: the default sandbox always exists/],
    ['read_journal', { sandbox: 'never-made' }, /^404 SANDBOX_NOT_FOUND: sandbox "never-made" does not exist/],
    ['read_journal', { sandbox: 'default', operationId: 'mobileAuht' }, /^400 .*closest: mobileAuth/],
    ['sign_in', { sandbox: 'qa-7', email: accounts.admin.email, password: 'wrong' }, /manual-bind|request-two-factor/],
    ['replay_capture', { sandbox: 'qa-7', capture: { name: 'x', stubs: 'no' } }, /^400 /],
    [
      'arrange_sandbox',
      { sandbox: 'qa-7', records: Array.from({ length: maxArrangeEntries + 1 }, () => ({ collection: 'ideas' })) },
      /Input validation error.*records/,
    ],
    [
      'records',
      { sandbox: 'qa-7', action: 'create', collection: 'ideas', count: 1001 },
      /Input validation error.*count/,
    ],
    ['read_journal', { sandbox: 'default', limit: maxJournalEntries + 1 }, /Input validation error.*limit/],
  ];
  for (const [tool, args, message] of cases) {
    const result = await call(tool, args);
    t.equal(result.isError, true, `${tool} ${JSON.stringify(args)}: a tool error`);
    t.match(textOf(result), message, `${tool}: says what was wrong`);
  }
});

t.test('capture_sandbox and replay_capture: the replayed sandbox answers as the captured one', async (t) => {
  const { admin, call } = await setup(t);
  await call('arrange_sandbox', {
    sandbox: 'qa-8',
    records: [{ collection: 'ideas', fields: { title: 'Captured idea' } }],
  });
  const captured = structuredOf<Json>(await call('capture_sandbox', { sandbox: 'qa-8', as: 'bug-8' }));
  t.equal(captured.capture.name, 'bug-8');
  t.equal(captured.bytes, Buffer.byteLength(JSON.stringify(captured.capture)));
  t.same(captured.capture, (await admin('/__admin/sandboxes/qa-8/capture?as=bug-8')).body);
  t.match(structuredOf(await call('replay_capture', { sandbox: 'qa-9', capture: captured.capture })), {
    name: 'bug-8',
  });
  const query = `/__admin/data/${tenants.romashka}/ideas?title=Captured%20idea`;
  t.same(
    (await admin(`${query}&sandbox=qa-9`)).body,
    (await admin(`${query}&sandbox=qa-8`)).body,
    'the replayed sandbox holds the same record',
  );
});

t.test('capture_sandbox answers a capture too large for a context as its size and where to download it', async (t) => {
  const { app, admin, call } = await setup(t);
  const text = 'x'.repeat(4000);
  const made = await app.inject({
    method: 'POST',
    url: `/__admin/data/${tenants.romashka}/ideas?count=100&sandbox=qa-big`,
    payload: { title: text, description: text },
  });
  t.equal(made.statusCode, 201);
  const result = await call('capture_sandbox', { sandbox: 'qa-big' });
  const linked = structuredOf<Json>(result);
  const whole = await app.inject({ url: '/__admin/sandboxes/qa-big/capture' });
  t.ok(whole.rawPayload.length > maxInlineCaptureBytes, `${whole.rawPayload.length} bytes: past the inline bound`);
  t.equal(linked.capture, undefined, 'not inlined');
  t.equal(linked.bytes, whole.rawPayload.length, 'its size in bytes');
  t.equal(linked.url, '/__admin/sandboxes/qa-big/capture');
  t.match(linked.fetch, /GET \/__admin\/sandboxes\/qa-big\/capture/);
  t.ok(textOf(result).length < 2000, 'the text an agent reads is short');
  t.equal((await admin(linked.url)).status, 200, 'the URL answers the capture');
});

t.test('resources, the record-schema template and the prompts', async (t) => {
  const { admin, client } = await setup(t);
  const { resources } = await client.listResources();
  const uris = resources.map((r) => r.uri);
  for (const uri of [
    'portal-mock://openapi/portal',
    'portal-mock://schemas/scenario',
    'portal-mock://fixtures',
    'portal-mock://findings',
  ])
    t.ok(uris.includes(uri), `${uri} listed`);
  t.ok(uris.includes('portal-mock://records/wfTickets'), "the template lists each collection's schema");
  const { resourceTemplates } = await client.listResourceTemplates();
  t.same(
    resourceTemplates.map((r) => r.uriTemplate),
    ['portal-mock://records/{collection}'],
  );

  const read = async (uri: string) =>
    JSON.parse(((await client.readResource({ uri })).contents[0] as { text: string }).text);
  t.same(await read('portal-mock://fixtures'), (await admin('/__admin/fixtures')).body);
  t.same(await read('portal-mock://schemas/scenario'), (await admin('/__admin/scenario.schema.json')).body);
  const portal = await read('portal-mock://openapi/portal');
  t.ok(portal.paths['/mobile/auth'], "the portal's API document");
  const catalogue = await read('portal-mock://findings');
  t.match(
    catalogue.findings.find((f: Json) => f.code === 'search-without-right'),
    {
      severity: 'warning',
      operations: ['userSearch'],
      realPortal: /empty/,
    },
  );
  const tickets = await read('portal-mock://records/wfTickets');
  t.match(tickets, { type: 'object', properties: { statusId: { type: 'integer' } } });
  await t.rejects(client.readResource({ uri: 'portal-mock://records/nope' }), /no collection "nope"/);

  const { prompts } = await client.listPrompts();
  t.same(
    prompts.map((p) => p.name),
    ['reproduce_bug', 'arrange_test_data'],
  );
  const bug = await client.getPrompt({ name: 'reproduce_bug', arguments: { description: 'the ticket list is empty' } });
  t.match(promptText(bug), /the ticket list is empty[\s\S]*arrange_sandbox/);
  const data = await client.getPrompt({
    name: 'arrange_test_data',
    arguments: { need: 'a rejected ticket', sandbox: 't1' },
  });
  t.match(promptText(data), /sandbox "t1"[\s\S]*a rejected ticket/);
});

t.test("every tool's refusal carries the admin API's status, code, message and details", async (t) => {
  const { call } = await setup(t);
  const missing = '00000000-0000-4000-8000-00000000dead';
  const cases: [string, Args, RegExp][] = [
    ['capture_sandbox', { sandbox: 'never-made' }, /^404 SANDBOX_NOT_FOUND: sandbox "never-made" does not exist/],
    ['read_findings', { sandbox: 'never-made' }, /^404 SANDBOX_NOT_FOUND: sandbox "never-made" does not exist/],
    ['read_outbox', { sandbox: 'never-made' }, /^404 SANDBOX_NOT_FOUND: sandbox "never-made" does not exist/],
    [
      'records',
      { sandbox: 'default', action: 'get', collection: 'ideas', id: missing },
      new RegExp(`^404 NOT_FOUND: no ideas record "${missing}" in tenant`),
    ],
    [
      'records',
      { sandbox: 'default', action: 'patch', collection: 'ideas', id: missing, fields: { title: 'x' } },
      /^404 /,
    ],
    ['records', { sandbox: 'default', action: 'delete', collection: 'ideas', id: missing }, /^404 /],
    [
      'records',
      { sandbox: 'default', action: 'create', collection: 'users', fields: { twoFactor: 'yes' } },
      /^400 VALIDATION_FAILED: .+ \[\{.*"field":"[^"]*twoFactor/,
    ],
    ['records', { sandbox: 'default', action: 'list', collection: 'ideas', filters: { nope: '1' } }, /^400 /],
  ];
  for (const [tool, args, message] of cases) {
    const result = await call(tool, args);
    t.equal(result.isError, true, `${tool} ${JSON.stringify(args)}: a tool error`);
    t.match(textOf(result), message, `${tool}: ${textOf(result).slice(0, 160)}`);
  }
});
