import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors, Page, PageQuery, ref, Uuid } from '../schemas/common.js';
import { IdeaEdit, IdeaIndex, IdeaPurposes, IdeaStatuses, IdeaToggleResult, IdeaView } from '../schemas/ideas.js';
import { callerTenant } from '../auth/caller.js';
import { callerArgs, listUrl } from './handler.js';
import {
  ideaEdit,
  ideaIndex,
  ideaParticipate,
  ideaPurposes,
  ideaStatuses,
  ideaView,
  ideaVote,
  isModerator,
} from '../domain/ideas.js';

/** The OpenAPI tags of this group, described (src/routes/index.ts puts them in the document's order). */
export const openapiTags = [{ name: 'idea', description: 'Ideas: list, view, edit, vote, participate' }];

const tags = ['idea'];
const idQuery = Type.Object({ id: Type.String({ format: 'uuid', description: 'idea id' }) });
const ids = (what: string) =>
  Type.Optional(Type.String({ maxLength: 4000, description: `${what}: one or several comma-separated ids` }));

export const ideaRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/idea/statuses',
    {
      schema: {
        operationId: 'ideaStatuses',
        tags,
        summary: 'Idea statuses',
        description: 'The statuses an idea can have, for filters (idea_status_id).',
        response: { 200: ref(IdeaStatuses), ...errors(401, 403, 500) },
      },
      config: { auth: 'session' },
    },
    async (req) => ({ data: ideaStatuses(callerTenant(req)) }),
  );

  app.get(
    '/idea/purposes',
    {
      schema: {
        operationId: 'ideaPurposes',
        tags,
        summary: 'Idea purposes',
        description: 'The purposes an idea can have, for the edit form and filters (idea_purpose_id).',
        response: { 200: ref(IdeaPurposes), ...errors(401, 403, 500) },
      },
      config: { auth: 'session' },
    },
    async (req) => ({ data: ideaPurposes(callerTenant(req)) }),
  );

  app.get(
    '/idea/index',
    {
      schema: {
        operationId: 'ideaIndex',
        tags,
        summary: 'Ideas, newest first',
        description: "Published ideas, plus the caller's own ideas on moderation. per-page default 20, clamped to 100.",
        querystring: Type.Object({
          created_at: Type.Optional(
            Type.String({ maxLength: 40, description: 'range yyyy-MM-dd|yyyy-MM-dd (either side may be empty)' }),
          ),
          created_user_id: ids('authors'),
          idea_status_id: ids('statuses'),
          idea_purpose_id: ids('purposes'),
          performer_id: ids('performers'),
          ...PageQuery,
        }),
        response: { 200: Page(ref(IdeaIndex)), ...errors(400, 401, 403, 422, 500) },
      },
      config: { auth: 'session' },
    },
    async (req) => ideaIndex(...callerArgs(req), req.query, listUrl(req)),
  );

  app.get(
    '/idea/view',
    {
      schema: {
        operationId: 'ideaView',
        tags,
        summary: 'An idea with voters, participants and comments',
        description:
          'An idea with its author, voters, participants and comments. Ideas of others ' +
          'on moderation are a 404; the tenant option enableIdeas off is a 403.',
        querystring: idQuery,
        response: { 200: ref(IdeaView), ...errors(400, 401, 403, 404, 500) },
      },
      config: { auth: 'session' },
    },
    async (req) => ideaView(...callerArgs(req), req.query.id),
  );

  app.post(
    '/idea/edit',
    {
      schema: {
        operationId: 'ideaEdit',
        tags,
        summary: 'Create an idea (no id) or edit one (its author only)',
        description:
          'Ideas of users without the right user-edit go to moderation ' +
          'first. Field problems answer 400 with details naming each field.',
        querystring: Type.Object({ id: Type.Optional(Uuid) }),
        body: ref(IdeaEdit),
        response: { 200: ref(IdeaIndex), ...errors(400, 401, 403, 404, 500) },
      },
      config: { auth: 'session' },
    },
    async (req) => ideaEdit(...callerArgs(req), isModerator(req.mock.auth.rights), req.query.id, req.body),
  );

  for (const [path, operationId, summary, toggle] of [
    ['vote', 'ideaVote', 'Vote for an idea, or withdraw the vote (toggle)', ideaVote],
    ['participate', 'ideaParticipate', 'Take part in an idea, or stop (toggle)', ideaParticipate],
  ] as const) {
    app.post(
      `/idea/${path}`,
      {
        schema: {
          operationId,
          tags,
          summary,
          description: '`status` is the new state. An idea on moderation or rejected answers success false.',
          querystring: idQuery,
          response: { 200: ref(IdeaToggleResult), ...errors(400, 401, 403, 404, 500) },
        },
        config: { auth: 'session' },
      },
      async (req) => toggle(...callerArgs(req), req.query.id),
    );
  }
};
