// Prompts for the two tasks agents are asked most: reproduce a bug from its description, arrange a test's data.
import { Type } from '@sinclair/typebox';
import type { McpServer } from '@modelcontextprotocol/server';
import { toolSchema } from './json-schema.js';

const BugArgs = toolSchema(
  Type.Object({
    description: Type.String({ description: 'the bug as reported: what the app did, what was expected' }),
    sandbox: Type.Optional(Type.String({ description: 'the sandbox to use (default bug-repro)' })),
  }),
);
const DataArgs = toolSchema(
  Type.Object({
    need: Type.String({ description: 'the data the test needs, in words (users, tickets, their states …)' }),
    sandbox: Type.Optional(Type.String({ description: 'the sandbox to use (default test-data)' })),
  }),
);

const user = (text: string) => ({ messages: [{ role: 'user' as const, content: { type: 'text' as const, text } }] });

export function registerPrompts(server: McpServer): void {
  server.registerPrompt(
    'reproduce_bug',
    {
      title: 'Reproduce a bug',
      description: 'Turns a bug description into a sandbox that shows it, checked with the journal, and a capture.',
      argsSchema: BugArgs,
    },
    ({ description, sandbox }) =>
      user(
        `Reproduce this bug against portal-mock in sandbox "${sandbox ?? 'bug-repro'}":\n\n${description}\n\n` +
          'Steps: 1. Find the operations involved in resource portal-mock://openapi/portal, and the fields of the ' +
          'records involved in portal-mock://records/{collection}. 2. arrange_sandbox with reset: true, the ' +
          'records the bug needs (partial records; "$N" names an earlier entry) and signIn as the affected user. ' +
          '3. call_portal the operations in the order the app calls them, with the session headers. 4. ' +
          'read_journal to confirm what was answered, and read_findings: a finding may already explain the bug ' +
          '(portal-mock://findings). 5. capture_sandbox and attach the capture to the report; replay_capture ' +
          'replays it anywhere. Report what the portal answered against what the report expected.',
      ),
  );
  server.registerPrompt(
    'arrange_test_data',
    {
      title: 'Arrange the data a test needs',
      description: 'Turns what a test needs into one arrange_sandbox call and the session it signs in with.',
      argsSchema: DataArgs,
    },
    ({ need, sandbox }) =>
      user(
        `Arrange this data in portal-mock sandbox "${sandbox ?? 'test-data'}" for a test:\n\n${need}\n\n` +
          'Read the record schemas of the collections involved (portal-mock://records/{collection}) and the demo ' +
          'accounts (portal-mock://fixtures). Then make one arrange_sandbox call: reset: true, a frozen clock ' +
          '(clock.freeze) so answers repeat, the records in dependency order (a user before the tickets that ' +
          'name it with "$N"), and signIn as the user the test acts as. Give back the made ids and the four ' +
          'session headers the test sends, and check with call_portal that the app will see the data.',
      ),
  );
}
