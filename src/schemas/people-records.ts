// Records the people group keeps in the store (plain TypeBox, no $id): notifications, employment documents and
// the small collections behind the dashboard widgets (courses, surveys, achievements, contests, books).
import { Type, type Static } from '@sinclair/typebox';
import { Day, Nullable, Stamp, Uuid } from './common.js';

export const OrgEmploymentFileTypeIds = [
  'payroll-statement',
  'employment-certificate',
  'income-statement-2ndfl',
  'work-book-copy',
  'vacation-balance',
] as const;
export const OrgEmploymentFileTypeId = Type.Union(OrgEmploymentFileTypeIds.map((t) => Type.Literal(t)));
export type OrgEmploymentFileTypeId = Static<typeof OrgEmploymentFileTypeId>;
export const OrgEmploymentFileStatusIds = ['requested', 'in-progress', 'ready', 'rejected'] as const;
export const OrgEmploymentFileStatusId = Type.Union(OrgEmploymentFileStatusIds.map((t) => Type.Literal(t)));
export type OrgEmploymentFileStatusId = Static<typeof OrgEmploymentFileStatusId>;

export const OrgEmploymentFileRecord = Type.Object({
  id: Uuid,
  userId: Uuid,
  employmentId: Uuid,
  /** number of the request in the HR system */
  customId: Type.String({ maxLength: 64 }),
  typeId: OrgEmploymentFileTypeId,
  /** stored status; `requested` and `in-progress` move on by the clock when read (see domain/org-files.ts) */
  statusId: OrgEmploymentFileStatusId,
  fileId: Uuid,
  dateFrom: Nullable(Day),
  dateTo: Nullable(Day),
  createdAt: Stamp,
  updatedAt: Stamp,
  readyAt: Nullable(Stamp),
});
export type OrgEmploymentFileRecord = Static<typeof OrgEmploymentFileRecord>;

export const NotificationRecord = Type.Object({
  id: Uuid,
  userId: Uuid,
  title: Type.String(),
  body: Type.String(),
  kind: Type.String(),
  /** path below base_url or absolute */
  url: Nullable(Type.String()),
  createdAt: Stamp,
  seenAt: Nullable(Stamp),
});
export type NotificationRecord = Static<typeof NotificationRecord>;

export const LearningCourseRecord = Type.Object({
  id: Uuid,
  title: Type.String(),
  kind: Type.Union([Type.Literal('course'), Type.Literal('test')]),
  assigneeIds: Type.Array(Uuid),
  dueDate: Day,
  createdAt: Stamp,
});
export const SurveyRecord = Type.Object({
  id: Uuid,
  title: Type.String(),
  assigneeIds: Type.Array(Uuid),
  endsAt: Stamp,
  createdAt: Stamp,
});
export const AchievementRecord = Type.Object({ id: Uuid, title: Type.String(), description: Type.String() });
export const AchievementAwardRecord = Type.Object({ id: Uuid, achievementId: Uuid, userId: Uuid, awardedAt: Stamp });
export const ContestRecord = Type.Object({ id: Uuid, title: Type.String(), createdAt: Stamp, endsAt: Stamp });
export const LibraryBookRecord = Type.Object({ id: Uuid, title: Type.String(), author: Type.String(), addedAt: Stamp });
export type AchievementAwardRecord = Static<typeof AchievementAwardRecord>;

/** The people group's collections in TenantData. */
export const PeopleCollections = {
  notifications: Type.Array(NotificationRecord),
  orgEmploymentFiles: Type.Array(OrgEmploymentFileRecord),
  /** user groups that count as "with calendar events" for /user-group/items?only_with_calendar_events=1 */
  calendarUserGroupIds: Type.Array(Uuid),
  learningCourses: Type.Array(LearningCourseRecord),
  surveys: Type.Array(SurveyRecord),
  achievements: Type.Array(AchievementRecord),
  achievementAwards: Type.Array(AchievementAwardRecord),
  contests: Type.Array(ContestRecord),
  libraryBooks: Type.Array(LibraryBookRecord),
};
