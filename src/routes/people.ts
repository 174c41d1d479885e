import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Day, errors, Page, PageQuery, ref, Uuid } from '../schemas/common.js';
import {
  BadgeResult,
  DashboardResult,
  DepartmentSearchResult,
  DepartmentTreeNode,
  FullEmployment,
  LookupItem,
  MeetingPlaceItem,
  Notification,
  OrgEmploymentFile,
  OrgEmploymentFileRequestResult,
  SetMainResult,
  UserListItem,
  UserProfile,
  UserSearchResult,
} from '../schemas/people.js';
import { OrgEmploymentFileStatusId, OrgEmploymentFileTypeId } from '../schemas/people-records.js';
import { IdQuery } from '../schemas/admin-api.js';
import { domainContext } from '../http/context.js';
import { caller } from '../auth/caller.js';
import { callerArgs, listUrl, streamedPast } from './handler.js';
import {
  accountStatusActiveTypes,
  accountStatusText,
  departmentSearch,
  lazyDepartmentTreeNode,
  employmentIndex,
  employmentSetMain,
  meetingPlaceItems,
  statusTypeNames,
  userGroupItems,
  userIndex,
  userItems,
  userProfile,
  userSearch,
} from '../domain/people.js';
import { notificationsMarkSeen, notificationsMarkSeenAll, notificationsPushes } from '../domain/notifications.js';
import { orgEmploymentFileIndex, orgEmploymentFileRequest } from '../domain/org-files.js';
import { dashboard, InfoKeys } from '../domain/dashboard.js';
import { WidgetKeys } from '../schemas/dashboard-widget.js';
import { answerCache, answerKey } from '../http/answer-cache.js';

const session = { auth: 'session' as const };
const text = (maxLength: number) => Type.Optional(Type.String({ maxLength }));
const Q = Type.Optional(
  Type.String({ maxLength: 200, description: 'search text (case-insensitive, every word must match)' }),
);
const Range = (what: string) =>
  Type.Optional(
    Type.String({
      maxLength: 50,
      description: `${what}: range yyyy-MM-dd|yyyy-MM-dd (either side may be empty; a time of day gives 422)`,
    }),
  );

/** The OpenAPI tags of this group, described (src/routes/index.ts puts them in the document's order). */
export const openapiTags = [
  { name: 'user', description: 'Users: profile, lists, search' },
  { name: 'employment', description: 'Employments and employment documents of the current user' },
  { name: 'account', description: 'Status text and active statuses of the current user' },
  { name: 'department', description: 'Organisation structure' },
  { name: 'notifications', description: 'Push notifications and the badge' },
  { name: 'dashboard', description: 'Dashboard widgets' },
  { name: 'lookup', description: 'User groups and meeting places for pickers' },
];

