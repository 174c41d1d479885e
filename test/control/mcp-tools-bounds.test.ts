// The MCP tools' bounds and trust, fast (the mutation run of `mcp-tools` runs this file first): the SDK's own client
// linked in memory to the tools' server, whose admin calls go through one app in process (the endpoint's own
// app.inject call), no socket. An admin refusal keeps its status, code and message in the tool error; a capture past
// the inline bound answers its size and URL; arguments that cannot work are refused before anything is done.
import t from 'tap';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { accounts, build, json, tenants } from '../helper.js';
import { textOf } from '../support/mcp-client.js';
import type { AdminAnswer } from '../../src/mcp/admin-call.js';
import { accepted, fromAnswer, refusal, structured, toolError } from '../../src/mcp/results.js';
import { injectCall } from '../../src/mcp/runtime.js';
import { createMockMcpServer } from '../../src/mcp/server.js';
import { maxInlineCaptureBytes } from '../../src/mcp/tools/capture.js';
import { maxBodyChars } from '../../src/mcp/tools/portal.js';

// any: tool answers of many shapes; each assertion reads the fields it knows
type Json = any;
const T = tenants.romashka;
const answer = (status: number, body: unknown): AdminAnswer => ({ status, headers: {}, body });

t.test('refusal: status, code, message and details on one line, whatever the body is', async (t) => {
  const details = [{ field: 'x', message: 'bad' }];
  t.equal(
    refusal(answer(422, { code: 'INVALID', message: 'no good', details })),
    `422 INVALID: no good ${JSON.stringify(details)}`,
  );
  t.equal(
    refusal(answer(404, { code: 'NOT_FOUND', message: 'gone', details: [] })),
    '404 NOT_FOUND: gone',
    'no empty details',
  );
  t.equal(refusal(answer(400, { code: 7, message: 8, details: 'x' })), '400: no message', 'only strings and a list');
  t.equal(refusal(answer(502, 'upstream down')), '502: upstream down', 'a text body is the message');
  t.equal(refusal(answer(502, 'x'.repeat(600))), `502: ${'x'.repeat(500)}`, 'a long text cut at 500');
  t.equal(refusal(answer(500, '')), '500: no message');
  t.equal(refusal(answer(500, null)), '500: no message');
  t.equal(refusal(answer(503, 42)), '503: no message');
});

t.test('toolError, structured, accepted, fromAnswer', async (t) => {
  t.same(toolError('why'), { isError: true, content: [{ type: 'text', text: 'why' }] });
  t.same(structured({ a: 1 }), { content: [{ type: 'text', text: '{"a":1}' }], structuredContent: { a: 1 } });
  t.same(
    [199, 200, 201, 299, 300, 404].map((status) => accepted(answer(status, {}))),
    [false, true, true, true, false, false],
  );
  t.same(
    fromAnswer(answer(200, [1]), (body) => ({ got: body })),
    structured({ got: [1] }),
  );
  t.same(
    fromAnswer(answer(409, { code: 'CONFLICT', message: 'no' }), () => ({ never: true })),
    toolError('409 CONFLICT: no'),
  );
});

/** One app, and a client of the tools' server linked to it in memory. */
async function setup(t: { teardown(fn: () => unknown): void }) {
  const app = await build(t);
  const server = createMockMcpServer({ call: injectCall(app, undefined), version: '0.0.0-test' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'bounds-test', version: '1.0.0' });
  await client.connect(clientSide);
  t.teardown(async () => {
    await client.close();
    await server.close();
  });
  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as {
      isError?: boolean;
      structuredContent?: Json;
      content?: unknown;
    };
  return { app, call };
}

