// Device binding, two-factor, sessions and push tokens: the sign-in flow of the mobile group.
import { fail } from '../errors.js';
import type { AccountSecret, AuthResult, Device, TenantInfo } from '../schemas/mobile.js';
import type { DeviceRecord, UserRecord } from '../schemas/records.js';
import { findById, type Tenant } from '../store/store.js';
import { hashSecret, newCode, newSecret, newUuid, secretMatches } from '../store/ids.js';
import { absolute, tenantOptionsOf, type DomainContext } from './context.js';

/** Assumed lifetimes (the API description does not give them); documented in docs/assumptions.md. */
export const lifetimes = {
  sessionSeconds: 24 * 3600,
  twoFactorCodeSeconds: 300,
  twoFactorResendSeconds: 60,
};

export function tenantInfo(ctx: DomainContext, tenant: Tenant): TenantInfo {
  const t = tenant.tenant;
  return {
    id: t.id,
    name: t.name,
    domain: t.domain,
    base_url: ctx.baseUrl,
    locale: t.locale,
    timezone: t.timezone,
    logoUrl: absolute(ctx, `/images/tenant/${t.id}.svg`),
    apiVersion: '2.0.0',
    options: tenantOptionsOf(ctx, tenant),
  };
}

const twoFactorOn = (ctx: DomainContext, user: UserRecord) => ctx.effects.twoFactor ?? user.twoFactor;

/** Finds the account by e-mail and password; 403 for anything wrong, with no hint which part was wrong. */
function checkCredentials(
  ctx: DomainContext,
  email: string,
  password: string,
  tenantId?: string,
): { tenant: Tenant; user: UserRecord } {
  const wanted = email.trim().toLowerCase();
  for (const tenant of ctx.store.tenants()) {
    if (tenantId && tenant.tenant.id !== tenantId) continue;
    const user = tenant.users.find((u) => u.email.toLowerCase() === wanted);
    if (!user) continue;
    if (user.password !== password) break;
    if (user.state !== 'active') throw fail.forbidden('this account is blocked');
    return { tenant, user };
  }
  throw fail.forbidden('invalid e-mail or password');
}

export function requestTwoFactor(ctx: DomainContext, input: { email: string; password: string }, tenantId?: string) {
  const { tenant, user } = checkCredentials(ctx, input.email, input.password, tenantId);
  if (!twoFactorOn(ctx, user)) return { codeRequired: false, tenantInfo: tenantInfo(ctx, tenant), delayTime: 0 };
  const now = ctx.now.getTime();
  const pending = tenant.twoFactorChallenges.find((c) => c.userId === user.id && Date.parse(c.expiresAt) > now);
  const sinceLast = pending ? (now - Date.parse(pending.createdAt)) / 1000 : Infinity;
  if (pending && sinceLast < lifetimes.twoFactorResendSeconds) {
    // Too soon for another e-mail: the code already sent stays valid.
    return {
      codeRequired: true,
      tenantInfo: tenantInfo(ctx, tenant),
      delayTime: Math.ceil(lifetimes.twoFactorResendSeconds - sinceLast),
    };
  }
  const code = newCode(ctx.store);
  ctx.store.remove(tenant, 'twoFactorChallenges', (c) => c.userId === user.id);
  ctx.store.insert(tenant, 'twoFactorChallenges', {
    userId: user.id,
    code,
    createdAt: ctx.now.toISOString(),
    expiresAt: new Date(now + lifetimes.twoFactorCodeSeconds * 1000).toISOString(),
  });
  ctx.outbox.add({
    at: ctx.now.toISOString(),
    kind: 'two-factor-code',
    tenantId: tenant.tenant.id,
    userId: user.id,
    to: user.email,
    code,
  });
  return { codeRequired: true, tenantInfo: tenantInfo(ctx, tenant), delayTime: lifetimes.twoFactorResendSeconds };
}

/** Records a bound device (replacing an earlier binding of the same id and its sessions) and returns its secret. */
function bindDevice(
  ctx: DomainContext,
  tenant: Tenant,
  user: UserRecord,
  device: Device,
  method: DeviceRecord['bindMethod'],
): AccountSecret {
  const deviceId = device.id ?? newUuid(ctx.store, 'device');
  forgetDevice(ctx, tenant, deviceId);
  const secret = newSecret(ctx.store, 'device-secret');
  ctx.store.insert(tenant, 'devices', {
    id: deviceId,
    userId: user.id,
    secretHash: hashSecret(secret),
    name: device.name ?? 'Unnamed device',
    platform: device.platform ?? 'unknown',
    model: device.model ?? '',
    osVersion: device.osVersion ?? '',
    appVersion: device.appVersion ?? '',
    boundAt: ctx.now.toISOString(),
    bindMethod: method,
  });
  return { secret, userId: user.id, deviceId, tenantId: tenant.tenant.id };
}

function forgetDevice(ctx: DomainContext, tenant: Tenant, deviceId: string) {
  ctx.store.remove(tenant, 'devices', (d) => d.id === deviceId);
  ctx.store.remove(tenant, 'sessions', (s) => s.deviceId === deviceId);
  ctx.store.remove(tenant, 'pushTokens', (p) => p.deviceId === deviceId);
}

