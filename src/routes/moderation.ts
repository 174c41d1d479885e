import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors, ref, Uuid } from '../schemas/common.js';
import { ArrayOfIds, Moderation, ModerationResult } from '../schemas/ideas.js';
import { callerArgs, streamedPast } from './handler.js';
import { isModerator } from '../domain/ideas.js';
import { lazyModeration, moderationDecide } from '../domain/moderation.js';

/** The OpenAPI tags of this group, described (src/routes/index.ts puts them in the document's order). */
export const openapiTags = [{ name: 'moderation', description: 'Moderation queue of ideas and comments' }];

const tags = ['moderation'];
const decideSchema = (operationId: string, summary: string) => ({
  operationId,
  tags,
  summary,
  description:
    'Body: {"ids": [uuid, …]} or a bare array of uuids (1 to 100). All or nothing: an id ' +
    'not waiting for moderation is a 404. Only moderators (right user-edit): 403 otherwise.',
  body: ref(ArrayOfIds),
  response: { 200: ref(ModerationResult), ...errors(400, 401, 403, 404, 500) },
});

export const moderationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/moderation',
    {
      schema: {
        operationId: 'moderationIndex',
        tags,
        summary: "Items waiting for the current user's decision",
        description:
          'Moderators (right user-edit) see ideas on moderation and pending comments; anybody ' +
          'else an empty queue. `id` picks one item (404 when it is not in the queue).',
        querystring: Type.Object({ id: Type.Optional(Uuid) }),
        response: { 200: ref(Moderation), ...errors(400, 401, 403, 404, 500) },
      },
      config: { auth: 'session' },
    },
    async (req, reply) => {
      const queue = lazyModeration(...callerArgs(req), isModerator(req.mock.auth.rights), req.query.id);
      return streamedPast(req, reply, queue.count, queue, () => ({ ...queue, data: queue.data.toJSON() }));
    },
  );

  app.post(
    '/moderation/accept',
    {
      schema: decideSchema('moderationAccept', 'Accept items: ideas are published, comments shown'),
      config: { auth: 'session' },
    },
    async (req) => moderationDecide(...callerArgs(req), isModerator(req.mock.auth.rights), req.body, 'accept'),
  );

  app.post(
    '/moderation/reject',
    {
      schema: decideSchema('moderationReject', 'Reject items: ideas get the status rejected, comments stay hidden'),
      config: { auth: 'session' },
    },
    async (req) => moderationDecide(...callerArgs(req), isModerator(req.mock.auth.rights), req.body, 'reject'),
  );
};
