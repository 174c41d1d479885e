// `portal-mock mcp` over stdio, spawned from the build (npm run build first) as an editor starts it: the SDK's own
// client over StdioClientTransport, in both modes (bridging to a running instance with --url, and starting its own),
// with the admin token required and given; a tool that changes state, checked through the admin HTTP API. Then the
// process's contract: stdout carries the protocol only, stdin closing ends it and the instance it started, bad
// flags exit 2, an unreachable or refusing --url exits 1, and --max-in-flight bounds what it forwards at once.
import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import t, { type Test } from 'tap';
import { listening, structuredOf } from '../support/mcp-client.js';
import { freePort, serverJs, start, withoutTapHooks } from '../support/process.js';

const token = 'stdio-secret';
// the child's environment: no NODE_OPTIONS (tap's hooks, see test/support/process.ts), no PORTAL_MOCK_* of the host
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' };

/** An SDK client over stdio on `portal-mock mcp ARGS`; its stderr as read so far. */
async function stdioClient(t: Test, args: string[], era: 'legacy' | 'modern' = 'legacy') {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [serverJs, 'mcp', ...args],
    env,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const client = new Client(
    { name: 'portal-mock-stdio-test', version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: 'auto' } } : {},
  );
  await client.connect(transport);
  t.teardown(() => client.close());
  return { client, transport, stderr: () => stderr };
}

/** The instance address the command prints on stderr when it starts its own. */
const startedAt = (stderr: string) => /serving the instance at (http:\/\/127\.0\.0\.1:\d+) /.exec(stderr)?.[1];

/** The command as a plain child process (no MCP client): its output, and its exit. */
function run(args: string[]) {
  const [command, commandArgs] = withoutTapHooks(process.execPath, [serverJs, 'mcp', ...args]);
  const proc = spawn(command, commandArgs, { stdio: ['pipe', 'pipe', 'pipe'], env });
  let stdout = '';
  let stderr = '';
  const watchers = new Set<() => void>();
  proc.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    for (const w of watchers) w();
  });
  proc.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
    for (const w of watchers) w();
  });
  const exited = new Promise<number | null>((resolve) => proc.on('close', (code) => resolve(code)));
  /** Resolves once the output passes `test`; rejects if the process ends first. */
  const waitFor = (test: () => boolean) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!test()) return;
        watchers.delete(check);
        resolve();
      };
      watchers.add(check);
      check();
      void exited.then((code) => {
        if (watchers.delete(check)) reject(new Error(`exited ${code} first; stdout ${stdout}; stderr ${stderr}`));
      });
    });
  return { proc, exited, waitFor, stdout: () => stdout, stderr: () => stderr };
}

const arrangeArgs = { sandbox: 'from-stdio', clock: { freeze: '2026-03-05T10:00:00.000Z' } };

t.test('--url: a bridge to a running instance that requires the admin token', async (t) => {
  const { base } = await listening(t, { adminToken: token });
  const { client } = await stdioClient(t, ['--url', base, '--admin-token', token]);
  const { tools } = await client.listTools();
  t.ok(tools.length >= 10, `${tools.length} tools listed through the bridge`);
  t.ok(
    tools.some((tool) => tool.name === 'arrange_sandbox'),
    'the instance’s own tools',
  );

  const arranged = structuredOf<{ sandbox: string; now: string }>(
    await client.callTool({ name: 'arrange_sandbox', arguments: arrangeArgs }),
  );
  t.match(arranged, { sandbox: 'from-stdio', now: '2026-03-05T10:00:00.000Z' });
  const seen = await fetch(`${base}/__admin/sandboxes/from-stdio`, { headers: { authorization: `Bearer ${token}` } });
  t.equal(seen.status, 200, 'the sandbox the tool made, through the admin API');
  t.match(await seen.json(), { name: 'from-stdio', now: '2026-03-05T10:00:00.000Z' });

  const refused = await client.callTool({ name: 'reset_sandbox', arguments: { sandbox: 'from-stdio', seed: -1 } });
  t.equal(refused.isError, true, 'bad arguments: a tool error through the bridge, the process goes on');
  t.ok((await client.listTools()).tools.length > 0, 'still serving');

  // the 2026-07-28 revision (server/discover, a version claim in every request) passes the bridge as well
  const modern = await stdioClient(t, ['--url', base, '--admin-token', token], 'modern');
  t.equal((await modern.client.listTools()).tools.length, tools.length, 'the same tools to a 2026-07-28 client');
  const listed = structuredOf<{ sandboxes: { name: string }[] }>(
    await modern.client.callTool({ name: 'list_sandboxes', arguments: {} }),
  );
  t.ok(
    listed.sandboxes.some((s) => s.name === 'from-stdio'),
    'and its calls reach the same instance',
  );
});

t.test('without --url: it starts an instance, with the admin token, and serves it', async (t) => {
  const { client, stderr } = await stdioClient(t, ['--admin-token', token, '--seed', '7']);
  await client.listTools(); // the instance listens before the bridge reads stdin: its address is printed by now
  const address = startedAt(stderr());
  t.ok(address, `the address on stderr: ${stderr().trim()}`);
  t.ok(
    (await client.listTools()).tools.some((tool) => tool.name === 'call_portal'),
    'the tools',
  );
  structuredOf(await client.callTool({ name: 'arrange_sandbox', arguments: arrangeArgs }));
  t.equal((await fetch(`${address}/__admin/sandboxes/from-stdio`)).status, 401, 'the instance requires the token');
  const seen = await fetch(`${address}/__admin/sandboxes/from-stdio`, {
    headers: { authorization: `Bearer ${token}` },
  });
  t.match(await seen.json(), { name: 'from-stdio', now: '2026-03-05T10:00:00.000Z' }, 'the tool’s effect');
  const health = (await (
    await fetch(`${address}/__admin/health`, { headers: { authorization: `Bearer ${token}` } })
  ).json()) as { seed?: number };
  t.equal(health.seed, 7, 'started with the flags given (--seed 7)');
});

