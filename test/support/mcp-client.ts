// An MCP client of the SDK's own (@modelcontextprotocol/client) on a listening mock, over real HTTP: the tests talk
// to /__admin/mcp as an agent's client does, never in hand-written JSON-RPC.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { FastifyInstance } from 'fastify';
import type { AppOptions } from '../../src/app.js';
import { build } from '../helper.js';

type Teardown = { teardown(fn: () => unknown): void };

/** The 2025 handshake (initialize) or the 2026-07-28 one (server/discover, then per-request envelopes). */
export type Era = 'legacy' | 'modern';

/** An app listening on loopback (port 0), closed at teardown; its base URL. */
export async function listening(
  t: Teardown,
  options: AppOptions = {},
): Promise<{ app: FastifyInstance; base: string }> {
  const app = await build(t, { host: '127.0.0.1', ...options });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { app, base: `http://127.0.0.1:${address.port}` };
}

/** A connected client of `base`/__admin/mcp, closed at teardown. */
export async function mcpClient(
  t: Teardown,
  base: string,
  { era = 'modern', headers = {} }: { era?: Era; headers?: Record<string, string> } = {},
): Promise<Client> {
  const client = new Client(
    { name: 'portal-mock-test', version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: 'auto' } } : {},
  );
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/__admin/mcp`), { requestInit: { headers } });
  await client.connect(transport);
  t.teardown(() => client.close());
  return client;
}

/** The structured content of a tool result that succeeded (fails the test with its text otherwise). */
export function structuredOf<T = Record<string, unknown>>(result: {
  isError?: boolean;
  structuredContent?: unknown;
  content?: unknown;
}): T {
  if (result.isError) throw new Error(`tool error: ${JSON.stringify(result.content)}`);
  return result.structuredContent as T;
}

/** The text of a tool result (its first text block). */
export function textOf(result: { content?: unknown }): string {
  const blocks = (result.content ?? []) as { type: string; text?: string }[];
  return blocks.find((b) => b.type === 'text')?.text ?? '';
}
