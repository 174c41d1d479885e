import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorBody, ref } from '../schemas/common.js';
import {
  AuthRequest, AuthResult, BindResult, Device, ManualBindRequest, OauthList, SavePushTokenRequest, TenantInfo,
  TwoFactorRequest, TwoFactorResult,
} from '../schemas/mobile.js';
import { caller, callerTenant, domainContext } from '../http/context.js';
import { answerCache, answerKey } from '../http/answer-cache.js';
import { authorize, bindByLink, manualBind, oauthList, requestTwoFactor, savePushToken, tenantInfo, unbind } from '../domain/mobile.js';
import { signInPolicy } from '../scenarios/effects.js';

const tags = ['mobile'];
const err = ref(ErrorBody);
const tenantHeader = (req: { headers: Record<string, unknown> }) => {
  const v = req.headers['x-service-tenant-id'];
  return typeof v === 'string' && v !== '' ? v : undefined;
};

/** Device binding, two-factor, sessions and push tokens. */
export const mobileRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const kept = answerCache();
  app.post('/mobile/bind/:id/:token', {
    schema: {
      operationId: 'mobileBind', tags, summary: 'Bind a device by the QR link',
      params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }), token: Type.String({ minLength: 1, maxLength: 200 }) }),
      body: Type.Object({ device: ref(Device) }),
      response: { 200: ref(BindResult), 400: err, 403: err },
    },
    config: { auth: 'none' },
  }, async (req) => bindByLink(domainContext(req), req.params.id, req.params.token, req.body.device));

  app.post('/mobile/request-two-factor', {
    schema: {
      operationId: 'mobileRequestTwoFactor', tags, summary: 'Check credentials and send a two-factor code when the account needs one',
      body: TwoFactorRequest,
      response: { 200: ref(TwoFactorResult), 400: err, 403: err, 500: err },
    },
    config: { auth: 'none' },
  }, async (req) => requestTwoFactor(domainContext(req), signInPolicy(req), req.body, tenantHeader(req)));

  app.post('/mobile/manual-bind', {
    schema: {
      operationId: 'mobileManualBind', tags, summary: 'Bind a device with e-mail, password and (when on) the two-factor code',
      body: ManualBindRequest,
      response: { 200: ref(BindResult), 400: err, 403: err, 500: err },
    },
    config: { auth: 'none' },
  }, async (req) => manualBind(domainContext(req), signInPolicy(req), req.body, tenantHeader(req)));

  app.post('/mobile/auth', {
    schema: {
      operationId: 'mobileAuth', tags, summary: 'Authorize a session for a bound device',
      headers: Type.Object({ 'x-service-tenant-id': Type.String({ minLength: 1 }) }),
      body: AuthRequest,
      response: { 200: ref(AuthResult), 400: err, 401: err, 404: err, 500: err },
    },
    config: { auth: 'tenant' },
  }, async (req) => authorize(domainContext(req), signInPolicy(req), callerTenant(req), req.body));

  app.post('/mobile/save-push-token', {
    schema: {
      operationId: 'mobileSavePushToken', tags, summary: 'Register the push token of a device',
      body: SavePushTokenRequest,
      response: { 200: Type.Object({ success: Type.Boolean({ default: true }) }), 400: err, 401: err, 403: err, 500: err },
    },
    config: { auth: 'session' },
  }, async (req) => {
    const { tenant, user } = caller(req);
    return savePushToken(domainContext(req), tenant, user, req.body);
  });

  app.post('/mobile/unbind', {
    schema: {
      operationId: 'mobileUnbind', tags, summary: 'Unbind a device: its sessions end and /mobile/auth answers 404 for it',
      querystring: Type.Object({ deviceId: Type.String({ minLength: 1, maxLength: 128 }) }),
      response: { 200: ref(TenantInfo), 400: err, 401: err, 403: err, 500: err },
    },
    config: { auth: 'session' },
  }, async (req) => {
    const { tenant, user } = caller(req);
    return unbind(domainContext(req), tenant, user, req.query.deviceId);
  });

  app.get('/mobile/tenant-info', {
    schema: {
      operationId: 'mobileTenantInfo', tags, summary: 'Tenant information',
      response: { 200: ref(TenantInfo), 401: err, 403: err, 500: err },
    },
    config: { auth: 'session' },
  }, async (req, reply) => {
    // kept per data version: the app asks for it on every start and resume, and pipelines hammer it
    const tenant = callerTenant(req);
    return kept(req, reply, answerKey(req, tenant.tenant.id), (now) => tenantInfo(domainContext(req, now), tenant));
  });

  app.get('/mobile/oauth-list', {
    schema: {
      operationId: 'mobileOauthList', tags, summary: 'Authorization options (SSO providers) of the tenant',
      description: 'Known by name only: the shape is assumed. Needs only the tenant header, since it is shown before sign-in.',
      response: { 200: ref(OauthList), 400: err, 404: err, 500: err },
    },
    config: { auth: 'tenant' },
  }, async (req) => oauthList(domainContext(req), callerTenant(req)));
};