export function manualBind(
  ctx: DomainContext,
  input: { email: string; password: string; code?: string | undefined; device: Device },
  tenantId?: string,
) {
  const { tenant, user } = checkCredentials(ctx, input.email, input.password, tenantId);
  if (twoFactorOn(ctx, user)) {
    const now = ctx.now.getTime();
    const challenge = tenant.twoFactorChallenges.find((c) => c.userId === user.id);
    if (!input.code) throw fail.forbidden('two-factor code required: request one with POST /mobile/request-two-factor');
    if (!challenge || challenge.code !== input.code.trim()) throw fail.forbidden('two-factor code invalid');
    if (Date.parse(challenge.expiresAt) <= now) throw fail.forbidden('two-factor code expired: request a new one');
    ctx.store.remove(tenant, 'twoFactorChallenges', (c) => c === challenge);
  }
  const accountSecret = bindDevice(ctx, tenant, user, input.device, 'manual');
  return { accountSecret, tenantInfo: tenantInfo(ctx, tenant) };
}

/** Bind by QR link. Links from fixtures are reusable; links minted as single-use work once. */
export function bindByLink(ctx: DomainContext, linkId: string, token: string, device: Device) {
  for (const tenant of ctx.store.tenants()) {
    const link = tenant.bindLinks.find((l) => l.id === linkId);
    if (!link) continue;
    if (!secretMatches(link.token, hashSecret(token))) break;
    if (link.singleUse && link.usedAt) throw fail.forbidden('bind link already used');
    if (link.expiresAt && Date.parse(link.expiresAt) <= ctx.now.getTime()) throw fail.forbidden('bind link expired');
    const user = tenant.users.find((u) => u.id === link.userId);
    if (user?.state !== 'active') throw fail.forbidden('the account of this bind link is blocked');
    ctx.store.update(tenant, 'bindLinks', link, { usedAt: ctx.now.toISOString() });
    const accountSecret = bindDevice(ctx, tenant, user, device, 'qr');
    return { accountSecret, tenantInfo: tenantInfo(ctx, tenant) };
  }
  throw fail.forbidden('invalid bind link id or token');
}

export function authorize(
  ctx: DomainContext,
  tenant: Tenant,
  input: { secret: string; userId: string; deviceId: string },
): AuthResult {
  const device = findById(tenant.devices, input.deviceId);
  if (!device) throw fail.notFound(`device ${input.deviceId} not found; bind it first`);
  if (device.userId !== input.userId || !secretMatches(input.secret, device.secretHash))
    throw fail.unauthorized('secret invalid');
  const user = tenant.users.find((u) => u.id === device.userId);
  if (user?.state !== 'active') throw fail.unauthorized('this account is blocked');
  const sessionSecret = newSecret(ctx.store, 'session-secret');
  const sessionId = newUuid(ctx.store, 'session');
  ctx.store.insert(tenant, 'sessions', {
    id: sessionId,
    secretHash: hashSecret(sessionSecret),
    deviceId: device.id,
    userId: user.id,
    createdAt: ctx.now.toISOString(),
    expiresAt: new Date(ctx.now.getTime() + ctx.effects.sessionSeconds * 1000).toISOString(),
  });
  ctx.store.update(tenant, 'users', user, { lastLoginAt: ctx.now.toISOString() });
  return { sessionId, sessionSecret, tenantInfo: tenantInfo(ctx, tenant) };
}

function ownDevice(tenant: Tenant, user: UserRecord, deviceId: string): DeviceRecord {
  const device = findById(tenant.devices, deviceId);
  if (device?.userId !== user.id) throw fail.forbidden(`device ${deviceId} is not bound to the current user`);
  return device;
}

export function savePushToken(
  ctx: DomainContext,
  tenant: Tenant,
  user: UserRecord,
  input: { token: string; provider?: string | undefined; deviceId: string },
) {
  const provider = input.provider ?? 'firebase';
  if (provider !== 'firebase') {
    throw fail.validation(`push provider "${provider}" is not supported: only firebase is`, [
      { field: 'body.provider', message: 'must be firebase' },
    ]);
  }
  const device = ownDevice(tenant, user, input.deviceId);
  ctx.store.remove(tenant, 'pushTokens', (p) => p.deviceId === device.id);
  ctx.store.insert(tenant, 'pushTokens', {
    deviceId: device.id,
    userId: user.id,
    token: input.token,
    provider: 'firebase',
    registeredAt: ctx.now.toISOString(),
  });
  return { success: true };
}

export function unbind(ctx: DomainContext, tenant: Tenant, user: UserRecord, deviceId: string): TenantInfo {
  const device = ownDevice(tenant, user, deviceId);
  forgetDevice(ctx, tenant, device.id);
  return tenantInfo(ctx, tenant);
}

export function oauthList(ctx: DomainContext, tenant: Tenant) {
  return { data: tenant.tenant.oauth.map((o) => ({ ...o, url: absolute(ctx, o.url) })) };
}
