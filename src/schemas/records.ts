// Records as the store keeps them. API answers are built from these by domain functions;
// credentials are kept as hashes so a snapshot never carries a usable secret.
import { Type, type Static } from '@sinclair/typebox';
import { Day, Nullable, Right, Stamp, Uuid } from './common.js';
import { FileContent } from './file-bytes.js';

const Id = Type.String({ minLength: 1, maxLength: 128 });

export const TenantOptions = Type.Object({
  enableWallet: Type.Boolean({ description: 'wallet operations are available' }),
  enableIdeas: Type.Boolean(),
  enableCalendar: Type.Boolean(),
});
export type TenantOptions = Static<typeof TenantOptions>;

export const OauthProvider = Type.Object({
  id: Type.String(),
  name: Type.String(),
  type: Type.String({ description: 'saml, oidc, oauth2 …' }),
  url: Type.String({ description: 'path below base_url that starts the provider sign-in' }),
});

export const TenantRecord = Type.Object({
  id: Uuid,
  name: Type.String(),
  domain: Type.String(),
  locale: Type.Union([Type.Literal('ru'), Type.Literal('en')]),
  timezone: Type.String(),
  options: TenantOptions,
  oauth: Type.Array(OauthProvider),
});
export type TenantRecord = Static<typeof TenantRecord>;

export const DepartmentRecord = Type.Object({
  id: Uuid,
  name: Type.String(),
  parentId: Nullable(Uuid),
  /** names from the root down, joined by " / " */
  path: Type.String(),
  level: Type.Integer({ minimum: 0 }),
  headId: Nullable(Uuid),
});
export type DepartmentRecord = Static<typeof DepartmentRecord>;

export const UserState = Type.Union([Type.Literal('active'), Type.Literal('blocked'), Type.Literal('hidden')]);

export const UserRecord = Type.Object({
  id: Uuid,
  email: Type.String({ format: 'email' }),
  /** clear text on purpose: demo credentials are listed by /__admin/fixtures */
  password: Type.String(),
  twoFactor: Type.Boolean(),
  rights: Type.Array(Right),
  firstName: Type.String(),
  lastName: Type.String(),
  middleName: Nullable(Type.String()),
  name: Type.String(),
  gender: Type.Union([Type.Literal('male'), Type.Literal('female')]),
  position: Type.String(),
  departmentId: Uuid,
  isBoss: Type.Boolean(),
  phone: Type.String(),
  birthday: Day,
  hiredAt: Day,
  createdAt: Stamp,
  lastLoginAt: Nullable(Stamp),
  /** 1 invited, 2 registered, 3 registration declined */
  regStatusId: Type.Integer({ minimum: 1, maximum: 3 }),
  state: UserState,
  /** path below base_url */
  faceUrl: Type.String(),
  statusText: Type.String(),
  activeStatusTypes: Type.Array(Type.String()),
});
export type UserRecord = Static<typeof UserRecord>;

export const DeviceRecord = Type.Object({
  id: Id,
  userId: Uuid,
  secretHash: Type.String(),
  name: Type.String(),
  platform: Type.String(),
  model: Type.String(),
  osVersion: Type.String(),
  appVersion: Type.String(),
  boundAt: Stamp,
  bindMethod: Type.Union([Type.Literal('qr'), Type.Literal('manual'), Type.Literal('fixture')]),
});
export type DeviceRecord = Static<typeof DeviceRecord>;

export const SessionRecord = Type.Object({
  id: Uuid,
  secretHash: Type.String(),
  deviceId: Id,
  userId: Uuid,
  createdAt: Stamp,
  expiresAt: Stamp,
});
export type SessionRecord = Static<typeof SessionRecord>;

export const PushTokenRecord = Type.Object({
  deviceId: Id,
  userId: Uuid,
  token: Type.String(),
  provider: Type.Literal('firebase'),
  registeredAt: Stamp,
});

export const BindLinkRecord = Type.Object({
  id: Type.String(),
  token: Type.String(),
  userId: Uuid,
  singleUse: Type.Boolean(),
  usedAt: Nullable(Stamp),
  createdAt: Stamp,
  expiresAt: Nullable(Stamp),
});

export const TwoFactorChallengeRecord = Type.Object({
  userId: Uuid,
  code: Type.String(),
  createdAt: Stamp,
  expiresAt: Stamp,
});

export const ApiKeyRecord = Type.Object({
  clientId: Type.String(),
  secretHash: Type.String(),
  name: Type.String(),
  createdAt: Stamp,
});

export const PersonalTokenRecord = Type.Object({
  id: Uuid,
  userId: Uuid,
  name: Type.String(),
  secretHash: Type.String(),
  createdAt: Stamp,
  lastUsedAt: Nullable(Stamp),
  revokedAt: Nullable(Stamp),
  expiresAt: Nullable(Stamp),
});
export type PersonalTokenRecord = Static<typeof PersonalTokenRecord>;

/** An employment of a user (a user may hold several; one is main). Shared by the people and admin groups. */
export const EmploymentRecord = Type.Object({
  id: Uuid,
  userId: Uuid,
  departmentId: Uuid,
  position: Type.String(),
  isMain: Type.Boolean(),
  /** 1 working, 2 on leave, 3 fired */
  statusId: Type.Integer({ minimum: 1, maximum: 3 }),
  employmentDate: Day,
  firedDate: Nullable(Day),
  /** the record number in the HR system (origin) */
  originId: Type.String(),
  originOrganizationId: Type.String(),
  organizationName: Type.String(),
  /** share of a full-time position */
  rate: Type.Number({ minimum: 0.1, maximum: 1 }),
  createdAt: Stamp,
});
export type EmploymentRecord = Static<typeof EmploymentRecord>;

export const UserGroupRecord = Type.Object({
  id: Uuid,
  name: Type.String(),
  description: Type.String(),
  /** path below base_url */
  iconUrl: Type.String(),
  /** a human-readable membership rule, e.g. "Department: Sales" */
  conditionsReadable: Type.String(),
  memberIds: Type.Array(Uuid),
});
export type UserGroupRecord = Static<typeof UserGroupRecord>;

export const MeetingPlaceRecord = Type.Object({
  id: Uuid,
  name: Type.String(),
  address: Type.String(),
  capacity: Type.Integer({ minimum: 1 }),
});

export const fileTypes = ['image', 'video', 'document', 'archive', 'other', 'encrypted'] as const;
export const FileType = Type.Union(fileTypes.map((t) => Type.Literal(t)));
export type FileType = Static<typeof FileType>;

/** A user's file. The bytes live in the store (base64) so they persist with --data and travel in snapshots. */
export const FileRecord = Type.Object({
  id: Uuid,
  userId: Uuid,
  name: Type.String(),
  ext: Type.String(),
  mimeType: Type.String(),
  fileType: FileType,
  size: Type.Integer({ minimum: 0 }),
  isPublic: Type.Boolean(),
  /** PREPARED until the bytes arrive and finish-upload is called, then UPLOADED */
  status: Type.Union([Type.Literal('PREPARED'), Type.Literal('UPLOADED')]),
  createdAt: Stamp,
  uploadedAt: Nullable(Stamp),
  /** the bytes (FileBytes) once the store holds them; base64 in JSON, as every snapshot and log has it */
  contentBase64: Nullable(FileContent),
});
export type FileRecord = Static<typeof FileRecord>;
