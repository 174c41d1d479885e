import type { Right } from '../schemas/common.js';
import type { DeviceRecord, SessionRecord, UserRecord } from '../schemas/records.js';
import type { Tenant } from '../store/store.js';

/**
 * How a route is authorized, declared in its config:
 * - none: binding operations and the docs;
 * - tenant: only the tenant header (POST /mobile/auth);
 * - session: session headers, or a personal token as Bearer;
 * - session-only: session headers; a Bearer caller gets 403 (token management);
 * - session-or-apikey: session headers, Bearer, or an API key (workflow tickets).
 */
export type AuthMode = 'none' | 'tenant' | 'session' | 'session-only' | 'session-or-apikey';

/** Who is calling, as the auth plugin resolved the request's credentials. */
export type AuthContext = {
  kind: 'none' | 'tenant' | 'session' | 'bearer' | 'apikey';
  tenant: Tenant | null;
  user: UserRecord | null;
  session: SessionRecord | null;
  device: DeviceRecord | null;
  apiKeyClientId: string | null;
  rights: readonly Right[];
};

export const noAuth: AuthContext = {
  kind: 'none',
  tenant: null,
  user: null,
  session: null,
  device: null,
  apiKeyClientId: null,
  rights: [],
};
