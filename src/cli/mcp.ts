// `portal-mock mcp`: the MCP endpoint of an instance over stdio, for editors that start a local process. A bridge:
// each message read on stdin goes to the instance's POST /__admin/mcp through the SDK's Streamable HTTP client
// transport, each answer comes back on stdout. The tools live on the instance only, so the command and the HTTP
// endpoint cannot disagree, and with --peers a call for a sandbox reaches its owner as over HTTP.
import type { Readable, Writable } from 'node:stream';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  isInitializeRequest,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
} from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';

/** A failure to reach or use the instance at start: its message is the one line the command prints (exit 1). */
export class BridgeError extends Error {}

/** The MCP endpoint of an instance: `base`/__admin/mcp, unless the URL names the endpoint already. */
export function mcpEndpoint(base: string): URL {
  const url = new URL(base);
  if (!url.pathname.replace(/\/$/, '').endsWith('/__admin/mcp'))
    url.pathname = `${url.pathname.replace(/\/$/, '')}/__admin/mcp`;
  return url;
}

const authHeaders = (adminToken: string | null): Record<string, string> =>
  adminToken ? { authorization: `Bearer ${adminToken}` } : {};

/** How long the first check waits for the instance's answer. */
const checkTimeoutMs = 10_000;

/**
 * Asks the endpoint once before serving (a GET, which it answers 405: it is stateless), so a wrong URL, a refused
 * token or a refused host name is one clear line at start rather than an error on an editor's first tool call.
 */
export async function checkInstance(endpoint: URL, adminToken: string | null): Promise<void> {
  let res: Response;
  try {
    res = await fetch(endpoint, { headers: authHeaders(adminToken), signal: AbortSignal.timeout(checkTimeoutMs) });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    const why =
      (err as Error).name === 'TimeoutError'
        ? `no answer within ${checkTimeoutMs / 1000} s`
        : (cause?.code ?? cause?.message ?? (err as Error).message);
    throw new BridgeError(`cannot reach ${endpoint.href}: ${why}; is portal-mock running there?`);
  }
  const text = await res.text().catch(() => '');
  if (res.status === 405) return;
  if (res.status === 401)
    throw new BridgeError(
      adminToken
        ? `${endpoint.href} refused the admin token given with --admin-token`
        : `${endpoint.href} requires the admin token: give it with --admin-token (or PORTAL_MOCK_ADMIN_TOKEN)`,
    );
  if (res.status === 403)
    throw new BridgeError(
      `${endpoint.href} refused the host name "${endpoint.host}": start the instance with ` +
        `--mcp-allowed-hosts ${endpoint.hostname}, or use a name it answers to (${text.slice(0, 200)})`,
    );
  if (res.status === 404)
    throw new BridgeError(`${endpoint.href} has no MCP endpoint: is it portal-mock, of a version with /__admin/mcp?`);
  throw new BridgeError(`${endpoint.href} answered ${res.status} where portal-mock answers 405: ${text.slice(0, 200)}`);
}

export type BridgeOptions = {
  endpoint: URL;
  adminToken: string | null;
  maxInFlight: number;
  stdin?: Readable;
  stdout?: Writable;
  /** one line about a message that could not be forwarded (the command writes it on stderr) */
  warn?: (line: string) => void;
};

export type Bridge = {
  /** resolves once stdin has closed and the bridge with it */
  closed: Promise<void>;
  close: () => Promise<void>;
};

/** A JSON-RPC error answering request `id`, for what the bridge itself refuses or could not forward. */
const errorAnswer = (id: string | number, message: string): JSONRPCMessage => ({
  jsonrpc: '2.0',
  id,
  error: { code: -32000, message },
});

/** Serves stdin/stdout, forwarding every message to `endpoint` and every answer back. */
export async function serveBridge(options: BridgeOptions): Promise<Bridge> {
  const { endpoint, adminToken, maxInFlight, warn = () => {} } = options;
  const http = new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: authHeaders(adminToken) } });
  const stdio = new StdioServerTransport(options.stdin, options.stdout);
  /** ids of 2025-era initialize requests sent: their answer names the protocol version later requests carry */
  const initializing = new Set<string | number>();
  let inFlight = 0;

  http.onmessage = (message) => {
    if (isJSONRPCResultResponse(message) && initializing.delete(message.id)) {
      const version = (message.result as { protocolVersion?: unknown }).protocolVersion;
      if (typeof version === 'string') http.setProtocolVersion(version); // the MCP-Protocol-Version header
    }
    void stdio.send(message).catch((err: Error) => warn(`cannot write to stdout: ${err.message}`));
  };

  stdio.onmessage = (message) => {
    const id = isJSONRPCRequest(message) ? message.id : undefined;
    if (inFlight >= maxInFlight) {
      // the editor sent more than the bound without waiting for answers: refuse rather than queue without end
      const why = `more than ${maxInFlight} messages in flight (--max-in-flight): wait for answers before sending more`;
      if (id === undefined) warn(`dropped a notification: ${why}`);
      else void stdio.send(errorAnswer(id, why));
      return;
    }
    if (id !== undefined && isInitializeRequest(message)) initializing.add(id);
    inFlight++;
    http
      .send(message)
      .catch((err: Error) => {
        const why = `the instance at ${endpoint.href} did not answer: ${err.message}`;
        if (id === undefined) warn(why);
        else return stdio.send(errorAnswer(id, why));
      })
      .catch((err: Error) => warn(`cannot write to stdout: ${err.message}`))
      .finally(() => {
        inFlight--;
      });
  };
  stdio.onerror = (err) => warn(`stdin: ${err.message}`);

  let closing: Promise<void> | undefined;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  const close = () => {
    closing ??= (async () => {
      await stdio.close().catch(() => {});
      await http.close().catch(() => {});
      resolveClosed();
    })();
    return closing;
  };
  stdio.onclose = () => void close(); // stdin ended: the editor is done

  await http.start();
  await stdio.start();
  return { closed, close };
}
