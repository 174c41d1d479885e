// The shape of one sandbox's store. Each API group adds its collections to TenantData
// (one spread per group) so a tenant's records all hang off one object.
import { Type, type Static } from '@sinclair/typebox';
import {
  ApiKeyRecord,
  BindLinkRecord,
  DepartmentRecord,
  DeviceRecord,
  EmploymentRecord,
  FileRecord,
  MeetingPlaceRecord,
  PersonalTokenRecord,
  PushTokenRecord,
  SessionRecord,
  TenantRecord,
  TwoFactorChallengeRecord,
  UserGroupRecord,
  UserRecord,
} from './records.js';
import { WorkflowCollections } from './workflow.js';
import { PeopleCollections } from './people-records.js';
import { ContentCollections } from './content.js';
import { CalendarCollections } from './calendar.js';
import { EngageCollections } from './ideas.js';
import { IntegrationCollections } from './integration-records.js';

export const CoreCollections = {
  tenant: TenantRecord,
  departments: Type.Array(DepartmentRecord),
  users: Type.Array(UserRecord),
  devices: Type.Array(DeviceRecord),
  sessions: Type.Array(SessionRecord),
  pushTokens: Type.Array(PushTokenRecord),
  bindLinks: Type.Array(BindLinkRecord),
  twoFactorChallenges: Type.Array(TwoFactorChallengeRecord),
  apiKeys: Type.Array(ApiKeyRecord),
  personalTokens: Type.Array(PersonalTokenRecord),
  // shared by several API groups
  employments: Type.Array(EmploymentRecord),
  userGroups: Type.Array(UserGroupRecord),
  meetingPlaces: Type.Array(MeetingPlaceRecord),
  files: Type.Array(FileRecord),
};

export const TenantData = Type.Object({
  ...CoreCollections,
  ...WorkflowCollections,
  ...PeopleCollections,
  ...ContentCollections,
  ...CalendarCollections,
  ...EngageCollections,
  ...IntegrationCollections,
});
export type TenantData = Static<typeof TenantData>;

export const DataMeta = Type.Object({
  schemaVersion: Type.Literal(1),
  seed: Type.Integer(),
  /** the reference date the seed was generated for */
  refDate: Type.String({ format: 'date-time' }),
  /** counter behind every id and secret the mock mints, so a replay mints the same ones */
  sequence: Type.Integer({ minimum: 0 }),
});

export const Data = Type.Object({
  meta: DataMeta,
  tenants: Type.Record(Type.String(), TenantData),
});
export type Data = Static<typeof Data>;
