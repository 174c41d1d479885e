// API shapes of the people group: users, employments, account statuses, employment documents, lookups,
// notifications, organisation structure and the dashboard.
import { Type, type Static } from '@sinclair/typebox';
import { ActionResult, assumed, Day, Nullable, ref, Stamp, Uuid } from './common.js';
import { DashboardWidget, WidgetKeys } from './dashboard-widget.js';
import { OrgEmploymentFileStatusId, OrgEmploymentFileTypeId } from './people-records.js';

export const DepartmentRef = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    path: Type.String({ description: 'names from the root down, joined by " / "' }),
  },
  { $id: 'DepartmentRef', ...assumed('A department as other records show it.') },
);
export type DepartmentRef = Static<typeof DepartmentRef>;

export const StatusType = Type.Object(
  {
    id: Type.String(),
    name: Type.String({ description: 'localized in the tenant language' }),
  },
  { $id: 'StatusType', ...assumed('An active status of a user (vacation, sick leave …).') },
);
export type StatusType = Static<typeof StatusType>;

export const employmentHrFields = {
  status_id: Type.Integer({ description: '1 working, 2 on leave, 3 fired' }),
  employment_date: Day,
  fired_date: Nullable(Day),
  origin_id: Type.String({ description: 'record number in the HR system' }),
  origin_organization_id: Type.String(),
};

export const FullEmployment = Type.Object(
  {
    id: Uuid,
    user_id: Uuid,
    is_main: Type.Boolean(),
    position: Type.String(),
    department: ref(DepartmentRef),
    ...employmentHrFields,
    organizationName: Type.String(),
    rate: Type.Number({ description: 'share of a full-time position' }),
  },
  { $id: 'FullEmployment', ...assumed('An employment of the current user.') },
);
export type FullEmployment = Static<typeof FullEmployment>;

export const UserProfile = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    firstName: Type.String(),
    lastName: Type.String(),
    middleName: Nullable(Type.String()),
    email: Type.String(),
    phone: Type.String(),
    position: Type.String(),
    department: ref(DepartmentRef),
    isBoss: Type.Boolean(),
    faceUrl: Type.String({ description: 'absolute address of the avatar' }),
    birthday: Day,
    hiredAt: Day,
    statusText: Type.String(),
    activeStatusTypes: Type.Array(ref(StatusType)),
    mainEmployment: Nullable(ref(FullEmployment)),
    url: Type.String({ description: 'absolute address of the profile web page' }),
  },
  { $id: 'UserProfile', ...assumed('Profile of a user.') },
);
export type UserProfile = Static<typeof UserProfile>;

export const ProfileBrief = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    position: Type.String(),
    departmentName: Type.String(),
    faceUrl: Type.String(),
    statusText: Type.String(),
    activeStatusTypes: Type.Array(ref(StatusType)),
  },
  { $id: 'ProfileBrief', ...assumed('Brief information of the current user.') },
);
export type ProfileBrief = Static<typeof ProfileBrief>;

export const LookupItem = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    faceUrl: Type.String(),
  },
  { $id: 'LookupItem' },
);
export type LookupItem = Static<typeof LookupItem>;

export const MeetingPlaceItem = Type.Object({ id: Uuid, name: Type.String() }, { $id: 'MeetingPlaceItem' });

export const UserListItem = Type.Object(
  {
    id: Uuid,
    email: Type.String(),
    name: Type.String(),
    first_name: Type.String(),
    last_name: Type.String(),
    department_id: Uuid,
    departmentName: Type.String(),
    position: Type.String(),
    isBoss: Type.Boolean(),
    reg_status_id: Type.Integer({ description: '1 invited, 2 registered, 3 registration declined' }),
    created_at: Stamp,
    last_login_at: Nullable(Stamp),
    faceUrl: Type.String(),
  },
  { $id: 'UserListItem', ...assumed('A user of the paged user list.') },
);
export type UserListItem = Static<typeof UserListItem>;

export const UserSearchItem = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    position: Type.String(),
    departmentName: Type.String(),
    isBoss: Type.Boolean(),
    faceUrl: Type.String(assumed()),
    department_id: Type.String({ format: 'uuid', ...assumed() }),
  },
  { $id: 'UserSearchItem' },
);
export type UserSearchItem = Static<typeof UserSearchItem>;

export const UserSearchResult = Type.Object(
  { q: Type.String(), users: Type.Array(ref(UserSearchItem)) },
  { $id: 'UserSearchResult' },
);

export const OrgEmploymentFileType = Type.Object(
  { id: OrgEmploymentFileTypeId, name: Type.String() },
  { $id: 'OrgEmploymentFileType', ...assumed('Type of an employment document.') },
);
export const OrgEmploymentFileStatus = Type.Object(
  { id: OrgEmploymentFileStatusId, name: Type.String() },
  { $id: 'OrgEmploymentFileStatus', ...assumed('Status of an employment document.') },
);

