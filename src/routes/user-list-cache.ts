import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors, ref } from '../schemas/common.js';
import { UserListData, UserListSetBody, UserListSetResult } from '../schemas/admin-api.js';
import { callerArgs } from './handler.js';
import { setUserList, userListData } from '../domain/user-list-cache.js';
import { keepBodyText } from '../http/journal.js';

/** The OpenAPI tags of this group, described (src/routes/index.ts puts them in the document's order). */
export const openapiTags = [{ name: 'user-list-cache', description: 'Selections of users stored under a key' }];

const tags = ['user-list-cache'];

/** The key of a body not sent as application/json: a form field, or the text's `key` if it happens to be JSON. */
function quirkKey(contentType: string | undefined, text: string): string | null {
  if ((contentType ?? '').includes('application/x-www-form-urlencoded')) return new URLSearchParams(text).get('key');
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === 'object' && 'key' in parsed && typeof parsed.key === 'string'
      ? parsed.key
      : null;
  } catch {
    return new URLSearchParams(text).get('key');
  }
}

/** The user list cache; its parsers for non-JSON bodies live only in this plugin. */
export const userListCacheRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.removeContentTypeParser(['text/plain']);
  // Reproduced quirk: a body of another content type stores an EMPTY selection under its key and still answers 200.
  app.addContentTypeParser('*', { parseAs: 'string' }, (req, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    keepBodyText(req, text);
    const key = quirkKey(req.headers['content-type'], text);
    done(null, key === null ? { userList: {} } : { key, userList: {} });
  });

  app.post(
    '/user-list-cache/set-user-list',
    {
      schema: {
        operationId: 'userListCacheSet',
        tags,
        summary: 'Store a selection of users under a key',
        description:
          'Must be sent as application/json: any other content type silently stores an EMPTY selection under the ' +
          'key (a reproduced quirk of the portal) and answers 200. A missing key answers 200 with success false.',
        body: UserListSetBody,
        response: { 200: ref(UserListSetResult), ...errors(400, 401, 403) },
      },
      config: { auth: 'session' },
    },
    async (req) => setUserList(...callerArgs(req), req.body ?? {}),
  );

  app.get(
    '/user-list-cache/user-list-data',
    {
      schema: {
        operationId: 'userListCacheData',
        tags,
        summary: 'The expanded selection stored under a key',
        description:
          'The users, departments and user groups of the selection stored ' +
          'under `key`, expanded to users. An unknown key is a 404.',
        querystring: Type.Object({ key: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: { 200: ref(UserListData), ...errors(400, 401, 403, 404) },
      },
      config: { auth: 'session' },
    },
    async (req) => userListData(...callerArgs(req), req.query.key),
  );
};
