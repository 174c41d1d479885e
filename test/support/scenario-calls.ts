// The scenario tests' over-the-socket set-up: an app listening on loopback, a caller, and a probe whose status tells
// whether a stub answered; and a scenario that stubs that probe.
import type { AppOptions } from '../../src/app.js';
import { build, httpCaller, tenants } from '../helper.js';

type Teardown = { teardown(fn: () => unknown): void };

export async function listening(t: Teardown, options: AppOptions = {}) {
  const app = await build(t, options);
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const call = httpCaller(base);
  /** GET /mobile/oauth-list in a sandbox (needs only the tenant): the status tells whether a stub answered */
  const oauthList = async (sandbox: string, headers: Record<string, string> = {}) =>
    (
      await call('GET', '/mobile/oauth-list', undefined, {
        'x-service-tenant-id': tenants.romashka,
        'x-mock-sandbox': sandbox,
        ...headers,
      })
    ).status;
  return { app, base, call, oauthList };
}

/** A scenario whose one stub answers GET /mobile/oauth-list with `status`. */
export const stubbing = (name: string, status: number, extra: Record<string, unknown> = {}) => ({
  name,
  description: `oauth-list answers ${status}`,
  stubs: [{ operationId: 'mobileOauthList', status, body: { statusCode: status, message: 'stubbed' } }],
  ...extra,
});
