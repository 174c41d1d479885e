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
};

export type AdminAnswer = {
  status: number;
  headers: Record<string, string>;
  /** the body parsed as JSON, else its text ('' when there is none) */
  body: unknown;
};

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
  return async ({ method, url, headers, body, portal }) => {
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
    return { status: res.status, headers: answerHeaders, body: parsedBody(await res.text()) };
  };
}
