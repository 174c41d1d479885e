import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ErrorBody } from './schemas/common.js';
import { pathOf } from './shared/url-path.js';

/** Every error the mock answers with, declared once: its status and stable code. */
export const ErrorKinds = {
  badRequest: { status: 400, code: 'BAD_REQUEST' },
  validation: { status: 400, code: 'VALIDATION_FAILED' },
  unauthorized: { status: 401, code: 'UNAUTHORIZED' },
  forbidden: { status: 403, code: 'FORBIDDEN' },
  notFound: { status: 404, code: 'NOT_FOUND' },
  /** an admin read (or GET/DELETE /__admin/sandboxes/NAME) of a sandbox that does not exist: it is never made by one */
  sandboxNotFound: { status: 404, code: 'SANDBOX_NOT_FOUND' },
  conflict: { status: 409, code: 'CONFLICT' },
  requestTimeout: { status: 408, code: 'REQUEST_TIMEOUT' },
  payloadTooLarge: { status: 413, code: 'PAYLOAD_TOO_LARGE' },
  unsupportedMediaType: { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
  unprocessable: { status: 422, code: 'UNPROCESSABLE' },
  tooManyRequests: { status: 429, code: 'TOO_MANY_REQUESTS' },
  headersTooLarge: { status: 431, code: 'HEADERS_TOO_LARGE' },
  internal: { status: 500, code: 'INTERNAL' },
  badGateway: { status: 502, code: 'BAD_GATEWAY' },
  /** answered by the balancer (deploy/haproxy.cfg) for a sandbox whose instance is down */
  instanceDown: { status: 503, code: 'INSTANCE_DOWN' },
  gatewayTimeout: { status: 504, code: 'GATEWAY_TIMEOUT' },
} as const;
export type ErrorKind = keyof typeof ErrorKinds;

export type Detail = { field: string; message: string };

export class ApiError extends Error {
  readonly statusCode: number;
  readonly code: string;
  readonly details: Detail[] | undefined;
  constructor(kind: ErrorKind, message: string, details?: Detail[]) {
    super(message);
    this.statusCode = ErrorKinds[kind].status;
    this.code = ErrorKinds[kind].code;
    this.details = details;
  }
}

/** Throw helpers: `throw fail.notFound('user 42 not found')`. */
export const fail = {
  badRequest: (message: string, details?: Detail[]) => new ApiError('badRequest', message, details),
  validation: (message: string, details?: Detail[]) => new ApiError('validation', message, details),
  unauthorized: (message: string) => new ApiError('unauthorized', message),
  forbidden: (message: string) => new ApiError('forbidden', message),
  notFound: (message: string) => new ApiError('notFound', message),
  sandboxNotFound: (message: string) => new ApiError('sandboxNotFound', message),
  conflict: (message: string) => new ApiError('conflict', message),
  unprocessable: (message: string, details?: Detail[]) => new ApiError('unprocessable', message, details),
  unsupportedMediaType: (message: string) => new ApiError('unsupportedMediaType', message),
  tooManyRequests: (message: string) => new ApiError('tooManyRequests', message),
  payloadTooLarge: (message: string) => new ApiError('payloadTooLarge', message),
};

export function errorBody(status: number, code: string, message: string, details?: Detail[]): ErrorBody {
  const body: ErrorBody = { statusCode: status, error: STATUS_CODES[status] ?? 'Error', code, message };
  if (details && details.length > 0) body.details = details;
  return body;
}

type ValidationIssue = { instancePath: string; message?: string; keyword: string; params: Record<string, unknown> };

/** Turns ajv issues into details naming the field, e.g. `body.email: must match format "email"`. */
function validationDetails(context: string, issues: ValidationIssue[]): Detail[] {
  const place = context === 'querystring' ? 'query' : context;
  return issues.map((issue) => {
    const path = issue.instancePath
      .split('/')
      .filter(Boolean)
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
    if (issue.keyword === 'required' && typeof issue.params.missingProperty === 'string')
      path.push(issue.params.missingProperty);
    if (issue.keyword === 'additionalProperties' && typeof issue.params.additionalProperty === 'string')
      path.push(issue.params.additionalProperty);
    let message = issue.message ?? 'is invalid';
    if (issue.keyword === 'enum' && Array.isArray(issue.params.allowedValues))
      message += `: ${issue.params.allowedValues.join(', ')}`;
    if (issue.keyword === 'required') message = 'is required';
    return { field: [place, ...path].join('.'), message };
  });
}

/** Fastify's own error codes for bad transport-level input, mapped to our kinds. */
const frameworkErrors: Record<string, ErrorKind> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupportedMediaType',
  FST_ERR_CTP_BODY_TOO_LARGE: 'payloadTooLarge',
  FST_ERR_CTP_INVALID_JSON_BODY: 'badRequest',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'badRequest',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'badRequest',
  FST_ERR_CTP_EMPTY_TYPE: 'badRequest',
  FST_ERR_CTP_INVALID_TYPE: 'unsupportedMediaType',
  FST_ERR_BAD_URL: 'badRequest',
  FST_ERR_ASYNC_CONSTRAINT: 'badRequest',
};

export function renderError(error: FastifyError | ApiError, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof ApiError) {
    return reply.status(error.statusCode).send(errorBody(error.statusCode, error.code, error.message, error.details));
  }
  const fe = error as FastifyError & { validation?: ValidationIssue[]; validationContext?: string };
  if (fe.validation) {
    const details = validationDetails(fe.validationContext ?? 'request', fe.validation);
    const message = `invalid input: ${details.map((d) => `${d.field} ${d.message}`).join('; ')}`;
    return reply.status(400).send(errorBody(400, ErrorKinds.validation.code, message, details));
  }
  const kind = fe.code ? frameworkErrors[fe.code] : undefined;
  if (kind) {
    const { status, code } = ErrorKinds[kind];
    return reply.status(status).send(errorBody(status, code, fe.message));
  }
  const status = fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500 ? fe.statusCode : 500;
  if (status === 500) {
    request.log.error({ err: error }, 'unhandled error');
    return reply.status(500).send(errorBody(500, ErrorKinds.internal.code, 'internal error of the mock'));
  }
  return reply.status(status).send(errorBody(status, fe.code ?? 'ERROR', fe.message));
}

/** Requests Node's HTTP parser refuses before Fastify sees them (an unencoded UTF-8 query, headers over the limit, a
 * slow client) get the one body shape too, instead of Fastify's own `{"message":"Client Error"}`. */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const kind: ErrorKind =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? 'headersTooLarge'
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? 'requestTimeout'
        : 'badRequest';
  const { status, code } = ErrorKinds[kind];
  const body = JSON.stringify(
    errorBody(
      status,
      code,
      (
        {
          headersTooLarge: 'request line and headers exceed the size limit',
          requestTimeout: 'the request did not arrive in time',
        } as Partial<Record<ErrorKind, string>>
      )[kind] ??
        `malformed HTTP request (${err.code ?? 'parse error'}); ` +
          'non-ASCII characters in a path or query must be percent-encoded',
    ),
  );
  if (socket.writable)
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Connection: close\r\n\r\n${body}`,
    );
  socket.destroy(err);
}

export function registerErrorHandling(app: FastifyInstance) {
  app.setErrorHandler(renderError);
  app.setNotFoundHandler((request, reply) => {
    reply
      .status(404)
      .send(errorBody(404, 'ROUTE_NOT_FOUND', `no operation answers ${request.method} ${pathOf(request.url)}`));
  });
}