t.test('stdout carries the protocol only; stdin closing ends the command and the instance it started', async (t) => {
  const child = run(['--log-level', 'info']);
  t.teardown(() => child.proc.kill());
  await child.waitFor(() => startedAt(child.stderr()) !== undefined);
  const address = startedAt(child.stderr())!;
  const ping = { jsonrpc: '2.0', id: 1, method: 'ping', params: {} };
  child.proc.stdin.write(`${JSON.stringify(ping)}\n`);
  await child.waitFor(() => child.stdout().includes('\n'));
  // the instance logs at info (every request): on stderr, never between the protocol's lines
  const lines = child.stdout().trim().split('\n');
  t.same(
    lines.map((line) => JSON.parse(line)),
    [{ jsonrpc: '2.0', id: 1, result: {} }],
    'one line on stdout: the answer to ping',
  );
  t.match(child.stderr(), /"level":30/, 'the info logs went to stderr');

  child.proc.stdin.end();
  t.equal(await child.exited, 0, 'exit 0 once stdin closed');
  await t.rejects(fetch(`${address}/__admin/health`), 'the instance it started stopped with it');
});

t.test('--max-in-flight: a message past the bound is answered with an error at once, not queued', async (t) => {
  const { base } = await listening(t);
  const child = run(['--url', base, '--max-in-flight', '1']);
  t.teardown(() => child.proc.kill());
  // both lines in one write: the second is read while the first is still on its way to the instance
  const calls = [1, 2].map((id) => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping', params: {} }));
  child.proc.stdin.write(`${calls.join('\n')}\n`);
  await child.waitFor(() => child.stdout().trim().split('\n').length === 2);
  const answers = child
    .stdout()
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  t.match(
    answers.find((a) => a.id === 1),
    { result: {} },
    'the first forwarded',
  );
  t.match(
    answers.find((a) => a.id === 2),
    { error: { code: -32000, message: /more than 1 messages in flight \(--max-in-flight\)/ } },
    'the second refused',
  );
  child.proc.stdin.end();
  t.equal(await child.exited, 0);
});

t.test('an instance that stops answering: an error per request, and served again once it is back', async (t) => {
  const port = await freePort();
  const first = await start(['--port', String(port)]);
  t.teardown(() => first.proc.kill('SIGKILL')); // a failure below must not leave it running (it holds the file open)
  const child = run(['--url', `http://127.0.0.1:${port}`]);
  t.teardown(() => child.proc.kill());
  const lines = () => child.stdout().trim().split('\n').filter(Boolean);
  const ping = (id: number) => child.proc.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' })}\n`);
  ping(1);
  await child.waitFor(() => lines().length === 1);
  first.proc.kill('SIGKILL');
  await first.exited;
  ping(2);
  await child.waitFor(() => lines().length === 2);
  t.match(
    JSON.parse(lines()[1]!),
    {
      id: 2,
      error: { code: -32000, message: /the instance at http:\/\/127\.0\.0\.1:\d+\/__admin\/mcp did not answer/ },
    },
    'a JSON-RPC error naming the instance',
  );
  const second = await start(['--port', String(port)]);
  t.teardown(() => second.proc.kill('SIGKILL'));
  ping(3);
  await child.waitFor(() => lines().length === 3);
  t.same(JSON.parse(lines()[2]!), { jsonrpc: '2.0', id: 3, result: {} }, 'answered again once the instance is back');
  child.proc.stdin.end();
  t.equal(await child.exited, 0);
});

t.test('start-up failures: one line on stderr, exit 2 for bad flags, 1 for the instance', async (t) => {
  const cases: [string, string[], number, RegExp][] = [
    ['unknown flag', ['--bogus'], 2, /^portal-mock: mcp: Unknown option '--bogus'.*mcp --help/],
    ['bad URL', ['--url', 'localhost:3000'], 2, /--url expects the http:\/\/ or https:\/\/ URL/],
    ['instance flag with --url', ['--url', 'http://127.0.0.1:1', '--seed', '3'], 2, /--seed is an option of an/],
    ['bad bound', ['--max-in-flight', '0'], 2, /--max-in-flight expects a whole number from 1 to 10000/],
    ['bad instance flag', ['--seed', 'x'], 2, /--seed expects a whole number/],
    ['https', ['--https'], 2, /plain HTTP instance on loopback/],
  ];
  const { base } = await listening(t, { adminToken: token });
  const port = await freePort();
  cases.push(
    ['unreachable', ['--url', `http://127.0.0.1:${port}`], 1, /cannot reach http:\/\/127\.0\.0\.1:\d+\/__admin\/mcp: /],
    ['token missing', ['--url', base], 1, /requires the admin token: give it with --admin-token/],
    ['token wrong', ['--url', base, '--admin-token', 'nope'], 1, /refused the admin token/],
  );
  for (const [what, args, code, message] of cases) {
    const child = run(args);
    child.proc.stdin.end();
    t.equal(await child.exited, code, `${what}: exit ${code}`);
    t.match(child.stderr(), message, `${what}: ${child.stderr().trim()}`);
    t.equal(child.stderr().trim().split('\n').length, 1, `${what}: one line`);
    t.equal(child.stdout(), '', `${what}: nothing on stdout`);
  }
});

t.test('mcp --help', async (t) => {
  const child = run(['--help']);
  t.equal(await child.exited, 0);
  t.match(child.stdout(), /^Usage: portal-mock mcp \[--url URL\] \[options\]/);
  t.match(child.stdout(), /--max-in-flight/);
});
