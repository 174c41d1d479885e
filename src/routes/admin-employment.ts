import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors, ref } from '../schemas/common.js';
import { AdminEmployment, AdminEmploymentPage, AdminEmploymentQuery, IdQuery } from '../schemas/admin-api.js';
import { callerArgs, listUrl } from './handler.js';
import { listEmployments, viewEmployment } from '../domain/admin-employment.js';

/** The OpenAPI tags of this group, described (src/routes/index.ts puts them in the document's order). */
export const openapiTags = [
  { name: 'admin-employment', description: 'Read-only employments for integrations (right user-edit)' },
];

const tags = ['admin-employment'];

export const adminEmploymentRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/admin/employment',
    {
      schema: {
        operationId: 'adminEmploymentIndex',
        tags,
        summary: 'Employments of the tenant; maps origin id + origin organization id to a user id',
        description:
          'Requires the right user-edit. per-page is clamped to 100. Date ' +
          'ranges are yyyy-MM-dd|yyyy-MM-dd; a time of day gives 422.',
        querystring: AdminEmploymentQuery,
        response: { 200: ref(AdminEmploymentPage), ...errors(400, 401, 403, 422) },
      },
      config: { auth: 'session', rights: ['user-edit'] },
    },
    async (req) => listEmployments(...callerArgs(req), { ...req.query, url: listUrl(req) }),
  );

  app.get(
    '/admin/employment/view',
    {
      schema: {
        operationId: 'adminEmploymentView',
        tags,
        summary: 'One employment',
        description: 'Requires the right user-edit.',
        querystring: IdQuery,
        response: { 200: ref(AdminEmployment), ...errors(400, 401, 403, 404) },
      },
      config: { auth: 'session', rights: ['user-edit'] },
    },
    async (req) => viewEmployment(...callerArgs(req), req.query.id),
  );
};
