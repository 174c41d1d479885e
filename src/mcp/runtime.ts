// What serves /__admin/mcp once its first request comes (src/mcp/route.ts loads this module then): the SDK's
// Host and Origin checks, its stateless handlers for both protocol eras, and the MCP server of the tools, whose
// admin calls go through the app itself.
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hostHeaderValidation, originValidation } from '@modelcontextprotocol/fastify';
import {
  createMcpHandler,
  isLegacyRequest,
  type McpRequestContext,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { type AdminCall, boundedText, flatHeaders, parsedBody } from './admin-call.js';
import { createMockMcpServer } from './server.js';
import { operationsFromDocument } from './tools/context.js';

export type McpRuntime = {
  /** the DNS-rebinding checks: a 403 with a JSON-RPC error for a Host or Origin not allowed */
  checkOrigin(req: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** answers one POST */
  handle(req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply>;
  /** ends open subscriptions/listen streams */
  close(): Promise<void>;
};

/** An admin call through the app itself, with the MCP request's credentials and Host, so it is any admin call. */
export function injectCall(app: FastifyInstance, request: Request | undefined): AdminCall {
  const pick = (names: string[]) =>
    Object.fromEntries(
      names.flatMap((name) => (request?.headers.get(name) ? [[name, request.headers.get(name)!]] : [])),
    );
  const admin = pick(['authorization', 'x-mock-admin-token', 'host']);
  const portal = pick(['host']); // the admin token is no portal credential
  return async ({ method, url, headers, body, portal: toPortal, maxBytes }) => {
    const res = await app.inject({
      // a body that may be large is read as a stream: counted past maxBytes, never held whole
      payloadAsStream: maxBytes !== undefined,
      method,
      url,
      headers: {
        ...(toPortal ? portal : admin),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    if (maxBytes !== undefined) {
      const read = await boundedText(res.stream(), maxBytes);
      const answer = { status: res.statusCode, headers: flatHeaders(res.headers) };
      return 'bytes' in read ? { ...answer, body: '', bytes: read.bytes } : { ...answer, body: parsedBody(read.text) };
    }
    return { status: res.statusCode, headers: flatHeaders(res.headers), body: parsedBody(res.body) };
  };
}

/** The Fastify request as the web-standard Request the SDK reads; the body goes beside it, already parsed. */
function webRequest(req: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(flatHeaders(req.headers))) headers.set(name, value);
  // the URL's origin is not read (the Host header is, checked above): a fixed one cannot fail to parse
  return new Request(new URL(req.url, 'http://localhost'), { method: req.method, headers });
}

async function sendResponse(reply: FastifyReply, response: Response): Promise<FastifyReply> {
  reply.code(response.status);
  response.headers.forEach((value, name) => {
    reply.header(name, value);
  });
  if (response.body === null) return reply.send();
  // a subscriptions/listen stream: its connection ends with it, so a closing server does not wait for it to idle out
  if (response.headers.get('content-type')?.startsWith('text/event-stream'))
    return reply.header('connection', 'close').send(Readable.fromWeb(response.body as NodeReadableStream));
  return reply.send(await response.text());
}

export function createMcpRuntime(
  app: FastifyInstance,
  options: { version: string; allowed: string[]; maxSubscriptions: number },
): McpRuntime {
  const hostCheck = hostHeaderValidation(options.allowed);
  const originCheck = originValidation(options.allowed);
  const bodyLimit = app.config.bodyLimit;
  // the portal's operations are the same for every request: read from its document once, on the first call_portal
  const operations = operationsFromDocument(injectCall(app, undefined));
  const factory = (ctx: McpRequestContext) =>
    createMockMcpServer({ call: injectCall(app, ctx.requestInfo), version: options.version, operations });
  // the 2026-07-28 revision: one exchange per request by construction; 2025-era requests are served below
  const modern = createMcpHandler(factory, {
    legacy: 'reject',
    responseMode: 'auto', // one JSON body: no tool sends notifications before its result
    onerror: (err) => app.log.debug({ err }, 'mcp'),
    maxSubscriptions: options.maxSubscriptions,
    maxRequestBodySize: bodyLimit,
  });

  /** A 2025-era request: a fresh server and stateless transport for it alone, answering one JSON body. */
  async function legacy(request: Request, body: unknown): Promise<Response> {
    const server = factory({ era: 'legacy', requestInfo: request });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: bodyLimit,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request, { parsedBody: body });
    } finally {
      await server.close();
    }
  }

  return {
    async checkOrigin(req, reply) {
      await hostCheck(req, reply);
      if (!reply.sent) await originCheck(req, reply);
    },
    async handle(req, reply) {
      const request = webRequest(req);
      const response = (await isLegacyRequest(request, req.body))
        ? await legacy(request, req.body)
        : await modern.fetch(request, { parsedBody: req.body });
      return sendResponse(reply, response);
    },
    close: () => modern.close(),
  };
}
