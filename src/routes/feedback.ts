import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors, ref } from '../schemas/common.js';
import { Feedback, FeedbackAdd, FeedbackAddResult } from '../schemas/feedback.js';
import { IdQuery } from '../schemas/admin-api.js';
import { callerArgs } from './handler.js';
import { feedbackAdd, feedbackView } from '../domain/feedback.js';

/** The OpenAPI tags of this group, described (src/routes/index.ts puts them in the document's order). */
export const openapiTags = [{ name: 'feedback', description: 'Feedback about users or departments' }];

const tags = ['feedback'];

export const feedbackRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/feedback/add',
    {
      schema: {
        operationId: 'feedbackAdd',
        tags,
        summary: 'Give feedback (score 1 to 5) about a user or a department',
        description: 'userId, when sent, must be the current user (else 403). An unknown user or department is a 404.',
        body: ref(FeedbackAdd),
        response: { 200: ref(FeedbackAddResult), ...errors(400, 401, 403, 404, 500) },
      },
      config: { auth: 'session' },
    },
    async (req) => feedbackAdd(...callerArgs(req), req.body),
  );

  app.get(
    '/feedback/view',
    {
      schema: {
        operationId: 'feedbackView',
        tags,
        summary: 'A feedback entry; anonymous entries never show the author',
        description:
          'One feedback entry about a user or a department, with its score and ' +
          'text; an anonymous entry never shows its author. An unknown id is a 404.',
        querystring: IdQuery,
        response: { 200: ref(Feedback), ...errors(400, 401, 403, 404, 500) },
      },
      config: { auth: 'session' },
    },
    async (req) => feedbackView(...callerArgs(req), req.query.id),
  );
};
