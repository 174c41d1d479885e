import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors } from '../schemas/common.js';
import { domainContext } from '../http/context.js';
import { createNotification } from '../domain/notifications.js';
import { blockUser } from '../domain/tokens.js';
import { adminUser, SandboxQuery } from './sandbox.js';
import { NotificationCreated, UserBlocked } from '../schemas/control-answers.js';

const tags = ['mock'];
const Who = {
  email: Type.Optional(Type.String({ description: 'the user, by e-mail …' })),
  userId: Type.Optional(Type.String({ description: '… or by id' })),
  sandbox: Type.Optional(Type.String()),
};

/** Admin actions on people: send a notification (pushed to the user's tokens), block a user. */
export const adminUserRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/__admin/notifications',
    {
      schema: {
        operationId: 'mockNotificationCreate',
        tags,
        summary: "Create a notification for a user; it is pushed to the user's registered tokens (see the outbox)",
        description:
          'Creates a notification for a user (by e-mail or id); it appears in /notifications/pushes and is pushed to ' +
          "the user's registered tokens (see the outbox).",
        querystring: SandboxQuery,
        body: Type.Object({
          ...Who,
          title: Type.String({ minLength: 1, maxLength: 200 }),
          body: Type.String({ maxLength: 4000, default: '' }),
          kind: Type.Optional(Type.String({ maxLength: 40 })),
          url: Type.Optional(
            Type.String({ maxLength: 2000, description: 'path below base_url or an absolute address' }),
          ),
        }),
        response: {
          200: NotificationCreated,
          ...errors(400, 401, 404),
        },
      },
    },
    async (req) => {
      const { sandbox, tenant, user } = adminUser(req, req.body);
      const before = sandbox.outbox.list().length;
      const record = createNotification(domainContext(req, undefined, sandbox), tenant, user.id, {
        title: req.body.title,
        body: req.body.body,
        kind: req.body.kind,
        url: req.body.url ?? null,
      });
      sandbox.commit();
      return {
        id: record.id,
        userId: user.id,
        tenantId: tenant.tenant.id,
        pushes: sandbox.outbox.list().length - before,
      };
    },
  );

  app.post(
    '/__admin/users/block',
    {
      schema: {
        operationId: 'mockUserBlock',
        tags,
        summary: 'Block a user: sessions and personal tokens stop working (tokens are revoked)',
        description: 'Blocks a user: their sessions end, their personal tokens are revoked, and sign-in answers 403.',
        querystring: SandboxQuery,
        body: Type.Object(Who),
        response: { 200: UserBlocked, ...errors(400, 401, 404) },
      },
    },
    async (req) => {
      const { sandbox, tenant, user } = adminUser(req, req.body);
      const blocked = blockUser(sandbox.store, tenant, user.id, sandbox.clock.now());
      sandbox.commit();
      return { userId: blocked.id, state: blocked.state };
    },
  );
};
