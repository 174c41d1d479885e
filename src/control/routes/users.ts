import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors } from '../../schemas/common.js';
import { fail } from '../../errors.js';
import { BindLink, maxAheadSeconds } from '../../schemas/control.js';
import { NotificationCreated, SessionsExpired, UserBlocked } from '../../schemas/control-answers.js';
import { domainContext } from '../../http/context.js';
import { userByEmailOrId } from '../../domain/admin-users.js';
import { createNotification } from '../../domain/notifications.js';
import { blockUser, createBindLink } from '../../domain/tokens.js';
import { expireSessions } from '../../domain/scenario-activation.js';
import { bindLinkAddresses, bindLinkContent, bindUrl, phoneBase, qrSvg } from '../fixtures.js';
import { SandboxQuery } from '../sandbox.js';

const tags = ['mock'];
const Who = {
  email: Type.Optional(Type.String({ description: 'the user, by e-mail …' })),
  userId: Type.Optional(Type.String({ description: '… or by id' })),
  sandbox: Type.Optional(Type.String()),
};

/** What the control plane does to people and their sessions: expire, bind a device, notify, block. */
export const userRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/sessions/expire',
    {
      schema: {
        operationId: 'mockSessionsExpire',
        tags,
        summary: 'Expire every session of the sandbox now',
        querystring: SandboxQuery,
        description:
          "Every session of the sandbox expires now: the apps' next calls answer 401 and they must call /mobile/auth " +
          'again.',
        body: Type.Optional(Type.Object({ sandbox: Type.Optional(Type.String()) })),
        response: { 200: SessionsExpired, ...errors(400, 401) },
      },
      config: { sandbox: 'write' },
    },
    async (req) => ({ expired: expireSessions(req.mock.sandbox) }),
  );

  app.post(
    '/bind-links',
    {
      schema: {
        operationId: 'mockBindLinkCreate',
        tags,
        summary: 'Mint a QR bind link for a user',
        description:
          'Mints a bind link for a user (by e-mail or id; single-use by default, ttlSeconds for an expiry) and ' +
          'answers its address and QR code address; the app binds by POSTing to the address.',
        querystring: SandboxQuery,
        body: Type.Object({
          ...Who,
          singleUse: Type.Optional(Type.Boolean({ default: true })),
          ttlSeconds: Type.Optional(
            Type.Integer({ minimum: 1, maximum: maxAheadSeconds, description: 'at most 100 years' }),
          ),
        }),
        response: { 200: BindLink, ...errors(400, 401, 404) },
      },
      config: { sandbox: 'write' },
    },
    async (req) => {
      const { sandbox } = req.mock;
      const { tenant, user } = userByEmailOrId(sandbox.store, req.body);
      const { singleUse = true, ttlSeconds } = req.body;
      const link = createBindLink(sandbox.store, tenant, user.id, sandbox.clock.now(), { singleUse, ttlSeconds });
      return {
        id: link.id,
        token: link.token,
        tenantId: tenant.tenant.id,
        userId: user.id,
        ...bindLinkAddresses(req, sandbox.name, link.id, link.token),
        singleUse,
        expiresAt: link.expiresAt,
      };
    },
  );

  app.get(
    '/bind-links/:id/qr.svg',
    {
      schema: {
        operationId: 'mockBindLinkQr',
        tags,
        summary: 'The QR code of a bind link, as SVG (scan it with the app)',
        description:
          'The QR code of a bind link as SVG: scan it with the app to bind a device. It carries the bind token, so ' +
          'with --admin-token it needs the token, in a header or as ?token=.',
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) }),
        querystring: Type.Object({
          ...SandboxQuery.properties,
          token: Type.Optional(
            Type.String({ description: 'the --admin-token, for an <img> or a phone that cannot send a header' }),
          ),
        }),
        response: {
          200: { description: 'the QR code', content: { 'image/svg+xml': { schema: Type.String() } } },
          ...errors(400, 401, 404, 502, 503),
        },
      },
      // an <img> and a phone cannot send a header
      config: { sandbox: 'read', adminToken: 'header-or-query' },
    },
    async (req, reply) => {
      const { sandbox } = req.mock;
      const link = sandbox.store
        .tenants()
        .flatMap((t) => t.bindLinks)
        .find((l) => l.id === req.params.id);
      if (!link) throw fail.notFound(`bind link ${req.params.id} not found in sandbox ${sandbox.name}`);
      const svg = await qrSvg(bindLinkContent(bindUrl(phoneBase(req, sandbox.name), link.id, link.token)));
      return reply.type('image/svg+xml').send(svg);
    },
  );

  app.post(
    '/notifications',
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
        response: { 200: NotificationCreated, ...errors(400, 401, 404) },
      },
      config: { sandbox: 'write' },
    },
    async (req) => {
      const { sandbox } = req.mock;
      const { tenant, user } = userByEmailOrId(sandbox.store, req.body);
      // counted as added, not by length: a full outbox drops a message for each it keeps
      const before = sandbox.outbox.added;
      const record = createNotification(domainContext(req, undefined, sandbox), tenant, user.id, {
        title: req.body.title,
        body: req.body.body,
        kind: req.body.kind,
        url: req.body.url ?? null,
      });
      return {
        id: record.id,
        userId: user.id,
        tenantId: tenant.tenant.id,
        pushes: sandbox.outbox.added - before,
      };
    },
  );

  app.post(
    '/users/block',
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
      config: { sandbox: 'write' },
    },
    async (req) => {
      const { sandbox } = req.mock;
      const { tenant, user } = userByEmailOrId(sandbox.store, req.body);
      const blocked = blockUser(sandbox.store, tenant, user.id, sandbox.clock.now());
      return { userId: blocked.id, state: blocked.state };
    },
  );
};
