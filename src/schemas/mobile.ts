import { Type, type Static } from '@sinclair/typebox';
import { assumed, ref } from './common.js';

export const TenantOptionsInfo = Type.Object(
  {
    enableWallet: Type.Boolean({ description: 'wallet operations are available (tenant option `enableWallet`)' }),
    enableIdeas: Type.Boolean(assumed()),
    enableCalendar: Type.Boolean(assumed()),
  },
  { $id: 'TenantOptionsInfo', ...assumed('Tenant options the client may switch screens on.') },
);

export const TenantInfo = Type.Object(
  {
    id: Type.String({ description: 'tenant id: send it as x-service-tenant-id (assumed field name)' }),
    name: Type.String(assumed('Display name of the tenant.')),
    domain: Type.String(assumed("The tenant's portal domain.")),
    base_url: Type.String({ description: 'the tenant endpoint: every later path is relative to it' }),
    locale: Type.String(assumed('Default language of the tenant, ru or en.')),
    timezone: Type.String(assumed('IANA time zone of the tenant.')),
    logoUrl: Type.String(assumed()),
    apiVersion: Type.String(assumed('Interface version, 2.0.0.')),
    options: ref(TenantOptionsInfo),
  },
  {
    $id: 'TenantInfo',
    description: 'Tenant information. Only base_url is named by the API description; the rest is assumed.',
  },
);
export type TenantInfo = Static<typeof TenantInfo>;

export const Device = Type.Object(
  {
    id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 128,
        pattern: '^[A-Za-z0-9._:-]+$',
        description: 'installation id chosen by the app; minted by the mock when absent',
      }),
    ),
    name: Type.Optional(Type.String({ maxLength: 200, description: 'e.g. "Anna\'s iPhone"' })),
    platform: Type.Optional(Type.String({ maxLength: 40, description: 'ios, android …' })),
    model: Type.Optional(Type.String({ maxLength: 100 })),
    osVersion: Type.Optional(Type.String({ maxLength: 40 })),
    appVersion: Type.Optional(Type.String({ maxLength: 40 })),
  },
  { $id: 'Device', ...assumed('The device being bound; all fields optional.') },
);
export type Device = Static<typeof Device>;

export const AccountSecret = Type.Object(
  {
    secret: Type.String({ description: 'send as `secret` to POST /mobile/auth' }),
    userId: Type.String({ description: 'send as `userId` to POST /mobile/auth' }),
    deviceId: Type.String({ description: 'send as `deviceId` to POST /mobile/auth and as x-service-device-id' }),
    tenantId: Type.String({ description: 'send as x-service-tenant-id' }),
  },
  { $id: 'AccountSecret', ...assumed('What a client needs for /mobile/auth.') },
);
export type AccountSecret = Static<typeof AccountSecret>;

export const BindResult = Type.Object(
  { accountSecret: ref(AccountSecret), tenantInfo: ref(TenantInfo) },
  { $id: 'BindResult' },
);

export const Credentials = {
  email: Type.String({ format: 'email', maxLength: 320 }),
  password: Type.String({ format: 'password', minLength: 1, maxLength: 200 }),
};

export const TwoFactorRequest = Type.Object(Credentials);
export const TwoFactorResult = Type.Object(
  {
    codeRequired: Type.Boolean({ description: 'true when two-factor is on for the account and a code was sent' }),
    tenantInfo: ref(TenantInfo),
    delayTime: Type.Number({ description: 'seconds before another code can be requested (assumed unit)' }),
  },
  { $id: 'TwoFactorResult' },
);

export const ManualBindRequest = Type.Object({
  ...Credentials,
  code: Type.Optional(Type.String({ maxLength: 20, description: 'two-factor code, needed when two-factor is on' })),
  device: ref(Device),
});

export const AuthRequest = Type.Object({
  secret: Type.String({ minLength: 1, maxLength: 512 }),
  userId: Type.String({ minLength: 1, maxLength: 128 }),
  deviceId: Type.String({ minLength: 1, maxLength: 128 }),
});
export const AuthResult = Type.Object(
  {
    sessionId: Type.String(),
    sessionSecret: Type.String({ description: 'send as x-service-session-code' }),
    tenantInfo: ref(TenantInfo),
  },
  { $id: 'AuthResult' },
);
export type AuthResult = Static<typeof AuthResult>;

export const SavePushTokenRequest = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 4096, description: 'push-provider token' }),
  provider: Type.Optional(Type.String({ default: 'firebase', description: 'only firebase is supported' })),
  deviceId: Type.String({ minLength: 1, maxLength: 128 }),
});

export const OauthOption = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    type: Type.String(),
    url: Type.String(),
  },
  { $id: 'OauthOption', ...assumed('An authorization option of the tenant (SSO).') },
);
export const OauthList = Type.Object({ data: Type.Array(ref(OauthOption)) }, { $id: 'OauthList', ...assumed() });

export const mobileSchemas = [
  TenantOptionsInfo,
  TenantInfo,
  Device,
  AccountSecret,
  BindResult,
  TwoFactorResult,
  AuthResult,
  OauthOption,
  OauthList,
];
