import { validateHeaderName, validateHeaderValue } from 'node:http';
import type { ScenarioFile, Stub } from '../schemas/scenario.js';

/**
 * Headers a stub may not set, and why: the mock frames every answer itself (its length from the body, the
 * connection kept or closed by the client and the faults), so these would make an answer the client cannot parse, or
 * act on the connection instead of the answer.
 */
export const refusedStubHeaders: Readonly<Record<string, string>> = {
  'content-length': 'the mock sets it from the body',
  'transfer-encoding': 'the mock frames the answer itself (a "chunked" answer with a plain body cannot be parsed)',
  'content-encoding': 'a stub body is sent as given; the mock compresses answers itself when the client accepts it',
  connection: 'a hop-by-hop header: the connection is the client\'s and the faults\' (kind "reset", "empty")',
  'keep-alive': "a hop-by-hop header: the connection is not the answer's",
  'proxy-connection': "a hop-by-hop header: the connection is not the answer's",
  upgrade: 'a hop-by-hop header: a stub answers over HTTP/1.1, it cannot switch protocols',
  te: 'a request header, and hop-by-hop',
  trailer: 'a stub answer has no trailers',
};

/** Statuses whose answer carries no body (RFC 9110): a stub body with them would be dropped without a word. */
const noBodyStatuses = new Set([204, 205, 304]);

const pointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * What makes a stub's answer one Node cannot send or a client cannot parse, as "at PATH: …", or null: checked when
 * the stub is defined (file, admin API, inline), so it never fails only when it is used. The status range (200..599:
 * a 1xx is an interim answer, 100 and 103 reset the connection) is the schema's.
 */
export function stubAnswerProblem(stub: Stub, at: string): string | null {
  for (const [name, value] of Object.entries(stub.headers ?? {})) {
    const where = `at ${at}/headers/${pointer(name)}`;
    try {
      validateHeaderName(name);
    } catch {
      return `${where}: "${name.slice(0, 40)}" is not a header name (letters, digits and !#$%&'*+-.^_\`|~ only)`;
    }
    const why = refusedStubHeaders[name.toLowerCase()];
    if (why) return `${where}: a stub cannot set ${name.toLowerCase()}: ${why}`;
    try {
      validateHeaderValue(name, value);
    } catch {
      return (
        `${where}: the value is not a header value (tab, printable ASCII and bytes 0x80-0xFF only: no line ` +
        'breaks, control characters or characters past U+00FF; percent-encode them)'
      );
    }
  }
  if (stub.body !== undefined && noBodyStatuses.has(stub.status))
    return `at ${at}/body: a ${stub.status} answer carries no body; remove the body or use another status`;
  return null;
}

/** The first stub answer of a definition that is not valid HTTP, or null. */
export function stubAnswersProblem(s: Pick<ScenarioFile, 'stubs'>): string | null {
  for (const [i, stub] of (s.stubs ?? []).entries()) {
    const problem = stubAnswerProblem(stub, `/stubs/${i}`);
    if (problem) return problem;
  }
  return null;
}
