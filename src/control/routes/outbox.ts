import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors, ref } from '../../schemas/common.js';
import { OutboxMessage, OutboxQuery } from '../../schemas/control.js';

/** What the mock would have sent: two-factor codes by e-mail and pushes. */
export const outboxRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/outbox',
    {
      schema: {
        operationId: 'mockOutbox',
        tags: ['mock'],
        summary: 'What the mock sent: two-factor codes by e-mail, pushes',
        description:
          'What the mock would have sent: two-factor codes by e-mail and pushes to registered tokens, newest first; ' +
          'filter by kind, recipient or user. A sandbox that does not exist is a 404 (SANDBOX_NOT_FOUND); reading ' +
          'creates nothing.',
        querystring: OutboxQuery,
        response: { 200: Type.Array(ref(OutboxMessage)), ...errors(400, 401, 404, 502, 503) },
      },
      config: { sandbox: 'read' },
    },
    async (req) => {
      const { kind, to, userId } = req.query;
      return req.mock.sandbox.outbox
        .list()
        .filter(
          (m) =>
            (!kind || m.kind === kind) &&
            (!to || m.to.toLowerCase() === to.toLowerCase()) &&
            (!userId || m.userId === userId),
        )
        .reverse();
    },
  );
};
