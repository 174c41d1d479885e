// How the control plane reads request bodies: the lenient parser of its routes at large, and the strict one of the
// records API, which stores what it is given.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { fail } from '../errors.js';
import { jsonDepth } from '../shared/json-depth.js';

const maxAdminBodyDepth = 64;
type Done = (err: Error | null, body?: unknown) => void;
type JsonParser = (req: FastifyRequest, body: string, done: Done) => void;

/** Admin bodies are records and scenarios, a few levels deep: a deeper one would only overflow what walks it. */
function parseShallow(json: JsonParser, req: FastifyRequest, text: string, done: Done): void {
  const depth = jsonDepth(text);
  if (depth > maxAdminBodyDepth)
    done(fail.badRequest(`the body nests ${depth} levels deep; admin bodies may nest ${maxAdminBodyDepth}`));
  else json(req, text, done);
}

/**
 * QA scripts call admin routes with curl and fetch as they come: `curl -X POST .../reset` (no body), `-d '{}'`
 * (form content type), an empty body with content-type JSON. In this scope a body is JSON whatever its content
 * type, and an admin route whose body is all optional takes no body as {}.
 */
export function lenientJsonBodies(app: FastifyInstance): void {
  const json = app.getDefaultJsonParser('error', 'error') as JsonParser;
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (req, body, done) => {
    if (typeof body === 'string' && body.trim() === '') return done(null, undefined);
    parseShallow(json, req, String(body), done);
  });
  app.addHook('preValidation', async (req) => {
    if (req.body === undefined && req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'DELETE')
      req.body = {};
  });
}

const isJson = (type: string) => type === 'application/json' || /^application\/[^;\s]+\+json$/.test(type);
const mediaType = (header: string | undefined) => header?.split(';')[0]?.trim().toLowerCase() ?? '';

/**
 * Only JSON bodies, as given: a route with a body answers 415 UNSUPPORTED_MEDIA_TYPE to another content type (or
 * none) and 400 to an empty one, instead of reading a form or plain text as JSON, or nothing as {}.
 */
export function strictJsonBodies(app: FastifyInstance): void {
  const json = app.getDefaultJsonParser('error', 'error') as JsonParser;
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (req, body, done) => {
    // a body of a route that takes none (a DELETE) is not read
    if (req.routeOptions.schema?.body === undefined) return done(null, undefined);
    const type = mediaType(req.headers['content-type']);
    if (!isJson(type)) return done(notJson(type));
    if (String(body).trim() === '')
      return done(fail.badRequest('the body is empty: send a JSON object ({} to fill every field as the seeder does)'));
    parseShallow(json, req, String(body), done);
  });
  // a request without a body and without a content type never reaches a parser
  app.addHook('onRequest', async (req) => {
    if (req.routeOptions.schema?.body !== undefined && mediaType(req.headers['content-type']) === '') throw notJson('');
  });
}

function notJson(type: string) {
  return fail.unsupportedMediaType(
    `${type ? `content-type ${type.slice(0, 80)}` : 'no content-type'}: this route takes a JSON body ` +
      "(content-type: application/json; curl -H 'content-type: application/json' -d '{}')",
  );
}
