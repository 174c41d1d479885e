// Valid input for every operation of the document, as a signed-in demo account (ivan.petrov: every right).
// Each entry prepares what it needs through the API itself and returns the request to check.
import type { FastifyInstance, InjectOptions } from 'fastify';
import { accounts, signIn, tenants, type Session } from '../helper.js';
import { waitFor } from './wait.js';
import { storedRecords } from '../../src/schemas/stored-records.js';

export type Ctx = {
  app: FastifyInstance;
  sandbox: string;
  s: Session;
  sb: Record<string, string>;
  /** the Ромашка data of the sandbox */
  t: any;
  apiKey: Record<string, string>;
};
export type Valid = (ctx: Ctx) => Promise<InjectOptions> | InjectOptions;

const uuidLike = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

async function call(ctx: Ctx, opts: InjectOptions): Promise<any> {
  const res = await ctx.app.inject({ ...opts, headers: { ...ctx.s.headers, ...(opts.headers as object) } });
  if (res.statusCode >= 300)
    throw new Error(`setup ${opts.method ?? 'GET'} ${opts.url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
  return res.headers['content-type']?.toString().includes('json') ? res.json() : res.body;
}

/** prepare → PUT bytes → finish: an uploaded file of the admin */
export async function uploadFile(
  ctx: Ctx,
  name: string,
  bytes: string | Buffer,
): Promise<{ id: string; downloadUrl?: string }> {
  const p = await call(ctx, { method: 'POST', url: '/file/prepare-upload', payload: { name, is_public: false } });
  const up = new URL(p.uploadUrl);
  await call(ctx, {
    method: 'PUT',
    url: up.pathname.replace(/^\/sandbox\/[^/]+/, '') + up.search,
    payload: bytes,
    headers: { 'content-type': 'application/octet-stream' },
  });
  return call(ctx, { method: 'POST', url: `/file/finish-upload?id=${p.id}` });
}

const session =
  (o: InjectOptions): Valid =>
  () =>
    o;
const admin =
  (o: InjectOptions): Valid =>
  (ctx) => ({
    ...o,
    headers: { ...ctx.sb, ...(o.headers as object) },
    url: `${String(o.url)}${String(o.url).includes('?') ? '&' : '?'}sandbox=${ctx.sandbox}`,
  });

/** A call to the sandbox's WireMock admin API (docs/wiremock.md, "The admin API"). */
const wiremock = (o: InjectOptions): Valid => admin({ ...o, url: `/wiremock/__admin${String(o.url)}` });
const wmMapping = (ctx: Ctx, extra: Record<string, unknown> = {}) =>
  call(ctx, {
    method: 'POST',
    url: `/wiremock/__admin/mappings?sandbox=${ctx.sandbox}`,
    headers: ctx.sb,
    payload: { id: uuidLike(55), request: { url: '/wm' }, response: { body: 'x' }, metadata: { k: 'v' }, ...extra },
  });

/** A mapping, a request it served and one nothing answers; the served one's WireMock request id. */
const wmServed = async (ctx: Ctx): Promise<string> => {
  await wmMapping(ctx);
  await call(ctx, { url: '/wm', headers: ctx.sb });
  await ctx.app.inject({ url: '/wm-nothing-here', headers: { ...ctx.s.headers, ...ctx.sb } });
  const list = await call(ctx, await wiremock({ url: '/requests' })(ctx));
  return list.requests.find((e: { wasMatched: boolean }) => e.wasMatched).id;
};

export const validInputs: Record<string, Valid> = {
  wiremockMappingsList: wiremock({ url: '/mappings?limit=10&offset=0' }),
  wiremockMappingCreate: wiremock({ method: 'POST', url: '/mappings', payload: { request: { url: '/a' } } }),
  wiremockMappingsDelete: wiremock({ method: 'DELETE', url: '/mappings' }),
  wiremockMappingGet: async (ctx) => {
    await wmMapping(ctx);
    return wiremock({ url: `/mappings/${uuidLike(55)}` })(ctx);
  },
  wiremockMappingUpdate: async (ctx) => {
    await wmMapping(ctx);
    return wiremock({ method: 'PUT', url: `/mappings/${uuidLike(55)}`, payload: { request: { url: '/b' } } })(ctx);
  },
  wiremockMappingDelete: async (ctx) => {
    await wmMapping(ctx);
    return wiremock({ method: 'DELETE', url: `/mappings/${uuidLike(55)}` })(ctx);
  },
  wiremockMappingsImport: wiremock({
    method: 'POST',
    url: '/mappings/import',
    payload: { mappings: [{ request: { url: '/i' } }], importOptions: { duplicatePolicy: 'IGNORE' } },
  }),
  wiremockMappingsReset: wiremock({ method: 'POST', url: '/mappings/reset' }),
  wiremockMappingsSave: wiremock({ method: 'POST', url: '/mappings/save' }),
  wiremockMappingsFindByMetadata: async (ctx) => {
    await wmMapping(ctx);
    return wiremock({ method: 'POST', url: '/mappings/find-by-metadata', payload: { matchesJsonPath: '$.k' } })(ctx);
  },
  wiremockMappingsRemoveByMetadata: async (ctx) => {
    await wmMapping(ctx);
    return wiremock({ method: 'POST', url: '/mappings/remove-by-metadata', payload: { matchesJsonPath: '$.k' } })(ctx);
  },
  wiremockMappingsUnmatched: async (ctx) => {
    await wmMapping(ctx);
    return wiremock({ url: '/mappings/unmatched' })(ctx);
  },
  wiremockMappingsUnmatchedDelete: async (ctx) => {
    await wmMapping(ctx);
    return wiremock({ method: 'DELETE', url: '/mappings/unmatched' })(ctx);
  },
  wiremockRequests: async (ctx) => {
    await wmServed(ctx);
    return wiremock({ url: '/requests?limit=10' })(ctx);
  },
  wiremockRequestsClear: wiremock({ method: 'DELETE', url: '/requests' }),
  wiremockRequest: async (ctx) => wiremock({ url: `/requests/${await wmServed(ctx)}` })(ctx),
  wiremockRequestDelete: async (ctx) => wiremock({ method: 'DELETE', url: `/requests/${await wmServed(ctx)}` })(ctx),
  wiremockRequestsFind: async (ctx) => {
    await wmServed(ctx);
    return wiremock({ method: 'POST', url: '/requests/find', payload: { urlPath: '/wm', method: 'GET' } })(ctx);
  },
  wiremockRequestsCount: async (ctx) => {
    await wmServed(ctx);
    return wiremock({ method: 'POST', url: '/requests/count', payload: { urlPath: '/wm', method: 'GET' } })(ctx);
  },
  wiremockRequestsRemove: async (ctx) => {
    await wmServed(ctx);
    return wiremock({ method: 'POST', url: '/requests/remove', payload: { urlPath: '/wm', method: 'GET' } })(ctx);
  },
  wiremockRequestsRemoveByMetadata: async (ctx) => {
    await wmServed(ctx);
    return wiremock({ method: 'POST', url: '/requests/remove-by-metadata', payload: { matchesJsonPath: '$.k' } })(ctx);
  },
  wiremockRequestsUnmatched: async (ctx) => {
    await wmServed(ctx);
    return wiremock({ url: '/requests/unmatched' })(ctx);
  },
  wiremockRequestsUnmatchedNearMisses: async (ctx) => {
    await wmServed(ctx);
    return wiremock({ url: '/requests/unmatched/near-misses' })(ctx);
  },
  wiremockNearMissesRequest: async (ctx) => {
    await wmMapping(ctx);
    return wiremock({ method: 'POST', url: '/near-misses/request', payload: { url: '/wn', method: 'GET' } })(ctx);
  },
  wiremockNearMissesRequestPattern: wiremock({
    method: 'POST',
    url: '/near-misses/request-pattern',
    payload: { urlPath: '/me', method: 'GET' },
  }),
  wiremockScenariosList: async (ctx) => {
    await wmMapping(ctx, { scenarioName: 'flow', newScenarioState: 'two' });
    return wiremock({ url: '/scenarios' })(ctx);
  },
  wiremockScenariosReset: wiremock({ method: 'POST', url: '/scenarios/reset' }),
  wiremockScenarioSetState: async (ctx) => {
    await wmMapping(ctx, { scenarioName: 'flow', newScenarioState: 'two' });
    return wiremock({ method: 'PUT', url: '/scenarios/flow/state', payload: { state: 'two' } })(ctx);
  },
  wiremockReset: wiremock({ method: 'POST', url: '/reset' }),
  wiremockSettingsGet: wiremock({ url: '/settings' }),
  wiremockSettingsPost: wiremock({ method: 'POST', url: '/settings', payload: { settings: {} } }),
  wiremockSettingsPut: wiremock({ method: 'PUT', url: '/settings', payload: {} }),
  wiremockHealth: wiremock({ url: '/health' }),
  wiremockVersion: wiremock({ url: '/version' }),
  wiremockRecordingStatus: wiremock({ url: '/recordings/status' }),
  mobileBind: (ctx) => ({
    method: 'POST',
    url: '/mobile/bind/bind-ivan/qr-token-ivan-0001',
    headers: ctx.sb,
    payload: { device: { id: 'qr-device-1', platform: 'ios' } },
  }),
  mobileRequestTwoFactor: (ctx) => ({
    method: 'POST',
    url: '/mobile/request-two-factor',
    headers: ctx.sb,
    payload: { email: accounts.admin.email, password: 'demo1234' },
  }),
  mobileManualBind: (ctx) => ({
    method: 'POST',
    url: '/mobile/manual-bind',
    headers: ctx.sb,
    payload: { email: accounts.admin.email, password: 'demo1234', device: { id: 'manual-1', platform: 'android' } },
  }),
  mobileAuth: async (ctx) => {
    const bind = (
      await ctx.app.inject({
        method: 'POST',
        url: '/mobile/manual-bind',
        headers: ctx.sb,
        payload: { email: accounts.admin.email, password: 'demo1234', device: { id: 'auth-1' } },
      })
    ).json();
    const a = bind.accountSecret;
    return {
      method: 'POST',
      url: '/mobile/auth',
      headers: { ...ctx.sb, 'x-service-tenant-id': a.tenantId },
      payload: { secret: a.secret, userId: a.userId, deviceId: a.deviceId },
    };
  },
  mobileSavePushToken: (ctx) => ({
    method: 'POST',
    url: '/mobile/save-push-token',
    payload: { token: 'push-token-1', deviceId: ctx.s.deviceId },
  }),
  mobileUnbind: (ctx) => ({ method: 'POST', url: `/mobile/unbind?deviceId=${ctx.s.deviceId}` }),
  mobileTenantInfo: session({ method: 'GET', url: '/mobile/tenant-info' }),
  mobileOauthList: (ctx) => ({
    method: 'GET',
    url: '/mobile/oauth-list',
    headers: { ...ctx.sb, 'x-service-tenant-id': tenants.romashka },
  }),
  workflowCatalog: session({ url: '/workflow/catalog' }),
  workflowStartForm: (ctx) => ({ url: `/workflow/start/${ctx.t.wfProcesses[0].id}` }),
  workflowStart: (ctx) => ({
    method: 'POST',
    url: `/workflow/start/${ctx.t.wfProcesses[0].id}`,
    payload: { fieldValues: fieldValues(ctx.t.wfProcesses[0].fields) },
  }),
  workflowTicketIndex: (ctx) => ({ url: '/workflow-ticket/?per-page=5', headers: ctx.apiKey }),
  workflowTicketView: (ctx) => ({
    url: `/workflow-ticket/view?id=${ctx.t.wfTickets.find((x: any) => x.userId === accounts.admin.userId).id}`,
  }),
  userProfile: session({ url: `/user/profile?id=${accounts.noRights.userId}` }),
  userItems: session({ url: '/user/items?q=Ив' }),
  userIndex: session({ url: '/user/index?per-page=3&sort=-created_at' }),
  userSearch: session({ url: '/user/search?q=Ив&limit=5' }),
  employmentIndex: session({ url: '/employment/index' }),
  employmentSetMain: (ctx) => ({
    method: 'POST',
    url: '/employment/set-main',
    payload: { employment_id: ctx.t.employments.find((e: any) => e.userId === accounts.admin.userId).id },
  }),
  accountStatusText: session({
    method: 'POST',
    url: '/account/status-text',
    payload: { activeTypes: 'В отпуске до пятницы' },
  }),
  accountStatusActiveTypes: session({
    method: 'POST',
    url: '/account/status-active-types',
    payload: { activeTypes: [] },
  }),
  orgEmploymentFileIndex: session({ url: '/org-employment-file/index?per-page=5' }),
  orgEmploymentFileRequest: (ctx) => ({
    method: 'POST',
    url: '/org-employment-file/request',
    payload: {
      org_employment_id: ctx.t.employments.find((e: any) => e.userId === accounts.admin.userId).id,
      org_employment_file_type_id: 'employment-certificate',
    },
  }),
  userGroupItems: session({ url: '/user-group/items' }),
  meetingPlaceItems: session({ url: '/meeting-place/items' }),
  notificationsPushes: session({ url: '/notifications/pushes?per-page=5' }),
  notificationsMarkSeen: (ctx) => ({
    method: 'POST',
    url: `/notifications/mark-seen?notificationId=${ctx.t.notifications.find((n: any) => n.userId === accounts.admin.userId).id}`,
  }),
  notificationsMarkSeenAll: session({ method: 'POST', url: '/notifications/mark-seen-all' }),
  departmentTreeNode: session({ url: '/department/tree-node' }),
  departmentSearch: session({ url: '/department/search?q=о' }),
  dashboard: session({ url: '/dashboard' }),
  postcardUserView: (ctx) => ({
    url: `/postcard/user-view?id=${ctx.t.postcards.find((p: any) => p.recipientId === accounts.admin.userId).id}`,
  }),
  articleNews: session({ url: '/article/news?per-page=3' }),
  articleCategory: session({ url: '/article/category' }),
  calendarEventList: session({ url: '/calendar-event' }),
  calendarEventMy: session({ url: '/calendar-event/my' }),
  calendarEventItems: session({ url: '/calendar-event/items' }),
  calendarEventView: (ctx) => ({ url: `/calendar-event/view?id=${ctx.t.calendarEvents[0].id}` }),
  calendarList: session({ url: '/calendar' }),
  calendarMy: session({ url: '/calendar/my' }),
  calendarItems: session({ url: '/calendar/items' }),
  calendarView: (ctx) => ({ url: `/calendar/view?id=${ctx.t.calendarEvents[0].id}` }),
  calendarEventTypeList: session({ url: '/calendar-event-type' }),
  calendarEventRequestCreate: (ctx) => ({
    method: 'POST',
    url: '/calendar-event-request',
    payload: { calendar_event_id: bidEvent(ctx).id },
  }),
  calendarEventRequestCancel: async (ctx) => {
    const bid = await call(ctx, {
      method: 'POST',
      url: '/calendar-event-request',
      payload: { calendar_event_id: bidEvent(ctx).id },
    });
    if (!bid.data) throw new Error(`calendar request refused: ${JSON.stringify(bid)}`);
    return { method: 'POST', url: '/calendar-event-request/cancel', payload: { id: bid.data.id } };
  },
  feedbackAdd: session({
    method: 'POST',
    url: '/feedback/add',
    payload: { type: 'user', id: accounts.noRights.userId, score: 5, text: 'Спасибо!' },
  }),
  feedbackView: async (ctx) => {
    const fb = await call(ctx, {
      method: 'POST',
      url: '/feedback/add',
      payload: { type: 'user', id: accounts.noRights.userId, score: 4, text: 'ok' },
    });
    return { url: `/feedback/view?id=${fb.feedback.id}` };
  },
  moderationIndex: session({ url: '/moderation' }),
  moderationAccept: (ctx) => ({
    method: 'POST',
    url: '/moderation/accept',
    payload: { ids: [pendingModeration(ctx)] },
  }),
  moderationReject: (ctx) => ({ method: 'POST', url: '/moderation/reject', payload: [pendingModeration(ctx)] }),
  ideaStatuses: session({ url: '/idea/statuses' }),
  ideaPurposes: session({ url: '/idea/purposes' }),
  ideaIndex: session({ url: '/idea/index?per-page=5' }),
  ideaView: (ctx) => ({ url: `/idea/view?id=${ctx.t.ideas[0].id}` }),
  ideaEdit: session({
    method: 'POST',
    url: '/idea/edit',
    payload: { title: 'Новая идея', description: 'Описание', idea_purpose_id: 1 },
  }),
  ideaVote: (ctx) => ({
    method: 'POST',
    url: `/idea/vote?id=${ctx.t.ideas.find((i: any) => i.authorId !== accounts.admin.userId && i.status !== 'moderation')?.id ?? ctx.t.ideas[1].id}`,
  }),
  ideaParticipate: (ctx) => ({ method: 'POST', url: `/idea/participate?id=${ctx.t.ideas[1].id}` }),
  fileIndex: session({ url: '/file/index?per-page=5' }),
  fileCount: session({ url: '/file/count' }),
  filePrepareUpload: session({
    method: 'POST',
    url: '/file/prepare-upload',
    payload: { name: 'notes.txt', size: 5, is_public: false },
  }),
  fileFinishUpload: async (ctx) => {
    const p = await call(ctx, {
      method: 'POST',
      url: '/file/prepare-upload',
      payload: { name: 'a.txt', is_public: true },
    });
    const up = new URL(p.uploadUrl);
    await call(ctx, {
      method: 'PUT',
      url: up.pathname.replace(/^\/sandbox\/[^/]+/, '') + up.search,
      payload: 'hello',
      headers: { 'content-type': 'text/plain' },
    });
    return { method: 'POST', url: `/file/finish-upload?id=${p.id}` };
  },
  fileDownload: async (ctx) => {
    await uploadFile(ctx, 'd.txt', 'download me');
    const list = await call(ctx, { url: '/file/index?per-page=1&sort=-created_at' });
    const item = (list.items ?? list.data ?? list)[0];
    const u = new URL(item.url ?? item.downloadUrl);
    return { url: u.pathname.replace(/^\/sandbox\/[^/]+/, '') + u.search, headers: ctx.sb };
  },
  fileUpload: async (ctx) => {
    const p = await call(ctx, {
      method: 'POST',
      url: '/file/prepare-upload',
      payload: { name: 'b.txt', is_public: false },
    });
    const up = new URL(p.uploadUrl);
    return {
      method: 'PUT',
      url: up.pathname.replace(/^\/sandbox\/[^/]+/, '') + up.search,
      payload: 'bytes',
      headers: { ...ctx.sb, 'content-type': 'application/octet-stream' },
    };
  },
  userApiTokenIndex: session({ url: '/user-api-token' }),
  userApiTokenCreate: session({ method: 'POST', url: '/user-api-token/create', payload: { name: 'ci' } }),
  userApiTokenRevoke: async (ctx) => ({
    method: 'POST',
    url: '/user-api-token/revoke',
    payload: { id: (await newToken(ctx)).id },
  }),
  adminUserApiTokenIndex: async (ctx) => {
    await newToken(ctx);
    return { url: '/admin/user-api-token' };
  },
  // a personal token as Bearer, on an operation that accepts one
  ...{},
  adminUserApiTokenRevoke: async (ctx) => ({
    method: 'POST',
    url: '/admin/user-api-token/revoke',
    payload: { id: (await newToken(ctx)).id },
  }),
  userListCacheSet: session({
    method: 'POST',
    url: '/user-list-cache/set-user-list',
    payload: { key: 'sel', userList: { usersId: [accounts.noRights.userId] } },
  }),
  userListCacheData: async (ctx) => {
    await call(ctx, {
      method: 'POST',
      url: '/user-list-cache/set-user-list',
      payload: { key: 'sel2', userList: { usersId: [accounts.noRights.userId] } },
    });
    return { url: '/user-list-cache/user-list-data?key=sel2' };
  },
  adminWalletIndex: session({ url: '/admin/wallet?per-page=3' }),
  adminWalletView: (ctx) => ({ url: `/admin/wallet/view?id=${ctx.t.wallets[0].id}` }),
  adminWalletExportExcel: session({ method: 'POST', url: '/admin/wallet/export-excel?per-page=3' }),
  adminWalletTransactionIndex: session({ url: '/admin/wallet-transaction?per-page=3' }),
  adminWalletTransactionView: (ctx) => ({ url: `/admin/wallet-transaction/view?id=${ctx.t.walletTransactions[0].id}` }),
  adminWalletTransactionCreate: async (ctx) => {
    await call(ctx, {
      method: 'POST',
      url: '/user-list-cache/set-user-list',
      payload: { key: 'pay', userList: { usersId: [accounts.noRights.userId] } },
    });
    return {
      method: 'POST',
      url: '/admin/wallet-transaction/create',
      payload: { usersListKey: 'pay', amount: 10, operation_type_id: 1, comment: 'bonus' },
    };
  },
  adminWalletTransactionExportExcel: session({
    method: 'POST',
    url: '/admin/wallet-transaction/export-excel?per-page=3',
  }),
  adminWalletTransactionExcelProcessing: async (ctx) => ({
    method: 'POST',
    url: '/admin/wallet-transaction/excel-processing',
    payload: await excelBody(ctx),
  }),
  adminWalletTransactionCreateFromExcel: async (ctx) => ({
    method: 'POST',
    url: '/admin/wallet-transaction/create-from-excel',
    payload: { file_processing_id: (await processed(ctx)).id, operation_type_id: 1, comment: 'x' },
  }),
  fileProcessingIndex: session({ url: '/file-processing' }),
  fileProcessingView: async (ctx) => ({ url: `/file-processing/view?id=${(await processed(ctx)).id}` }),
  adminEmploymentIndex: session({ url: '/admin/employment?per-page=3' }),
  adminEmploymentView: (ctx) => ({ url: `/admin/employment/view?id=${ctx.t.employments[0].id}` }),
  mockScenarios: admin({ url: '/__admin/scenarios' }),
  mockScenarioGet: admin({ url: '/__admin/scenario' }),
  mockScenarioSet: admin({ method: 'PUT', url: '/__admin/scenario', payload: { name: 'hold-tickets' } }),
  mockSandboxes: admin({ url: '/__admin/sandboxes' }),
  mockDataCollections: admin({ url: '/__admin/data/collections' }),
  mockDataChanges: (ctx) => ({ url: `/__admin/data/changes?sandbox=${ctx.sandbox}&collections=users,sessions` }),
  mockScenarioSchema: admin({ url: '/__admin/scenario.schema.json' }),
  mockScenarioView: admin({ url: '/__admin/scenarios/hold-tickets' }),
  // replaces a definition it makes first, so the answer is the same 200 however often it runs
  mockScenarioDefine: async (ctx) => {
    const name = `${ctx.sandbox.toLowerCase()}-busy`; // scenario names are lower case
    const url = `/__admin/scenarios/${name}`;
    const payload = {
      name,
      description: 'the next two ticket lists answer 503',
      stubs: [{ operationId: 'workflowTicketIndex', status: 503, times: 2 }],
    };
    await call(ctx, { method: 'PUT', url, payload });
    return { method: 'PUT', url, payload };
  },
  // deletes only a definition it makes for itself
  mockScenarioDelete: async (ctx) => {
    const name = `${ctx.sandbox.toLowerCase()}-gone`;
    const url = `/__admin/scenarios/${name}`;
    await call(ctx, { method: 'PUT', url, payload: { name, description: 'to delete' } });
    return { method: 'DELETE', url };
  },
  mockSandboxGet: (ctx) => ({ url: `/__admin/sandboxes/${ctx.sandbox}` }),
  mockSandboxCapture: (ctx) => ({ url: `/__admin/sandboxes/${ctx.sandbox}/capture` }),
  // deletes only the sandbox made for this check
  mockSandboxDelete: (ctx) => ({ method: 'DELETE', url: `/__admin/sandboxes/${ctx.sandbox}` }),
  // the sandbox made for this check exists: 200, nothing changes
  mockSandboxCreate: (ctx) => ({
    method: 'PUT',
    url: `/__admin/sandboxes/${ctx.sandbox}?sandbox=${ctx.sandbox}`,
    payload: { scenario: 'default' },
  }),
  // deletes only a sandbox it makes for itself (the check's own sandbox and others stay)
  mockSandboxesDelete: async (ctx) => {
    const gone = `${ctx.sandbox}-gone`;
    await call(ctx, { method: 'PUT', url: `/__admin/sandboxes/${gone}`, headers: { 'x-mock-sandbox': gone } });
    return { method: 'DELETE', url: `/__admin/sandboxes?prefix=${gone}` };
  },
  mockReset: admin({ method: 'POST', url: '/__admin/reset', payload: {} }),
  // only the check's own sandbox (its name is the prefix)
  mockSandboxesReset: (ctx) => ({ method: 'POST', url: `/__admin/sandboxes/reset?prefix=${ctx.sandbox}` }),
  mockStateExport: admin({ url: '/__admin/state' }),
  mockStateImport: async (ctx) => {
    const state = (await ctx.app.inject({ url: `/__admin/state?sandbox=${ctx.sandbox}` })).json();
    return { method: 'PUT', url: `/__admin/state?sandbox=${ctx.sandbox}`, payload: state };
  },
  mockRequests: admin({ url: '/__admin/requests?limit=5' }),
  mockRequestsClear: admin({ method: 'DELETE', url: '/__admin/requests' }),
  mockRequestsCount: admin({ url: '/__admin/requests/count' }),
  mockFindings: admin({ url: '/__admin/findings?severity=error' }),
  mockFindingsClear: admin({ method: 'DELETE', url: '/__admin/findings' }),
  mockOutbox: admin({ url: '/__admin/outbox' }),
  mockClockGet: admin({ url: '/__admin/clock' }),
  mockClockSet: admin({ method: 'PUT', url: '/__admin/clock', payload: { advanceMs: 1000 } }),
  mockSessionsExpire: admin({ method: 'POST', url: '/__admin/sessions/expire', payload: {} }),
  mockBindLinkCreate: admin({
    method: 'POST',
    url: '/__admin/bind-links',
    payload: { email: accounts.noRights.email },
  }),
  mockNotificationCreate: admin({
    method: 'POST',
    url: '/__admin/notifications',
    payload: { email: accounts.admin.email, title: 'Hi', body: 'there' },
  }),
  mockUserBlock: admin({ method: 'POST', url: '/__admin/users/block', payload: { email: accounts.noRights.email } }),
  mockConsole: admin({ url: '/__admin' }),
  mockOpenApi: admin({ url: '/__admin/openapi.json' }),
  mockRoot: () => ({ url: '/', headers: { accept: 'application/json' } }),
  mockHealth: admin({ url: '/__admin/health' }),
  mockFixtures: admin({ url: '/__admin/fixtures' }),
  mockBindLinkQr: async (ctx) => {
    const link = (
      await ctx.app.inject({
        method: 'POST',
        url: `/__admin/bind-links?sandbox=${ctx.sandbox}`,
        payload: { email: accounts.noRights.email },
      })
    ).json();
    return { url: `/__admin/bind-links/${link.id}/qr.svg?sandbox=${ctx.sandbox}` };
  },
  // web pages and images (issue 13): session headers for pages; images are public
  pagesWorkflowTicket: (ctx) => ({
    url: `/pages/workflow-ticket/${ctx.t.wfTickets.find((x: any) => x.userId === accounts.admin.userId).id}`,
  }),
  pagesWorkflow: (ctx) => ({ url: `/pages/workflow/${ctx.t.wfProcesses[0].id}` }),
  pagesArticle: session({ url: '/pages/article/latest' }),
  pagesUser: session({ url: `/pages/user/${accounts.noRights.userId}` }),
  pagesIdea: (ctx) => ({ url: `/pages/idea/${ctx.t.ideas.find((x: any) => x.authorId === accounts.admin.userId).id}` }),
  pagesCalendarEvent: (ctx) => ({
    url: `/pages/calendar-event/${ctx.t.calendarEvents.find((e: any) => e.visibleToGroupIds.length === 0 && !e.recurrence).id}`,
  }),
  pagesOrgEmploymentFile: (ctx) => ({
    url: `/pages/org-employment-file/${ctx.t.orgEmploymentFiles.find((f: any) => f.userId === accounts.admin.userId && f.statusId === 'ready').id}`,
  }),
  pagesCourse: (ctx) => ({
    url: `/pages/course/${ctx.t.learningCourses.find((c: any) => c.assigneeIds.includes(accounts.admin.userId)).id}`,
  }),
  pagesSurvey: (ctx) => ({
    url: `/pages/survey/${ctx.t.surveys.find((c: any) => c.assigneeIds.includes(accounts.admin.userId)).id}`,
  }),
  pagesAchievement: (ctx) => ({ url: `/pages/achievement/${ctx.t.achievements[0].id}` }),
  pagesContest: (ctx) => ({ url: `/pages/contest/${ctx.t.contests[0].id}` }),
  pagesBook: (ctx) => ({ url: `/pages/book/${ctx.t.libraryBooks[0].id}` }),
  imageAvatar: (ctx) => ({ url: `/images/avatar/${accounts.admin.userId}.svg`, headers: ctx.sb }),
  imageTenant: (ctx) => ({ url: `/images/tenant/${tenants.romashka}.svg`, headers: ctx.sb }),
  imageUserGroup: (ctx) => ({ url: `/images/user-group/${ctx.t.userGroups[0].id}.svg`, headers: ctx.sb }),
  imageWorkflow: (ctx) => ({ url: `/images/workflow/${ctx.t.wfProcesses[0].id}.svg`, headers: ctx.sb }),
  imageWorkflowCategory: (ctx) => ({
    url: `/images/workflow-category/${ctx.t.wfCategories[0].id}.svg`,
    headers: ctx.sb,
  }),
  imageArticle: (ctx) => ({ url: `/images/article/${ctx.t.articles[0].id}.svg`, headers: ctx.sb }),
  imagePostcard: (ctx) => ({ url: `/images/postcard/${ctx.t.postcards[0].id}.svg`, headers: ctx.sb }),
  imageCourse: (ctx) => ({ url: `/images/course/${ctx.t.learningCourses[0].id}.svg`, headers: ctx.sb }),
  imageAchievement: (ctx) => ({ url: `/images/achievement/${ctx.t.achievements[0].id}.svg`, headers: ctx.sb }),
  imageContest: (ctx) => ({ url: `/images/contest/${ctx.t.contests[0].id}.svg`, headers: ctx.sb }),
  imageBook: (ctx) => ({ url: `/images/book/${ctx.t.libraryBooks[0].id}.svg`, headers: ctx.sb }),
  // HTTPS, pass-through and recording (issues 11, 12); the contract test starts the app with a CA certificate
  mockCaCertificate: admin({ url: '/__admin/ca.pem' }),
  mockProxyGet: admin({ url: '/__admin/proxy' }),
  mockProxySet: admin({ method: 'PUT', url: '/__admin/proxy', payload: { url: 'http://127.0.0.1:9/portal' } }),
  mockProxyReset: admin({ method: 'DELETE', url: '/__admin/proxy' }),
  mockRecordingGet: admin({ url: '/__admin/recording' }),
  mockRecordingSet: admin({ method: 'POST', url: '/__admin/recording', payload: { action: 'stop' } }),
  mockCompareReport: admin({ url: '/__admin/compare' }),
  mockCompareClear: admin({ method: 'DELETE', url: '/__admin/compare' }),
  // a 2025-era MCP client's tools/list (stateless: no initialize needed first); the answer is one JSON body
  mockMcp: admin({
    method: 'POST',
    url: '/__admin/mcp',
    headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
  }),
  mockCompareOnce: async (ctx) => {
    // an upstream that refuses connections: the comparison still answers, naming the upstream error
    await ctx.app.inject({
      method: 'PUT',
      url: `/__admin/proxy?sandbox=${ctx.sandbox}`,
      payload: { url: 'http://127.0.0.1:9' },
    });
    return admin({
      method: 'POST',
      url: '/__admin/compare',
      payload: { method: 'GET', url: '/mobile/tenant-info', headers: ctx.s.headers },
    })(ctx);
  },
};

function fieldValues(fields: any[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of fields) {
    if (!f.required) continue;
    out[f.id] =
      (
        { select: f.values?.[0], date: '2026-04-01', number: '3', checkbox: 'true', file: uuidLike(1) } as Record<
          string,
          string
        >
      )[f.type] ?? 'text';
  }
  return out;
}

function bidEvent(ctx: Ctx): any {
  const ev = ctx.t.calendarEvents.find(
    (e: any) =>
      e.bidMode !== 'none' &&
      !e.recurrence &&
      Date.parse(e.startAt) > Date.parse('2026-03-02T09:00:00Z') &&
      !e.participantIds.includes(accounts.admin.userId) &&
      e.visibleToGroupIds.length === 0 &&
      !ctx.t.calendarEventBids.some((b: any) => b.eventId === e.id && b.userId === accounts.admin.userId),
  );
  if (!ev) throw new Error('no calendar event accepting requests in the seed');
  return ev;
}

function pendingModeration(ctx: Ctx): string {
  const idea = ctx.t.ideas.find((i: any) => /moderat/.test(String(i.status)));
  const comment = ctx.t.ideaComments.find((c: any) => /moderat|pending/.test(String(c.status)));
  const id = idea?.id ?? comment?.id;
  if (!id) throw new Error('nothing awaits moderation in the seed');
  return id;
}

async function newToken(ctx: Ctx): Promise<{ id: string; token: string }> {
  const r = await call(ctx, { method: 'POST', url: '/user-api-token/create', payload: { name: 'ci token' } });
  return { id: r.data.record.id, token: r.data.token };
}

async function excelBody(ctx: Ctx) {
  const f = await uploadFile(ctx, 'credits.csv', `email;amount\n${accounts.noRights.email};5\n`);
  return { file_id: f.id, mapping: { email: 'A', amount: 'B' }, first_row: 2 };
}

async function processed(ctx: Ctx): Promise<{ id: string }> {
  const r = await call(ctx, {
    method: 'POST',
    url: '/admin/wallet-transaction/excel-processing',
    payload: await excelBody(ctx),
  });
  const id = r.id ?? r.data?.id ?? r.file_processing_id ?? r.fileProcessing?.id;
  // the parse runs in the background: the operations that use it need it finished
  const finished = await waitFor(async () => {
    const v = await call(ctx, { url: `/file-processing/view?id=${id}` });
    return v.finished ?? v.data?.finished;
  });
  if (!finished) throw new Error(`setup: file processing ${id} did not finish`);
  return { id };
}

/** A created user is named by its employment and the groups it joined (a 409 on delete): those let go of it. */
async function releaseUser(ctx: Ctx, id: string) {
  const base = `/__admin/data/${ctx.s.tenantId}`;
  const inSandbox = `sandbox=${ctx.sandbox}`;
  for (const e of (await call(ctx, { url: `${base}/employments?${inSandbox}&userId=${id}` })).records)
    await call(ctx, { method: 'DELETE', url: `${base}/employments/${e.id}?${inSandbox}` });
  for (const g of (await call(ctx, { url: `${base}/userGroups?${inSandbox}&limit=1000` })).records) {
    if (!g.memberIds.includes(id)) continue;
    const memberIds = g.memberIds.filter((m: string) => m !== id);
    await call(ctx, { method: 'PATCH', url: `${base}/userGroups/${g.id}?${inSandbox}`, payload: { memberIds } });
  }
}

/**
 * The records API's five operations of every collection (src/control/routes/records.ts), on the tenant of the signed-in
 * admin. A record to read, change or delete is one the entry creates itself: a copy of the collection's first record
 * under a new id, or one the factory fills where the collection starts empty.
 */
function recordsApiInputs(): Record<string, Valid> {
  const inputs: Record<string, Valid> = {};
  let copies = 0;
  for (const { name, pascalName } of storedRecords) {
    const base = (ctx: Ctx) => `/__admin/data/${ctx.s.tenantId}/${name}`;
    const sandbox = (ctx: Ctx) => `sandbox=${ctx.sandbox}`;
    const fresh = async (ctx: Ctx) => {
      const [first] = (await call(ctx, { url: `${base(ctx)}?${sandbox(ctx)}&limit=1` })).records;
      const { id: _id, ...fields } = first ?? {};
      // a user's e-mail is how the portal finds one: the copy gets its own
      if (name === 'users') fields.email = `copy.${++copies}@romashka.test`;
      return fields;
    };
    const made = async (ctx: Ctx) => {
      const payload = await fresh(ctx);
      return (await call(ctx, { method: 'POST', url: `${base(ctx)}?${sandbox(ctx)}`, payload })).records[0].id;
    };
    inputs[`mockData${pascalName}List`] = (ctx) => ({ url: `${base(ctx)}?${sandbox(ctx)}&limit=2` });
    inputs[`mockData${pascalName}Get`] = async (ctx) => ({ url: `${base(ctx)}/${await made(ctx)}?${sandbox(ctx)}` });
    inputs[`mockData${pascalName}Create`] = async (ctx) => ({
      method: 'POST',
      url: `${base(ctx)}?${sandbox(ctx)}`,
      payload: await fresh(ctx),
    });
    inputs[`mockData${pascalName}Patch`] = async (ctx) => ({
      method: 'PATCH',
      url: `${base(ctx)}/${await made(ctx)}?${sandbox(ctx)}`,
      payload: {},
    });
    inputs[`mockData${pascalName}Delete`] = async (ctx) => {
      const id = await made(ctx);
      if (name === 'users') await releaseUser(ctx, id);
      return { method: 'DELETE', url: `${base(ctx)}/${id}?${sandbox(ctx)}` };
    };
  }
  return inputs;
}
Object.assign(validInputs, recordsApiInputs());

/** A fresh sandbox with the admin signed in: every check starts from the seeded state. */
export async function makeCtx(app: FastifyInstance, sandbox: string, deviceId?: string): Promise<Ctx> {
  const s = await signIn(app, accounts.admin, { sandbox, ...(deviceId ? { deviceId } : {}) });
  const sb = { 'x-mock-sandbox': sandbox };
  return {
    app,
    sandbox,
    s,
    sb,
    t: app.sandboxes.get(sandbox).store.tenant(tenants.romashka)!,
    apiKey: {
      ...sb,
      'x-service-client-id': 'romashka-integration',
      'x-service-client-secret': 'romashka-secret-0001',
      'x-service-tenant-id': tenants.romashka,
    },
  };
}
