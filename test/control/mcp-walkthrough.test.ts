// The walkthrough of issue 48 with MCP tools only, as an agent would run it: arrange a two-factor user and a
// rejected ticket, sign in through the real flow, read the ticket list, assert the journal, capture the sandbox;
// the capture replays on a fresh server (a second app, another day and seed) with the same answers.
import t from 'tap';
import { listening, mcpClient, structuredOf, textOf } from '../support/mcp-client.js';

// any: the portal's and the tools' answers; the assertions read the fields they know
type Json = any;

t.test('walkthrough with tools only, and its capture replayed on a fresh server', async (t) => {
  const first = await listening(t);
  const agent = await mcpClient(t, first.base);
  let calls = 0;
  const refused: string[] = [];
  const tool = async (name: string, args: Record<string, unknown>, client = agent) => {
    calls++;
    const result = await client.callTool({ name, arguments: args });
    if (result.isError) refused.push(`${name}: ${textOf(result)}`);
    return structuredOf<Json>(result);
  };

  // 1. from nothing to an arranged, signed-in sandbox: one tool call (the target is at most 3)
  const arranged = await tool('arrange_sandbox', {
    sandbox: 'walk',
    clock: { freeze: '2026-03-05T10:00:00.000Z' },
    records: [
      { collection: 'users', fields: { twoFactor: true, firstName: 'Olga' } },
      { collection: 'wfTickets', fields: { userId: '$0', statusId: 3 } },
    ],
    signIn: { record: 0 },
  });
  t.equal(calls, 1, 'arranged and signed in with 1 tool call');
  const user = arranged.made[0].first;
  const ticketId = arranged.made[1].ids[0];
  t.match(user, { twoFactor: true, firstName: 'Olga' });
  t.match(arranged.session, { email: user.email, twoFactor: true }, 'signed in with the code from the outbox');
  // each tool's output goes to the next unchanged: the session arrange_sandbox returned, as it returned it
  const { session } = arranged;

  // 2. the ticket list the app shows that user
  const list = await tool('call_portal', { sandbox: 'walk', operationId: 'workflowTicketIndex', session });
  t.equal(list.status, 200);
  t.same(
    list.body.data.map((ticket: Json) => [ticket.id, ticket.wf_status_id, ticket.user_id]),
    [[ticketId, 3, user.id]],
    'the rejected ticket, and only it, in the new user’s list',
  );

  // 3. the journal holds the real sign-in flow and the one list read
  for (const [operationId, count] of [
    ['mobileRequestTwoFactor', 1],
    ['mobileManualBind', 1],
    ['mobileAuth', 1],
    ['workflowTicketIndex', 1],
  ] as const) {
    const read = await tool('read_journal', {
      sandbox: 'walk',
      operationId,
      status: 200,
      expectCount: count,
      limit: 0,
    });
    t.equal(read.count, count, `journal: ${operationId} ${count}×`);
  }
  t.same((await tool('read_findings', { sandbox: 'walk' })).findings, [], 'the flow raised no finding');

  // 4. the capture, replayed on a fresh server started on another day with another seed
  const { capture } = await tool('capture_sandbox', { sandbox: 'walk', as: 'walk-bug' });
  const second = await listening(t, { now: '2027-01-01T00:00:00.000Z', seed: 7 });
  const other = await mcpClient(t, second.base);
  const replayed = await tool('replay_capture', { sandbox: 'replay', capture }, other);
  t.match(replayed, { sandbox: 'replay', name: 'walk-bug' });
  const listThere = { sandbox: 'replay', operationId: 'workflowTicketIndex', session };
  const again = await tool('call_portal', listThere, other);
  t.equal(again.status, 200, "the captured session signs the replayed sandbox's calls");
  // absolute URLs in answers carry the Host of the server answering: as it is, the replay differs in host:port...
  const origin = new URL(first.base).host;
  t.not(JSON.stringify(again.body), JSON.stringify(list.body), 'without host, the URLs name the second server');
  t.equal(
    JSON.stringify(again.body).replaceAll(new URL(second.base).host, origin),
    JSON.stringify(list.body),
    'and only in host:port',
  );
  // ...and with the origin's host (as call_portal's and replay_capture's descriptions say), it is the same bytes
  const asOrigin = await tool('call_portal', { ...listThere, host: origin }, other);
  t.equal(JSON.stringify(asOrigin.body), JSON.stringify(list.body), 'the same ticket list, byte for byte as JSON');
  const view = { operationId: 'workflowTicketView', query: { id: ticketId }, session };
  const here = await tool('call_portal', { sandbox: 'walk', ...view });
  const there = await tool('call_portal', { sandbox: 'replay', host: origin, ...view }, other);
  t.same([there.status, JSON.stringify(there.body)], [here.status, JSON.stringify(here.body)], 'the same ticket view');
  t.same(refused, [], 'no tool call was refused: each output fed the next as it came');
});

t.test("sign_in's session and arrange_sandbox's output feed call_portal as they are", async (t) => {
  const { base } = await listening(t);
  const agent = await mcpClient(t, base);
  const tool = async (name: string, args: Record<string, unknown>) =>
    structuredOf<Json>(await agent.callTool({ name, arguments: args }));
  const fixtures = JSON.parse(
    ((await agent.readResource({ uri: 'portal-mock://fixtures' })).contents[0] as { text: string }).text,
  );
  const email = fixtures.accounts[0].email;
  await tool('arrange_sandbox', { sandbox: 'feed' });
  const session = await tool('sign_in', { sandbox: 'feed', email });
  const whole = await tool('call_portal', { sandbox: 'feed', operationId: 'workflowTicketIndex', session });
  t.equal(whole.status, 200, 'the whole session signs');
  const bare = await tool('call_portal', {
    sandbox: 'feed',
    operationId: 'workflowTicketIndex',
    session: session.headers,
  });
  t.equal(bare.status, 200, 'its four headers alone still sign');
  t.same(bare.body, whole.body);
  const wrong = await agent.callTool({
    name: 'call_portal',
    arguments: { sandbox: 'feed', operationId: 'workflowTicketIndex', session: { email } },
  });
  t.ok(wrong.isError, 'a session that is neither is refused');
  t.match(textOf(wrong), /session/);
  const { tools } = await agent.listTools();
  for (const { name, description } of tools)
    t.match(
      description,
      /call_portal|read_journal|read_findings|replay_capture|`sandbox`|nothing takes it|assertions/,
      `${name}: says what its output feeds`,
    );
});