t.test('the tools through the SDK client, in memory', async (t) => {
  const { app, call } = await setup(t);
  const admin = async (url: string) => app.inject({ url });

  t.test('capture_sandbox: inline when small; past the bound its size and URL; a refusal kept', async (t) => {
    await app.inject({ method: 'PUT', url: '/__admin/sandboxes/small' });
    const small = await call('capture_sandbox', { sandbox: 'small' });
    t.notOk(small.isError, textOf(small));
    const served = (await admin('/__admin/sandboxes/small/capture')).json();
    t.same(small.structuredContent.capture, served, 'the capture inline');
    t.equal(small.structuredContent.bytes, Buffer.byteLength(JSON.stringify(served)), 'its size as compact JSON');
    t.same(Object.keys(small.structuredContent).sort(), ['bytes', 'capture']);

    await app.inject({ method: 'PUT', url: '/__admin/sandboxes/big' });
    const made = await app.inject({
      method: 'POST',
      url: `/__admin/data/${T}/notifications?sandbox=big&count=1000`,
      payload: { userId: accounts.admin.userId, title: 'a long title '.repeat(25) },
    });
    t.equal(made.statusCode, 201, made.body.slice(0, 200));
    const full = await admin('/__admin/sandboxes/big/capture?as=big-bug');
    const size = Buffer.byteLength(full.body);
    t.ok(size > maxInlineCaptureBytes, `${size} bytes: past the inline bound`);
    const big = await call('capture_sandbox', { sandbox: 'big', as: 'big-bug' });
    t.notOk(big.isError, textOf(big));
    const url = '/__admin/sandboxes/big/capture?as=big-bug';
    t.same(Object.keys(big.structuredContent).sort(), ['bytes', 'fetch', 'url'], 'not inline');
    t.equal(big.structuredContent.bytes, size, 'the size as served');
    t.equal(big.structuredContent.url, url);
    t.equal(
      big.structuredContent.fetch,
      `${size} bytes, more than the ${maxInlineCaptureBytes} answered inline: download it with GET ${url} on this ` +
        `server (the admin token as for this endpoint), e.g. curl -o capture.json "http://HOST:PORT${url}"; give the ` +
        'file to replay_capture or PUT /__admin/scenario',
    );

    const missing = await call('capture_sandbox', { sandbox: 'no-such' });
    t.equal(missing.isError, true);
    t.match(textOf(missing), /^404 SANDBOX_NOT_FOUND: sandbox "no-such" does not exist/);
    t.equal((await admin('/__admin/sandboxes/no-such')).statusCode, 404, 'not made');
    const bad = await call('capture_sandbox', { sandbox: 'small', as: 'Not_A_Name' });
    t.equal(bad.isError, true, 'an argument out of its schema');
  });

  t.test('arrange_sandbox: what cannot work is refused before anything is done', async (t) => {
    const refused = async (args: Record<string, unknown>, message: string) => {
      const result = await call('arrange_sandbox', { sandbox: 'never', ...args });
      t.equal(result.isError, true, message);
      t.equal(textOf(result), `nothing was done: ${message}`);
    };
    await refused(
      { scenario: 'flaky', scenarioDefinition: { name: 'x', description: 'x' } },
      'give scenario or scenarioDefinition, not both',
    );
    await refused(
      { records: [{ collection: 'wfTickets', fields: { userId: '$0' } }] },
      'records[0].fields: "$0" must name an earlier entry (0 to -1)',
    );
    await refused(
      {
        records: [{ collection: 'users' }, { collection: 'wfTickets', fields: { userId: '$1', note: ['$0', '$2'] } }],
      },
      'records[1].fields: "$1" must name an earlier entry (0 to 0); records[1].fields: "$2" must name an earlier entry (0 to 0)',
    );
    await refused(
      { records: [{ collection: 'users' }, { collection: 'wfTickets', fields: { userId: '$12' } }] },
      'records[1].fields: "$12" must name an earlier entry (0 to 0)',
    );
    await refused({ signIn: {} }, 'signIn: give email or record, one of them');
    await refused(
      { records: [{ collection: 'users' }], signIn: { email: accounts.admin.email, record: 0 } },
      'signIn: give email or record, one of them',
    );
    await refused(
      { records: [{ collection: 'wfTickets' }], signIn: { record: 0 } },
      'signIn.record: records[0] must be a users entry',
    );
    await refused(
      { records: [{ collection: 'users' }], signIn: { record: 1 } },
      'signIn.record: records[1] must be a users entry',
    );
    t.equal((await admin('/__admin/sandboxes/never')).statusCode, 404, 'no sandbox made');

    const ok = await call('arrange_sandbox', {
      sandbox: 'arranged',
      records: [{ collection: 'users' }, { collection: 'wfTickets', fields: { userId: '$0' } }],
      signIn: { record: 0 },
    });
    t.notOk(ok.isError, textOf(ok));
    const [user, ticket] = ok.structuredContent.made;
    const stored = json(await admin(`/__admin/data/${T}/wfTickets/${ticket.ids[0]}?sandbox=arranged`));
    t.equal(stored.userId, user.ids[0], '"$0" is the id of the first record of entry 0');
    t.equal(ok.structuredContent.session.userId, user.ids[0]);
    const inline = await call('arrange_sandbox', {
      sandbox: 'arranged',
      scenarioDefinition: { name: 'inline-hold', description: 'tickets held', holdTickets: true },
    });
    t.notOk(inline.isError, textOf(inline));
    t.equal(inline.structuredContent.scenario, 'inline-hold', 'a scenario defined inline alone is no conflict');
    const byEmail = await call('arrange_sandbox', { sandbox: 'arranged', signIn: { email: accounts.admin.email } });
    t.notOk(byEmail.isError, textOf(byEmail));
    t.match(byEmail.structuredContent, { created: false, session: { userId: accounts.admin.userId } }, 'by e-mail');
  });

  t.test('arrange_sandbox: a refused step keeps the admin message; a sandbox it made is deleted again', async (t) => {
    const made = await call('arrange_sandbox', { sandbox: 'half', clock: { offsetMs: 'soon' } as never });
    t.equal(made.isError, true, 'a clock the schema refuses');
    const step = await call('arrange_sandbox', { sandbox: 'half', scenario: 'no-such-scenario' });
    t.equal(step.isError, true);
    t.match(textOf(step), /^scenario: 404 \S+: .*no-such-scenario.* \(the sandbox it made was deleted again\)$/);
    t.equal((await admin('/__admin/sandboxes/half')).statusCode, 404, 'deleted again');

    await app.inject({ method: 'PUT', url: '/__admin/sandboxes/kept' });
    const reused = await call('arrange_sandbox', { sandbox: 'kept', scenario: 'no-such-scenario' });
    t.equal(reused.isError, true);
    t.match(textOf(reused), /^scenario: 404 .* \(done before: sandbox reused\)$/);
    t.equal((await admin('/__admin/sandboxes/kept')).statusCode, 200, 'a sandbox it did not make stays');
  });

  t.test('call_portal: the operation, path parameters, the body cut past its bound', async (t) => {
    const noOp = await call('call_portal', { sandbox: 'portal' });
    t.equal(textOf(noOp), 'give operationId, or method and path');
    t.equal(
      textOf(await call('call_portal', { sandbox: 'portal', method: 'GET' })),
      'give operationId, or method and path',
    );
    t.equal(
      textOf(await call('call_portal', { sandbox: 'portal', path: '/dashboard' })),
      'give operationId, or method and path',
    );
    const unknown = await call('call_portal', { sandbox: 'portal', operationId: 'workflowTicketIdx' });
    t.equal(unknown.isError, true);
    t.match(textOf(unknown), /^unknown operationId "workflowTicketIdx"; closest: workflowTicketIndex/);
    const missing = await call('call_portal', {
      sandbox: 'portal',
      method: 'GET',
      path: '/user/{id}/x/{part}',
      pathParams: { part: 1 },
    });
    t.equal(textOf(missing), 'pathParams needs id for /user/{id}/x/{part}');

    const stub = (status: number, text: string) => ({
      name: 'big-answers',
      description: 'a text answer of a given size',
      stubs: [{ operationId: 'userProfile', status, body: text }],
    });
    const exact = 'e'.repeat(maxBodyChars);
    t.notOk((await call('set_scenario', { sandbox: 'portal', definition: stub(200, exact) })).isError);
    const fits = await call('call_portal', {
      sandbox: 'portal',
      operationId: 'userProfile',
      query: { id: 'x', fields: ['a', 'b'] },
      host: 'portal.test:8443',
    });
    t.notOk(fits.isError, textOf(fits).slice(0, 300));
    t.match(fits.structuredContent.operation, /^GET \/user\/profile\?id=x&fields=a&fields=b$/, 'each value of a list');
    t.equal(fits.structuredContent.body.length, maxBodyChars, 'exactly at the bound: whole');
    t.equal(fits.structuredContent.truncated, undefined);
    for (const noise of ['date', 'connection', 'content-length', 'keep-alive'])
      t.notOk(noise in fits.structuredContent.headers, `${noise} left out`);
    t.ok('content-type' in fits.structuredContent.headers, 'content-type kept');

    t.notOk((await call('set_scenario', { sandbox: 'portal', definition: stub(503, `${exact}tail`) })).isError);
    const cut = await call('call_portal', { sandbox: 'portal', operationId: 'userProfile', query: { id: 'x' } });
    t.notOk(cut.isError, 'a portal error is an answer, not a failed tool call');
    t.equal(cut.structuredContent.status, 503);
    t.equal(cut.structuredContent.body, exact, `cut at ${maxBodyChars}`);
    t.equal(cut.structuredContent.truncated, true);

    const posted = await call('call_portal', {
      sandbox: 'portal-2',
      method: 'POST',
      path: '/mobile/request-two-factor',
      body: { email: accounts.admin.email, password: accounts.admin.password },
      host: 'portal.test:8443',
    });
    t.equal(posted.structuredContent.operation, 'POST /mobile/request-two-factor', 'no query: no "?"');
    t.equal(posted.structuredContent.status, 200, 'the body sent');
    t.equal(posted.structuredContent.body.tenantInfo.base_url, 'http://portal.test:8443', 'built for the host given');
    const journal = json(await app.inject({ url: '/__admin/requests/count?sandbox=portal-2' }));
    t.equal(journal.count, 1, 'sent in the sandbox named');
  });

  t.test('read_journal: expectCount asserts; limit 0 counts only', async (t) => {
    await app.inject({ url: '/dashboard', headers: { 'x-mock-sandbox': 'journal' } });
    await app.inject({ url: '/dashboard', headers: { 'x-mock-sandbox': 'journal' } });
    for (let i = 0; i < 5; i++) await app.inject({ url: `/user/${i}`, headers: { 'x-mock-sandbox': 'journal-6' } });
    const many = await call('read_journal', { sandbox: 'journal-6', expectCount: 1 });
    t.match(textOf(many), /^expected 1 matching journal entries, found 5 \(newest: [^;]+(; [^;]+){4}\)$/, 'five shown');
    await app.inject({ url: '/user/5', headers: { 'x-mock-sandbox': 'journal-6' } });
    const six = await call('read_journal', { sandbox: 'journal-6', expectCount: 1 });
    t.match(textOf(six), /^expected 1 matching journal entries, found 6 \(newest: [^;]+(; [^;]+){4}\)$/, 'still five');
    const counted = await call('read_journal', { sandbox: 'journal', limit: 0, expectCount: 2 });
    t.notOk(counted.isError, textOf(counted));
    t.same(counted.structuredContent, { count: 2, entries: [] });
    const one = await call('read_journal', { sandbox: 'journal', limit: 1 });
    t.equal(one.structuredContent.count, 2);
    t.equal(one.structuredContent.entries.length, 1, 'limit: the newest entries');
    const wrong = await call('read_journal', { sandbox: 'journal', expectCount: 3 });
    t.equal(wrong.isError, true);
    t.equal(
      textOf(wrong),
      'expected 3 matching journal entries, found 2 (newest: GET /dashboard 401; GET /dashboard 401)',
    );
    const none = await call('read_journal', { sandbox: 'journal', limit: 0, expectCount: 1 });
    t.equal(textOf(none), 'expected 1 matching journal entries, found 2', 'no entries read: none shown');
    const missing = await call('read_journal', { sandbox: 'no-journal' });
    t.match(textOf(missing), /^404 SANDBOX_NOT_FOUND: /);
  });

  t.test('records: an action that needs an id says so; refusals keep the admin message', async (t) => {
    for (const action of ['get', 'patch', 'delete']) {
      const result = await call('records', { sandbox: 'default', action, collection: 'users' });
      t.equal(result.isError, true);
      t.equal(textOf(result), `${action} needs id: the record's id`);
    }
    const listed = await call('records', { sandbox: 'default', action: 'list', collection: 'users', limit: 1 });
    t.notOk(listed.isError, textOf(listed));
    t.match(listed.structuredContent.records[0].email, /@romashka\.test$/, 'the fixtures first tenant by default');
    const got = await call('records', {
      sandbox: 'default',
      action: 'get',
      collection: 'users',
      id: accounts.admin.userId,
    });
    t.same(
      got.structuredContent.records.map((r: Json) => r.id),
      [accounts.admin.userId],
    );
    const absent = await call('records', { sandbox: 'default', action: 'get', collection: 'users', id: 'nobody' });
    t.match(textOf(absent), /^404 \S+: .*nobody/);
    const other = await call('records', {
      sandbox: 'default',
      action: 'list',
      collection: 'users',
      tenantId: tenants.northwind,
      limit: 1,
    });
    t.match(other.structuredContent.records[0].email, /@northwind\.test$/, 'tenantId given: that tenant');
    const made = await call('records', { sandbox: 'rec', action: 'create', collection: 'ideas', count: 2, fields: {} });
    t.equal(made.structuredContent.records.length, 2, 'count: that many');
    const id = made.structuredContent.records[0].id as string;
    const patched = await call('records', {
      sandbox: 'rec',
      action: 'patch',
      collection: 'ideas',
      id,
      fields: { title: 'New' },
    });
    t.match(patched.structuredContent.records, [{ id, title: 'New' }]);
    const stored = json(await app.inject({ url: `/__admin/data/${T}/ideas/${id}?sandbox=rec` }));
    t.equal(stored.title, 'New', 'patched in the store');
    const deleted = await call('records', { sandbox: 'rec', action: 'delete', collection: 'ideas', id });
    t.same(deleted.structuredContent, { records: [], deleted: id });
    t.equal((await app.inject({ url: `/__admin/data/${T}/ideas/${id}?sandbox=rec` })).statusCode, 404, 'gone');
  });
});
