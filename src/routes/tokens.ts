import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors, PageQuery, ref, Uuid } from '../schemas/common.js';
import {
  PersonalTokenCreateBody,
  PersonalTokenCreateResult,
  PersonalTokenList,
  PersonalTokenPage,
  PersonalTokenRevokeResult,
} from '../schemas/admin-api.js';
import { callerArgs, listUrl } from './handler.js';
import { adminListTokens, adminRevokeToken, createToken, listOwnTokens, revokeOwnToken } from '../domain/tokens.js';

/** The OpenAPI tags of this group, described (src/routes/index.ts puts them in the document's order). */
export const openapiTags = [
  { name: 'user-api-token', description: 'Personal API tokens (Bearer); management needs a session' },
];

const tags = ['user-api-token'];
const IdBody = Type.Object({ id: Uuid });
const sessionOnly = 'Requires session authorization: a Bearer (personal token) caller gets 403.';

/** Personal API tokens: management needs a session (auth 'session-only'); the tokens work as Bearer elsewhere. */
export const tokenRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/user-api-token',
    {
      schema: {
        operationId: 'userApiTokenIndex',
        tags,
        summary: 'My personal API tokens (never the clear value)',
        description: sessionOnly,
        response: { 200: ref(PersonalTokenList), ...errors(401, 403) },
      },
      config: { auth: 'session-only' },
    },
    async (req) => listOwnTokens(...callerArgs(req)),
  );

  app.post(
    '/user-api-token/create',
    {
      schema: {
        operationId: 'userApiTokenCreate',
        tags,
        summary: 'Create a personal API token; the clear value is answered once',
        description:
          `${sessionOnly} The clear value \`pmt_<id>_<secret>\` is in data.token of this answer ` +
          'only; the mock keeps a hash. A failed form validation answers 200 with success false.',
        body: PersonalTokenCreateBody,
        response: { 200: ref(PersonalTokenCreateResult), ...errors(400, 401, 403) },
      },
      config: { auth: 'session-only' },
    },
    async (req) => createToken(...callerArgs(req), req.body),
  );

  app.post(
    '/user-api-token/revoke',
    {
      schema: {
        operationId: 'userApiTokenRevoke',
        tags,
        summary: 'Revoke one of my personal API tokens',
        description: sessionOnly,
        body: IdBody,
        response: { 200: ref(PersonalTokenRevokeResult), ...errors(400, 401, 403, 404) },
      },
      config: { auth: 'session-only' },
    },
    async (req) => revokeOwnToken(...callerArgs(req), req.body.id),
  );

  app.get(
    '/admin/user-api-token',
    {
      schema: {
        operationId: 'adminUserApiTokenIndex',
        tags,
        summary: 'Personal API tokens of every user of the tenant',
        description: `${sessionOnly} Requires the right user-edit.`,
        querystring: Type.Object({
          ...PageQuery,
          user_id: Type.Optional(Type.String({ description: 'comma-separated user ids (assumed)' })),
          active: Type.Optional(
            Type.Union(
              ['0', '1', 'true', 'false'].map((v) => Type.Literal(v)),
              { description: 'assumed' },
            ),
          ),
          name: Type.Optional(Type.String({ description: 'text search in the token and owner name (assumed)' })),
        }),
        response: { 200: ref(PersonalTokenPage), ...errors(400, 401, 403) },
      },
      config: { auth: 'session-only', rights: ['user-edit'] },
    },
    async (req) => {
      const { page, 'per-page': perPage, user_id: userId, active, name } = req.query;
      return adminListTokens(...callerArgs(req), { page, perPage, userId, active, name, url: listUrl(req) });
    },
  );

  app.post(
    '/admin/user-api-token/revoke',
    {
      schema: {
        operationId: 'adminUserApiTokenRevoke',
        tags,
        summary: 'Revoke any personal API token of the tenant',
        description: `${sessionOnly} Requires the right user-edit.`,
        body: IdBody,
        response: { 200: ref(PersonalTokenRevokeResult), ...errors(400, 401, 403, 404) },
      },
      config: { auth: 'session-only', rights: ['user-edit'] },
    },
    async (req) => adminRevokeToken(...callerArgs(req), req.body.id),
  );
};
