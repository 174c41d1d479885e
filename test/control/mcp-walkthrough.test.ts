// The walkthrough of issue 48 with MCP tools only, as an agent would run it: arrange a two-factor user and a
// rejected ticket, sign in through the real flow, read the ticket list, assert the journal, capture the sandbox;
// the capture replays on a fresh server (a second app, another day and seed) with the same answers.
import t from 'tap';
import { listening, mcpClient, structuredOf } from '../support/mcp-client.js';

// any: the portal's and the tools' answers; the assertions read the fields they know
type Json = any;

t.test('walkthrough with tools only, and its capture replayed on a fresh server', async (t) => {
  const first = await listening(t);
  const agent = await mcpClient(t, first.base);
  let calls = 0;
  const tool = async (name: string, args: Record<string, unknown>) => {
    calls++;
    return structuredOf<Json>(await agent.callTool({ name, arguments: args }));
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
  const { headers } = arranged.session;

  // 2. the ticket list the app shows that user
  const list = await tool('call_portal', { sandbox: 'walk', operationId: 'workflowTicketIndex', session: headers });
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
  const replayed = structuredOf<Json>(
    await other.callTool({ name: 'replay_capture', arguments: { sandbox: 'replay', capture } }),
  );
  t.match(replayed, { sandbox: 'replay', name: 'walk-bug' });
  const again = structuredOf<Json>(
    await other.callTool({
      name: 'call_portal',
      arguments: { sandbox: 'replay', operationId: 'workflowTicketIndex', session: headers },
    }),
  );
  t.equal(again.status, 200, "the captured session's headers sign the replayed sandbox's calls");
  // absolute URLs in answers carry the address of the server that answers: the only difference allowed
  const asFirst = (body: unknown) =>
    JSON.stringify(body).replaceAll(new URL(second.base).host, new URL(first.base).host);
  t.equal(asFirst(again.body), JSON.stringify(list.body), 'the same ticket list, byte for byte as JSON');
  const view = { operationId: 'workflowTicketView', query: { id: ticketId }, session: headers };
  const here = await tool('call_portal', { sandbox: 'walk', ...view });
  const there = structuredOf<Json>(
    await other.callTool({ name: 'call_portal', arguments: { sandbox: 'replay', ...view } }),
  );
  t.same([there.status, asFirst(there.body)], [here.status, JSON.stringify(here.body)], 'the same ticket view');
});
