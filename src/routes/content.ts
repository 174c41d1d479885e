import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors, Page, PageQuery, ref, Uuid } from '../schemas/common.js';
import { Article, CatalogAnswer, UserPostcard } from '../schemas/content.js';
import { callerArgs, listUrl } from './handler.js';
import { articleCategory, articleNews, postcardUserView } from '../domain/content.js';

const uuidArray = Type.Array(Uuid, { maxItems: 100 });

/** The OpenAPI tags of this group, described (src/routes/index.ts puts them in the document's order). */
export const openapiTags = [
  { name: 'postcard', description: 'Received postcards' },
  { name: 'article', description: 'News' },
  { name: 'category', description: 'Catalog of categories and articles (right show-content-categories)' },
];

export const contentRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/postcard/user-view',
    {
      schema: {
        operationId: 'postcardUserView',
        tags: ['postcard'],
        summary: 'A postcard the current user received',
        description:
          'A postcard the caller received, with its sender and picture. A postcard of another recipient is a 404.',
        querystring: Type.Object({ id: Type.String({ format: 'uuid', description: 'received postcard id' }) }),
        response: { 200: ref(UserPostcard), ...errors(400, 401, 403, 404, 500) },
      },
      config: { auth: 'session' },
    },
    async (req) => postcardUserView(...callerArgs(req), req.query.id),
  );

  app.get(
    '/article/news',
    {
      schema: {
        operationId: 'articleNews',
        tags: ['article'],
        summary: 'Published news, newest first',
        description:
          'tag_id may repeat (tag_id=a&tag_id=b) or be sent as tag_id[]; a news item with any of the tags matches.',
        querystring: Type.Object({
          tag_id: Type.Optional(uuidArray),
          'tag_id[]': Type.Optional(uuidArray),
          ...PageQuery,
        }),
        response: { 200: Page(ref(Article)), ...errors(400, 401, 403, 500) },
      },
      config: { auth: 'session' },
    },
    async (req) => {
      const q = req.query;
      const tagIds = [...(q.tag_id ?? []), ...(q['tag_id[]'] ?? [])];
      return articleNews(...callerArgs(req), { tagIds, page: q.page, perPage: q['per-page'], url: listUrl(req) });
    },
  );

  app.get(
    '/article/category',
    {
      schema: {
        operationId: 'articleCategory',
        tags: ['category'],
        summary: 'A level of the catalog, or a search below it',
        description: 'Without id: the root. Unknown id: 400 (the API description declares no 404 here).',
        querystring: Type.Object({
          id: Type.Optional(Type.String({ format: 'uuid', description: 'category id' })),
          q: Type.Optional(Type.String({ maxLength: 200, description: 'search below the category' })),
        }),
        response: { 200: ref(CatalogAnswer), ...errors(400, 401, 403, 500) },
      },
      config: { auth: 'session', rights: ['show-content-categories'] },
    },
    async (req) => articleCategory(...callerArgs(req), req.query),
  );
};
