import type { FixturesAnswer } from '../schemas/control.js';
import type { FastifyRequest } from 'fastify';
import type { Fixtures } from '../store/fixtures.js';
import { isLoopbackHost, lanAddresses } from '../shared/lan.js';
import { forwardedPrefix } from '../http/context.js';
import { generatedPassword } from '../store/seed/people.js';

const sandboxPrefix = (sandboxName: string) => (sandboxName === 'default' ? '' : `/sandbox/${sandboxName}`);

/** The address a phone should use: the caller's, unless that is loopback, then the first LAN address. */
export function phoneBase(req: FastifyRequest, sandboxName: string): string {
  const lan = lanAddresses()[0];
  const host = isLoopbackHost(req.hostname) && lan ? `${lan}${req.port ? `:${req.port}` : ''}` : req.host;
  return `${req.protocol}://${host}${forwardedPrefix(req)}${sandboxPrefix(sandboxName)}`;
}

export const bindUrl = (base: string, id: string, token: string) =>
  `${base}/mobile/bind/${encodeURIComponent(id)}/${encodeURIComponent(token)}`;
export const bindLinkContent = (url: string) => `service://bind/?url=${encodeURIComponent(url)}`;

/** The addresses of a bind link as the caller reaches us: the bind operation, what its QR code carries, the QR image. */
export function bindLinkAddresses(req: FastifyRequest, sandboxName: string, id: string, token: string) {
  const origin = `${req.protocol}://${req.host}${forwardedPrefix(req)}`;
  const url = bindUrl(`${origin}${sandboxPrefix(sandboxName)}`, id, token);
  const sandboxQuery = sandboxName === 'default' ? '' : `?sandbox=${encodeURIComponent(sandboxName)}`;
  return {
    url,
    link: bindLinkContent(url),
    qr: `${origin}/__admin/bind-links/${encodeURIComponent(id)}/qr.svg${sandboxQuery}`,
  };
}

export function describeFixtures(fixtures: Fixtures, req: FastifyRequest, sandboxName: string): FixturesAnswer {
  const userIds = new Set(fixtures.tenants.flatMap((t) => t.accounts.map((a) => a.userId)));
  return {
    tenants: fixtures.tenants.map((t) => ({
      id: t.id,
      name: t.name,
      domain: t.domain,
      locale: t.locale,
      options: t.options,
    })),
    accounts: fixtures.tenants.flatMap((t) =>
      t.accounts.map((a) => ({
        tenantId: t.id,
        userId: a.userId,
        email: a.email,
        password: a.password,
        twoFactor: a.twoFactor,
        rights: a.rights,
        name: [a.lastName, a.firstName, a.middleName].filter(Boolean).join(' '),
        note: a.note,
      })),
    ),
    devices: fixtures.tenants.flatMap((t) =>
      t.devices.map((d) => ({
        tenantId: t.id,
        userId: d.userId,
        id: d.id,
        secret: d.secret,
        name: d.name,
        note: d.note,
      })),
    ),
    apiKeys: fixtures.tenants.flatMap((t) => t.apiKeys.map((k) => ({ tenantId: t.id, ...k }))),
    bindLinks: fixtures.tenants.flatMap((t) =>
      t.bindLinks
        .filter((b) => userIds.has(b.userId))
        .map((b) => ({
          tenantId: t.id,
          userId: b.userId,
          id: b.id,
          token: b.token,
          ...bindLinkAddresses(req, sandboxName, b.id, b.token),
        })),
    ),
    generatedPassword,
  };
}

// qrcode is loaded on first use: importing it costs ~0.1 s of start-up
export const qrSvg = async (content: string) =>
  (await import('qrcode')).default.toString(content, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
