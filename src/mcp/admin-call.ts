// How the MCP tools reach the control plane: one function that sends an admin (or portal) request and answers what
// came back. The HTTP endpoint passes one built on app.inject (the caller's token forwarded, so --admin-token and
// the cluster's owner-first forwarding apply as to any admin call); a stdio bridge can pass one built on fetch.

export type AdminMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export type AdminRequest = {
  method: AdminMethod;
  /** a path with its query, e.g. /__admin/sandboxes or /sandbox/qa/api/v2/mobile/auth */
  url: string;
  headers?: Record<string, string>;
  /** sent as JSON */
  body?: unknown;
  /** a request of the portal's API: sent without the admin token (its Authorization means a portal token there) */
  portal?: boolean;
  /**
   * keep at most this many bytes of the body: a longer one is read to its end and counted, never held whole (the
   * answer's `body` is then '' and `bytes` its size)
   */
  maxBytes?: number;
};

export type AdminAnswer = {
  status: number;
  headers: Record<string, string>;
  /** the body parsed as JSON, else its text ('' when there is none, or when it was longer than maxBytes) */
  body: unknown;
  /** the body's size in bytes, when it was longer than the request's maxBytes */
  bytes?: number;
};

/** A body read up to `maxBytes`: its text, or only its size when it is longer (the rest counted, not kept). */
export async function boundedText(
  chunks: AsyncIterable<Uint8Array>,
  maxBytes: number,
): Promise<{ text: string } | { bytes: number }> {
  const kept: Uint8Array[] = [];
  let bytes = 0;
  for await (const chunk of chunks) {
    bytes += chunk.length;
    if (bytes <= maxBytes) kept.push(chunk);
    else kept.length = 0;
  }
  return bytes <= maxBytes ? { text: Buffer.concat(kept).toString('utf8') } : { bytes };
}

export type AdminCall = (request: AdminRequest) => Promise<AdminAnswer>;

/** Headers as one string each (Node gives arrays for repeated ones). */
export function flatHeaders(headers: Record<string, string | string[] | number | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    flat[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return flat;
}

/** A body as the tools hand it on: JSON when it parses, else the text. */
export function parsedBody(text: string): unknown {
  if (text === '') return '';
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** An admin call over HTTP, for a client of a running instance (the stdio bridge): base URL and admin token. */
export function fetchAdminCall(baseUrl: string, token?: string | null): AdminCall {
  const base = baseUrl.replace(/\/+$/, '');
  return async ({ method, url, headers, body, portal, maxBytes }) => {
    const res = await fetch(`${base}${url}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(token && !portal ? { authorization: `Bearer ${token}` } : {}),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const answerHeaders: Record<string, string> = {};
    res.headers.forEach((value, name) => {
      answerHeaders[name] = value;
    });
    if (maxBytes !== undefined && res.body) {
      // Node's web streams are async iterable; the DOM typings do not say so
      const read = await boundedText(res.body as unknown as AsyncIterable<Uint8Array>, maxBytes);
      if ('bytes' in read) return { status: res.status, headers: answerHeaders, body: '', bytes: read.bytes };
      return { status: res.status, headers: answerHeaders, body: parsedBody(read.text) };
    }
    return { status: res.status, headers: answerHeaders, body: parsedBody(await res.text()) };
  };
}
