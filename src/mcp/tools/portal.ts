// call_portal: one operation of the portal's API in a sandbox, as the app would send it, with what came back.
import { type Static, Type } from '@sinclair/typebox';
import type { McpServer } from '@modelcontextprotocol/server';
import type { AdminMethod } from '../admin-call.js';
import { unknownValueMessage } from '../../shared/closest.js';
import { oneOf, toolSchema } from '../json-schema.js';
import { structured, toolError } from '../results.js';
import { SessionInput, sessionHeaders } from './session.js';
import { SandboxName, type ToolContext } from './context.js';

/** Most characters of an answer's body handed to the agent; a longer one is cut (and says so). */
export const maxBodyChars = 200_000;

const Scalar = Type.Union([Type.String(), Type.Number(), Type.Boolean()]);
const PortalInput = Type.Object(
  {
    sandbox: SandboxName,
    operationId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'the portal operation (resource portal-mock://openapi/portal)',
      }),
    ),
    method: Type.Optional(
      oneOf(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'], { description: 'with path, instead of operationId' }),
    ),
    path: Type.Optional(Type.String({ pattern: '^/', maxLength: 2000, description: 'e.g. /workflow-ticket' })),
    pathParams: Type.Optional(Type.Record(Type.String(), Scalar, { description: 'values of {name} in the path' })),
    query: Type.Optional(Type.Record(Type.String(), Type.Union([Scalar, Type.Array(Scalar)]))),
    body: Type.Optional(Type.Unknown({ description: 'the JSON body' })),
    session: Type.Optional(SessionInput),
    headers: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'more request headers' })),
    host: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9._~-]+(:[0-9]{1,5})?$|^\\[[0-9A-Fa-f:.]+\\](:[0-9]{1,5})?$',
        maxLength: 300,
        description:
          'host[:port] the answer is built for (sent as X-Forwarded-Host): absolute URLs in bodies carry it. ' +
          "After replay_capture on another server, give the origin's host:port to get the origin's bytes.",
      }),
    ),
  },
  { additionalProperties: false },
);
type PortalArgs = {
  sandbox: string;
  operationId?: string;
  method?: string;
  path?: string;
  pathParams?: Record<string, string | number | boolean>;
  query?: Record<string, string | number | boolean | (string | number | boolean)[]>;
  body?: unknown;
  session?: Static<typeof SessionInput>;
  headers?: Record<string, string>;
  host?: string;
};
const PortalOutput = Type.Object({
  operation: Type.String({ description: 'METHOD /path as sent' }),
  status: Type.Integer(),
  headers: Type.Record(Type.String(), Type.String()),
  body: Type.Unknown({ description: 'JSON when it parses, else text' }),
  truncated: Type.Optional(Type.Boolean({ description: `the body was longer than ${maxBodyChars} characters` })),
});
const schemas = { in: toolSchema(PortalInput), out: toolSchema(PortalOutput) };

/** Headers that say nothing about the portal's answer. */
const noise = /^(date|connection|keep-alive|content-length|vary|transfer-encoding|access-control-.*)$/;

function fillPath(path: string, params: Record<string, string | number | boolean>): string | { missing: string[] } {
  const missing: string[] = [];
  const filled = path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) missing.push(name);
    return encodeURIComponent(String(value ?? ''));
  });
  return missing.length > 0 ? { missing } : filled;
}

function queryText(query: PortalArgs['query']): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {}))
    for (const v of Array.isArray(value) ? value : [value]) params.append(key, String(v));
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

export function registerPortalTools(server: McpServer, { call, operations }: ToolContext): void {
  server.registerTool(
    'call_portal',
    {
      title: 'Call a portal operation',
      description:
        'Sends one request of the portal API in a sandbox, as the app would: by operationId (path parameters in ' +
        'pathParams) or method + path, with `session` the session sign_in or arrange_sandbox returned, as is. It ' +
        'lands in the journal (read_journal) and may raise findings (read_findings). Returns status, headers and ' +
        'body; ids in the body feed the next call_portal or records. Absolute URLs in bodies carry the Host this ' +
        "server was reached by: to compare a replayed sandbox's answers with the captured server's, give `host` " +
        "the origin's host:port (then only real differences remain).",
      inputSchema: schemas.in,
      outputSchema: schemas.out,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    async (args) => {
      let method: string | undefined = args.method;
      let path = args.path;
      if (args.operationId !== undefined) {
        const known = await operations();
        const op = known.get(args.operationId);
        if (!op)
          return toolError(
            unknownValueMessage('operationId', args.operationId, [...known.keys()], 'portal-mock://openapi/portal'),
          );
        method = op.method;
        path = op.path;
      }
      if (method === undefined || path === undefined) return toolError('give operationId, or method and path');
      const filled = fillPath(path, args.pathParams ?? {});
      if (typeof filled !== 'string') return toolError(`pathParams needs ${filled.missing.join(', ')} for ${path}`);
      const url = filled + queryText(args.query);
      const answer = await call({
        method: method as AdminMethod,
        url,
        headers: {
          ...args.headers,
          ...sessionHeaders(args.session),
          // the portal builds absolute URLs from the Host the app used (docs/data.md): a forwarded one stands for it
          ...(args.host === undefined ? {} : { 'x-forwarded-host': args.host }),
          'x-mock-sandbox': args.sandbox,
        },
        portal: true,
        ...(args.body === undefined ? {} : { body: args.body }),
      });
      const headers = Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !noise.test(name)));
      const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
      const cut = text.length > maxBodyChars;
      // a portal error is an answer the agent asked to see, not a failed tool call
      return structured({
        operation: `${method} ${url}`,
        status: answer.status,
        headers,
        body: cut ? text.slice(0, maxBodyChars) : answer.body,
        ...(cut ? { truncated: true } : {}),
      });
    },
  );
}
