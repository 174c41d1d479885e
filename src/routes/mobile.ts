import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors, ref } from '../schemas/common.js';
import {
  AuthRequest,
  AuthResult,
  BindResult,
  Device,
  ManualBindRequest,
  OauthList,
  SavePushTokenRequest,
  TenantInfo,
  TwoFactorRequest,
  TwoFactorResult,
} from '../schemas/mobile.js';
import { domainContext, header } from '../http/context.js';
import { callerTenant } from '../auth/caller.js';
import { callerArgs } from './handler.js';
import { answerCache, answerKey } from '../http/answer-cache.js';
import {
  authorize,
  bindByLink,
  manualBind,
  oauthList,
  requestTwoFactor,
  savePushToken,
  tenantInfo,
  unbind,
} from '../domain/mobile.js';

/** The OpenAPI tags of this group, described (src/routes/index.ts puts them in the document's order). */
export const openapiTags = [{ name: 'mobile', description: 'Device binding and session' }];

const tags = ['mobile'];

export const mobileRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const kept = answerCache(app);
  app.post(
    '/mobile/bind/:id/:token',
    {
      schema: {
        operationId: 'mobileBind',
        tags,
        summary: 'Bind a device by the QR link',
        description:
          'The address a QR code carries (service://bind/?url=…). Answers the device secret ' +
          '(accountSecret) and the tenant; no session needed, a wrong or used link id or token is ' +
          'a 403. Binding a device id again replaces its earlier binding and ends its sessions.',
        params: Type.Object({
          id: Type.String({ minLength: 1, maxLength: 200 }),
          token: Type.String({ minLength: 1, maxLength: 200 }),
        }),
        body: Type.Object({ device: ref(Device) }),
        response: { 200: ref(BindResult), ...errors(400, 403) },
      },
      config: { auth: 'none' },
    },
    async (req) => bindByLink(domainContext(req), req.params.id, req.params.token, req.body.device),
  );

  app.post(
    '/mobile/request-two-factor',
    {
      schema: {
        operationId: 'mobileRequestTwoFactor',
        tags,
        summary: 'Check credentials and send a two-factor code when the account needs one',
        description:
          'First step of a manual sign-in, no session needed. With two-factor on, codeRequired ' +
          'is true and a code is e-mailed (read it in /__admin/outbox); delayTime is the ' +
          'seconds before another code can be sent. A wrong e-mail or password is a 403.',
        body: TwoFactorRequest,
        response: { 200: ref(TwoFactorResult), ...errors(400, 403, 500) },
      },
      config: { auth: 'none' },
    },
    async (req) => requestTwoFactor(domainContext(req), req.body, header(req, 'x-service-tenant-id')),
  );

  app.post(
    '/mobile/manual-bind',
    {
      schema: {
        operationId: 'mobileManualBind',
        tags,
        summary: 'Bind a device with e-mail, password and (when on) the two-factor code',
        description:
          'Binds the device given in the body and answers its secret (accountSecret) ' +
          'and the tenant; no session needed. When the account uses two-factor, ' +
          '`code` must be the code of /mobile/request-two-factor (else 403).',
        body: ManualBindRequest,
        response: { 200: ref(BindResult), ...errors(400, 403, 500) },
      },
      config: { auth: 'none' },
    },
    async (req) => manualBind(domainContext(req), req.body, header(req, 'x-service-tenant-id')),
  );

  app.post(
    '/mobile/auth',
    {
      schema: {
        operationId: 'mobileAuth',
        tags,
        summary: 'Authorize a session for a bound device',
        description:
          'Opens a session: send accountSecret.secret, userId and deviceId from a bind, with the tenant ' +
          'header x-service-tenant-id. Answers sessionId and sessionSecret, which go into ' +
          'x-service-session-id and x-service-session-code; a wrong secret is a 401, an unknown device a 404.',
        headers: Type.Object({ 'x-service-tenant-id': Type.String({ minLength: 1 }) }),
        body: AuthRequest,
        response: { 200: ref(AuthResult), ...errors(400, 401, 404, 500) },
      },
      config: { auth: 'tenant' },
    },
    async (req) => authorize(domainContext(req), callerTenant(req), req.body),
  );

  app.post(
    '/mobile/save-push-token',
    {
      schema: {
        operationId: 'mobileSavePushToken',
        tags,
        summary: 'Register the push token of a device',
        description:
          "Stores the token of the push provider for one of the caller's devices; pushes to the user " +
          'then show in /__admin/outbox. Only the provider firebase is supported (another is a 400).',
        body: SavePushTokenRequest,
        response: { 200: Type.Object({ success: Type.Boolean({ default: true }) }), ...errors(400, 401, 403, 500) },
      },
      config: { auth: 'session' },
    },
    async (req) => savePushToken(...callerArgs(req), req.body),
  );

  app.post(
    '/mobile/unbind',
    {
      schema: {
        operationId: 'mobileUnbind',
        tags,
        summary: 'Unbind a device: its sessions end and /mobile/auth answers 404 for it',
        description:
          "Removes one of the caller's devices with its sessions and push " +
          'token, and answers the tenant. A device of another user is a 403.',
        querystring: Type.Object({ deviceId: Type.String({ minLength: 1, maxLength: 128 }) }),
        response: { 200: ref(TenantInfo), ...errors(400, 401, 403, 500) },
      },
      config: { auth: 'session' },
    },
    async (req) => unbind(...callerArgs(req), req.query.deviceId),
  );

  app.get(
    '/mobile/tenant-info',
    {
      schema: {
        operationId: 'mobileTenantInfo',
        tags,
        summary: 'Tenant information',
        description: 'The tenant of the session: name, logo, options and base url.',
        response: { 200: ref(TenantInfo), ...errors(401, 403, 500) },
      },
      config: { auth: 'session' },
    },
    (req, reply) => {
      // kept per data version: the app asks for it on every start and resume, and pipelines hammer it
      const tenant = callerTenant(req);
      kept(req, reply, answerKey(req, tenant.tenant.id), (now) => tenantInfo(domainContext(req, now), tenant));
    },
  );

  app.get(
    '/mobile/oauth-list',
    {
      schema: {
        operationId: 'mobileOauthList',
        tags,
        summary: 'Authorization options (SSO providers) of the tenant',
        description:
          'Known by name only: the shape is assumed. Needs only the tenant header, since it is shown before sign-in.',
        response: { 200: ref(OauthList), ...errors(400, 404, 500) },
      },
      config: { auth: 'tenant' },
    },
    async (req) => oauthList(domainContext(req), callerTenant(req)),
  );
};