export const OrgEmploymentFile = Type.Object(
  {
    id: Uuid,
    custom_id: Type.String(),
    user_id: Uuid,
    org_employment_id: Type.String({ format: 'uuid', description: 'the employment the document is about' }),
    org_employment_origin_id: Type.String({ description: 'record number of the employment in the HR system' }),
    organization_id: Type.String(),
    file_id: Nullable(Type.String({ format: 'uuid', description: 'set once the document is ready' })),
    fileUrl: Nullable(Type.String({ description: 'absolute address of the document page, once ready' })),
    org_employment_file_type_id: OrgEmploymentFileTypeId,
    org_employment_file_status_id: OrgEmploymentFileStatusId,
    orgEmploymentFileType: ref(OrgEmploymentFileType),
    orgEmploymentFileStatus: ref(OrgEmploymentFileStatus),
    date_from: Nullable(Day),
    date_to: Nullable(Day),
    created_at: Stamp,
    updated_at: Stamp,
    ready_at: Nullable(Stamp),
  },
  { $id: 'OrgEmploymentFile', ...assumed('An employment document (payroll statement, certificate …).') },
);
export type OrgEmploymentFile = Static<typeof OrgEmploymentFile>;

export const SetMainResult = ActionResult(
  ref(FullEmployment),
  { $id: 'SetMainResult' },
  Type.Object({ type: Type.String(), text: Type.String() }),
);
export const OrgEmploymentFileRequestResult = ActionResult(ref(OrgEmploymentFile), {
  $id: 'OrgEmploymentFileRequestResult',
  ...assumed('httpJsonResponse: the common action response.'),
});

export const Notification = Type.Object(
  {
    id: Uuid,
    title: Type.String(),
    body: Type.String(),
    kind: Type.String({ description: 'what the notification is about: news, ticket, calendar, birthday, system …' }),
    url: Nullable(Type.String({ description: 'absolute address to open' })),
    isSeen: Type.Boolean(),
    createdAt: Stamp,
  },
  { $id: 'Notification', ...assumed('A push notification delivered to the user.') },
);
export type Notification = Static<typeof Notification>;

export const BadgeResult = Type.Object(
  {
    badge: Type.Integer({ minimum: 0, description: 'unseen notification count' }),
    date: Day,
  },
  { $id: 'BadgeResult' },
);
export type BadgeResult = Static<typeof BadgeResult>;

export const StructureItem = Type.Object(
  {
    type: Type.Union([Type.Literal('department'), Type.Literal('user')]),
    id: Uuid,
    name: Type.String(),
    path: Type.Optional(Type.String(assumed('department nodes'))),
    employmentsCount: Type.Optional(
      Type.Integer({ minimum: 0, description: 'department nodes: employments in it and below' }),
    ),
    empty: Type.Optional(Type.Boolean({ description: 'department nodes: no sub-departments and no people' })),
    isBoss: Type.Optional(Type.Boolean({ description: 'user nodes' })),
    position: Type.Optional(Type.String({ description: 'user nodes' })),
    faceUrl: Type.Optional(Type.String(assumed('user nodes'))),
    departmentName: Type.Optional(Type.String(assumed('user nodes'))),
  },
  { $id: 'StructureItem' },
);
export type StructureItem = Static<typeof StructureItem>;

export const DepartmentTreeNode = Type.Object(
  {
    id: Nullable(Uuid),
    name: Type.String(),
    path: Type.String(),
    items: Type.Array(ref(StructureItem)),
  },
  { $id: 'DepartmentTreeNode' },
);
export type DepartmentTreeNode = Static<typeof DepartmentTreeNode>;
export const DepartmentSearchResult = Type.Object(
  { q: Type.String(), items: Type.Array(ref(StructureItem)) },
  { $id: 'DepartmentSearchResult' },
);

export const DashboardResult = Type.Object(
  {
    profileBrief: Type.Optional(ref(ProfileBrief)),
    notificationsBadge: Type.Integer({ minimum: 0, default: 0 }),
    widgets: Type.Partial(Type.Object(Object.fromEntries(WidgetKeys.map((k) => [k, Nullable(ref(DashboardWidget))])))),
  },
  { $id: 'DashboardResult' },
);
export type DashboardResult = Static<typeof DashboardResult>;

export const peopleSchemas = [
  DepartmentRef,
  StatusType,
  FullEmployment,
  UserProfile,
  ProfileBrief,
  LookupItem,
  MeetingPlaceItem,
  UserListItem,
  UserSearchItem,
  UserSearchResult,
  OrgEmploymentFileType,
  OrgEmploymentFileStatus,
  OrgEmploymentFile,
  SetMainResult,
  OrgEmploymentFileRequestResult,
  Notification,
  BadgeResult,
  StructureItem,
  DepartmentTreeNode,
  DepartmentSearchResult,
  DashboardResult,
];
