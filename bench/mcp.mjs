// What an agent pays to use the MCP endpoint (issue 48): from nothing to an arranged, signed-in sandbox (the tool
// calls it takes and their wall time), the latency of tools/list, and the size of the tool list, which an agent
// carries in its context. The built mock runs as a separate process (the bin); the agent is the SDK's own client
// over Streamable HTTP, as an editor's is.
// `node bench/mcp.mjs [--quick] [--json]` after `npm run build`; run.mjs runs it too (--json: one JSON line last).
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { median, startBin } from './http.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The targets. */
export const mcpLimits = { toolCalls: 3, listP95Ms: 50, listBytes: 40 * 1024 };

const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d;
const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

/** Measures against a running mock on `port`: `listCalls` tools/list calls after one warm-up. */
export async function measureMcp(port, { listCalls = 50 } = {}) {
  const started = performance.now();
  const client = new Client({ name: 'portal-mock-bench', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/__admin/mcp`)));
  const connectMs = performance.now() - started;
  try {
    // an agent lists the tools first; the first list also pays for the server's first compile of the schemas
    const listStarted = performance.now();
    const { tools } = await client.listTools();
    const firstListMs = performance.now() - listStarted;

    // from nothing to arranged and signed in: a two-factor user made by factory, signed in with the outbox's code
    let toolCalls = 0;
    const arrangeStarted = performance.now();
    toolCalls++;
    const arranged = await client.callTool({
      name: 'arrange_sandbox',
      arguments: {
        sandbox: 'bench-mcp',
        records: [{ collection: 'users', fields: { twoFactor: true } }],
        signIn: { record: 0 },
      },
    });
    const arrangeMs = performance.now() - arrangeStarted;
    const session = arranged.structuredContent?.session;
    if (arranged.isError || !session?.headers)
      throw new Error(`arrange_sandbox did not sign in: ${JSON.stringify(arranged.content).slice(0, 300)}`);

    const times = [];
    for (let i = 0; i < listCalls; i++) {
      const t0 = performance.now();
      await client.listTools();
      times.push(performance.now() - t0);
    }
    const listBytes = Buffer.byteLength(JSON.stringify(tools));
    return {
      tools: tools.length,
      listBytes,
      listCalls,
      listP50Ms: round(median(times), 2),
      listP95Ms: round(percentile(times, 95), 2),
      firstListMs: round(firstListMs),
      toolCalls,
      arrangeMs: round(arrangeMs),
      connectMs: round(connectMs),
      fromNothingMs: round(connectMs + firstListMs + arrangeMs),
    };
  } finally {
    await client.close();
  }
}

/** The table in npm run bench's report (bench/run.mjs) and in docs/mcp.md. */
export function mcpTable(m) {
  const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
  return [
    '| MCP (bench/mcp.mjs) | figure | target |',
    '|---|---|---|',
    `| tool calls from nothing to an arranged, signed-in sandbox | ${m.toolCalls} (arrange_sandbox: ${m.arrangeMs} ms; with connect and the first tools/list ${m.fromNothingMs} ms) | <= ${mcpLimits.toolCalls} |`,
    `| tools/list latency, ${m.listCalls} calls | median ${m.listP50Ms} ms, p95 ${m.listP95Ms} ms (first ${m.firstListMs} ms) | <= ${mcpLimits.listP95Ms} ms |`,
    `| size of the tool list (${m.tools} tools: names, descriptions, schemas, annotations) | ${m.listBytes} bytes (${kb(m.listBytes)}) | < ${kb(mcpLimits.listBytes)} |`,
  ].join('\n');
}

/** The targets, as rows of the report's opening table. */
export function mcpTargets(m) {
  if (!m || m.error) return [];
  const yes = (ok) => (ok ? 'yes' : 'no');
  return [
    {
      target: `MCP: arranged and signed in with ≤ ${mcpLimits.toolCalls} tool calls`,
      figure: `${m.toolCalls} (${m.arrangeMs} ms)`,
      holds: yes(m.toolCalls <= mcpLimits.toolCalls),
    },
    {
      target: `MCP: tools/list ≤ ${mcpLimits.listP95Ms} ms`,
      figure: `p95 ${m.listP95Ms} ms`,
      holds: yes(m.listP95Ms <= mcpLimits.listP95Ms),
    },
    {
      target: 'MCP: the tool list < 40 KB',
      figure: `${m.listBytes} bytes`,
      holds: yes(m.listBytes < mcpLimits.listBytes),
    },
  ];
}

// run as a script (run.mjs imports the table and runs the script)
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const quick = process.argv.includes('--quick');
  const mock = await startBin(root);
  try {
    const result = { ...(await measureMcp(mock.port, { listCalls: quick ? 50 : 200 })), quick };
    if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify(result)}\n`);
    else process.stdout.write(`${mcpTable(result)}\n`);
  } finally {
    mock.proc.kill('SIGTERM');
  }
}