/** Users, employments, account, employment documents, lookups, notifications, structure and the dashboard. */
export const peopleRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const kept = answerCache(app);
  // ---- user
  app.get(
    '/user/profile',
    {
      schema: {
        operationId: 'userProfile',
        tags: ['user'],
        summary: 'Profile of a user',
        description:
          'The public profile of any visible user of the tenant, with department, main ' +
          'employment and statuses. A malformed id is a 400, an unknown or hidden user a 404.',
        querystring: IdQuery,
        response: { 200: ref(UserProfile), ...errors(400, 401, 403, 404, 500) },
      },
      config: session,
    },
    async (req) => userProfile(...callerArgs(req), req.query),
  );

  app.get(
    '/user/items',
    {
      schema: {
        operationId: 'userItems',
        tags: ['user'],
        summary: 'Users for a picker (first 50 matches by name or e-mail)',
        description:
          'Matches `q` against names and e-mails (case-insensitive) and answers at most 50 users, sorted by name.',
        querystring: Type.Object({ q: Q }),
        response: { 200: Type.Object({ data: Type.Array(ref(LookupItem)) }), ...errors(400, 401, 403, 404, 500) },
      },
      config: session,
    },
    async (req) => userItems(...callerArgs(req), req.query),
  );

  app.get(
    '/user/index',
    {
      schema: {
        operationId: 'userIndex',
        tags: ['user'],
        summary: 'Paged user list with filters and sorting',
        description:
          '`per-page` 1 to 20 (default 20; out of range: 400). `sort`: id, email, name, first_name, ' +
          'last_name, position, reg_status_id, created_at, last_login_at with an optional +/- prefix (default ' +
          'name). Text filters match case-insensitively; `id` and `department_id` take comma-separated lists.',
        querystring: Type.Object({
          ...PageQuery,
          sort: text(40),
          id: text(4000),
          email: text(200),
          name: text(200),
          first_name: text(200),
          last_name: text(200),
          department_id: text(4000),
          reg_status_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 3 })),
          group_id: Type.Optional(Uuid),
          position: text(200),
          created_at: Range('creation day'),
          last_login_at: Range('last sign-in day'),
        }),
        response: { 200: Page(ref(UserListItem)), ...errors(400, 401, 403, 422, 500) },
      },
      config: session,
    },
    async (req) => userIndex(...callerArgs(req), req.query, listUrl(req)),
  );

  app.get(
    '/user/search',
    {
      schema: {
        operationId: 'userSearch',
        tags: ['user'],
        summary: 'Search users by name or position',
        description:
          'Needs the right show-structure-names: without it `users` is empty. `limit` default 10, no upper bound.',
        querystring: Type.Object({
          q: Q,
          limit: Type.Optional(Type.Integer({ minimum: 0, default: 10 })),
          offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
        }),
        response: { 200: ref(UserSearchResult), ...errors(400, 401, 403, 500) },
      },
      config: session,
    },
    async (req) => userSearch(...callerArgs(req), req.mock.auth.rights.includes('show-structure-names'), req.query),
  );

  // ---- employment and account
  app.get(
    '/employment/index',
    {
      schema: {
        operationId: 'employmentIndex',
        tags: ['employment'],
        summary: 'Employments of the current user (main first)',
        description: "The caller's employments, main first, paged (per-page default 20, at most 100).",
        querystring: Type.Object({ ...PageQuery }),
        response: { 200: Page(ref(FullEmployment)), ...errors(401, 403, 404, 500) },
      },
      config: session,
    },
    async (req) => employmentIndex(...callerArgs(req), req.query, listUrl(req)),
  );

  app.post(
    '/employment/set-main',
    {
      schema: {
        operationId: 'employmentSetMain',
        tags: ['employment'],
        summary: "Make one of the current user's employments the main one",
        description:
          "Makes one of the caller's employments the main one; the user's department and position follow it. A " +
          'terminated employment answers success false with a message; an employment of another user is a 404.',
        body: Type.Object({ employment_id: Uuid }),
        response: { 200: ref(SetMainResult), ...errors(400, 401, 403, 404, 500) },
      },
      config: session,
    },
    async (req) => employmentSetMain(...callerArgs(req), req.body),
  );

  app.post(
    '/account/status-text',
    {
      schema: {
        operationId: 'accountStatusText',
        tags: ['account'],
        summary: 'Set the status text of the current user',
        description:
          "Sets the free status text shown on the caller's profile (the field is " +
          'named activeTypes in the API description); an empty text clears it.',
        body: Type.Object({
          activeTypes: Type.String({ maxLength: 255, description: 'the status text (empty clears it)' }),
        }),
        response: { 200: Type.Object({ activeTypes: Type.String() }), ...errors(400, 401, 403, 500) },
      },
      config: session,
    },
    async (req) => accountStatusText(...callerArgs(req), req.body),
  );

  app.post(
    '/account/status-active-types',
    {
      schema: {
        operationId: 'accountStatusActiveTypes',
        tags: ['account'],
        summary: 'Set the active statuses of the current user',
        description:
          `Known status types: ${Object.keys(statusTypeNames).join(', ')}. ` +
          'An unknown one is a 400 naming it; an empty list clears them.',
        body: Type.Object({ activeTypes: Type.Array(Type.String({ maxLength: 64 }), { maxItems: 20 }) }),
        response: { 200: Type.Object({ statusTypes: Type.Array(Type.String()) }), ...errors(400, 401, 403, 500) },
      },
      config: session,
    },
    async (req) => accountStatusActiveTypes(...callerArgs(req), req.body),
  );

  // ---- employment documents
  const stampFilter = Type.Optional(
    Type.String({
      anyOf: [{ format: 'date-time' }, { format: 'date' }],
      description: 'an exact date-time, or a day (yyyy-MM-dd)',
    }),
  );
  app.get(
    '/org-employment-file/index',
    {
      schema: {
        operationId: 'orgEmploymentFileIndex',
        tags: ['employment'],
        summary: 'Employment documents of the current user (newest first)',
        description:
          "The caller's employment documents (certificates, payroll statements " +
          '…), newest first, with the filters of the API description; paged.',
        querystring: Type.Object({
          ...PageQuery,
          id: Type.Optional(Uuid),
          created_at: stampFilter,
          updated_at: stampFilter,
          ready_at: stampFilter,
          custom_id: text(64),
          organization_id: text(64),
          org_employment_id: Type.Optional(
            Type.String({ maxLength: 64, description: 'the employment id or its record number (origin id)' }),
          ),
          user_id: Type.Optional(Uuid),
          file_id: Type.Optional(Uuid),
          org_employment_file_type_id: Type.Optional(OrgEmploymentFileTypeId),
          org_employment_file_status_id: Type.Optional(OrgEmploymentFileStatusId),
          date_from: Type.Optional(Day),
          date_to: Type.Optional(Day),
        }),
        response: { 200: Page(ref(OrgEmploymentFile)), ...errors(400, 401, 403, 500) },
      },
      config: session,
    },
    async (req) => orgEmploymentFileIndex(...callerArgs(req), req.query, listUrl(req)),
  );

  app.post(
    '/org-employment-file/request',
    {
      schema: {
        operationId: 'orgEmploymentFileRequest',
        tags: ['employment'],
        summary: 'Request an employment document',
        description:
          'The document starts "requested", is "in-progress" after 1 ' +
          'minute and "ready" after 5 minutes by the sandbox clock.',
        body: Type.Object({
          org_employment_id: Uuid,
          org_employment_file_type_id: OrgEmploymentFileTypeId,
          date_from: Type.Optional(Day),
          date_to: Type.Optional(Day),
        }),
        response: { 200: ref(OrgEmploymentFileRequestResult), ...errors(400, 401, 403, 404, 500) },
      },
      config: session,
    },
    async (req) => orgEmploymentFileRequest(...callerArgs(req), req.body),
  );

  // ---- lookups
  app.get(
    '/user-group/items',
    {
      schema: {
        operationId: 'userGroupItems',
        tags: ['lookup'],
        summary: 'User groups for a picker',
        description:
          'User groups matching `q`; only_with_calendar_events=1 keeps the groups that calendar events are visible to.',
        querystring: Type.Object({
          q: Q,
          only_with_calendar_events: Type.Optional(Type.Integer({ minimum: 0, maximum: 1 })),
        }),
        response: { 200: Type.Object({ data: Type.Array(ref(LookupItem)) }), ...errors(400, 401, 403, 404, 500) },
      },
      config: session,
    },
    async (req, reply) => {
      const groups = userGroupItems(...callerArgs(req), req.query);
      return streamedPast(req, reply, groups.data.length, groups, () => ({ data: groups.data.toJSON() }));
    },
  );

  app.get(
    '/meeting-place/items',
    {
      schema: {
        operationId: 'meetingPlaceItems',
        tags: ['lookup'],
        summary: 'Meeting places for a picker',
        description: 'Meeting places matching `q`, for the place of a calendar event.',
        querystring: Type.Object({ q: Q }),
        response: { 200: Type.Object({ data: Type.Array(ref(MeetingPlaceItem)) }), ...errors(400, 401, 403, 404, 500) },
      },
      config: session,
    },
    async (req, reply) => {
      const places = meetingPlaceItems(...callerArgs(req), req.query);
      return streamedPast(req, reply, places.data.length, places, () => ({ data: places.data.toJSON() }));
    },
  );

  // ---- notifications
  app.get(
    '/notifications/pushes',
    {
      schema: {
        operationId: 'notificationsPushes',
        tags: ['notifications'],
        summary: 'Delivered push notifications, newest first (infinite scroll by page)',
        description:
          "The caller's delivered notifications, newest first; page through them with `page` (per-page default 10).",
        querystring: Type.Object({ ...PageQuery }),
        response: { 200: Page(ref(Notification)), ...errors(400, 401, 403, 500) },
      },
      config: session,
    },
    async (req) => notificationsPushes(...callerArgs(req), req.query, listUrl(req)),
  );

  app.post(
    '/notifications/mark-seen',
    {
      schema: {
        operationId: 'notificationsMarkSeen',
        tags: ['notifications'],
        summary: 'Mark one notification seen; returns the unseen count',
        description:
          "Marks one of the caller's notifications seen and answers the " +
          'new badge (unseen count). An unknown notification is a 404.',
        querystring: Type.Object({ notificationId: Type.String({ minLength: 1, maxLength: 128 }) }),
        response: { 200: ref(BadgeResult), ...errors(400, 401, 403, 404, 500) },
      },
      config: session,
    },
    async (req) => notificationsMarkSeen(...callerArgs(req), req.query),
  );

  app.post(
    '/notifications/mark-seen-all',
    {
      schema: {
        operationId: 'notificationsMarkSeenAll',
        tags: ['notifications'],
        summary: 'Mark every notification seen',
        description: "Marks all of the caller's notifications seen; the badge becomes 0.",
        response: { 200: ref(BadgeResult), ...errors(400, 401, 403, 500) },
      },
      config: session,
    },
    async (req) => notificationsMarkSeenAll(...callerArgs(req)),
  );

  // ---- structure
  app.get(
    '/department/tree-node',
    {
      schema: {
        operationId: 'departmentTreeNode',
        tags: ['department'],
        summary: 'A department with its sub-departments and people (the root without id)',
        description:
          'One level of the organisation tree: the department with its sub-departments and its people ' +
          '(bosses first). Without id the root; a malformed id is a 400, an unknown one a 404.',
        querystring: Type.Object({ id: Type.Optional(Uuid) }),
        response: { 200: ref(DepartmentTreeNode), ...errors(400, 401, 403, 404, 500) },
      },
      config: session,
    },
    async (req, reply) => {
      const node = lazyDepartmentTreeNode(...callerArgs(req), req.query);
      return streamedPast(req, reply, node.items.length, node, () => ({ ...node, items: node.items.toJSON() }));
    },
  );

  app.get(
    '/department/search',
    {
      schema: {
        operationId: 'departmentSearch',
        tags: ['department'],
        summary: 'Search departments (first 20) and people (first 50)',
        description:
          'Searches department names (first 20) and people by name ' +
          'or position (first 50); answers both as structure items.',
        querystring: Type.Object({ q: Q }),
        response: { 200: ref(DepartmentSearchResult), ...errors(400, 401, 403, 500) },
      },
      config: session,
    },
    async (req) => departmentSearch(...callerArgs(req), req.query),
  );

  // ---- dashboard
  app.get(
    '/dashboard',
    {
      schema: {
        operationId: 'dashboard',
        tags: ['dashboard'],
        summary: 'Dashboard: widgets and brief info of the current user',
        description:
          `widgets: comma-separated of ${WidgetKeys.join(', ')}. info: comma-separated ` +
          `of ${InfoKeys.join(', ')}. Unknown keys: 400. An unavailable widget is null.`,
        querystring: Type.Object({ widgets: text(500), info: text(200) }),
        response: { 200: ref(DashboardResult), ...errors(400, 401, 403, 500) },
      },
      config: session,
    },
    (req, reply) => {
      const { tenant, user } = caller(req);
      // kept per data version and second: 13 widgets from a dozen collections, ~20 KB (see src/http/answer-cache.ts)
      kept(req, reply, answerKey(req, tenant.tenant.id, user.id), (now) =>
        dashboard(domainContext(req, now), tenant, user, req.query),
      );
    },
  );
};
