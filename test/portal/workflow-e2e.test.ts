// End to end over a real socket with global fetch: sign in, catalog, start form, a refused and an accepted
// application, the ticket found by the API key, and its move to the next stage with the clock.
import t from 'tap';
import { accounts, build, tenants } from '../helper.js';
import type { ErrorBody } from '../../src/schemas/common.js';
import type { AccountSecret, AuthResult, TenantInfo } from '../../src/schemas/mobile.js';
import type {
  WorkflowCatalog,
  WorkflowStartForm,
  WorkflowStartResult,
  WorkflowTicketDetails,
  WorkflowTicketPage,
} from '../../src/schemas/workflow.js';

t.test('a client applies for a vacation and watches the ticket move', async (t) => {
  const app = await build(t);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  const base = `http://127.0.0.1:${address.port}`;
  const call = async <T>(
    path: string,
    init: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
  ) => {
    const res = await fetch(`${base}${path}`, {
      method: init.method ?? 'GET',
      headers: { ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers },
      body: init.body !== undefined ? JSON.stringify(init.body) : null,
    });
    return { status: res.status, body: (await res.json()) as T };
  };

  // sign in: manual bind, then auth
  const bind = await call<{ accountSecret: AccountSecret; tenantInfo: TenantInfo }>('/api/v2/mobile/manual-bind', {
    method: 'POST',
    body: { email: accounts.admin.email, password: 'demo1234', device: { id: 'e2e-phone', platform: 'android' } },
  });
  t.equal(bind.status, 200);
  const secret = bind.body.accountSecret;
  t.equal(bind.body.tenantInfo.base_url, base);
  const auth = await call<AuthResult>('/mobile/auth', {
    method: 'POST',
    headers: { 'x-service-tenant-id': secret.tenantId },
    body: { secret: secret.secret, userId: secret.userId, deviceId: secret.deviceId },
  });
  t.equal(auth.status, 200);
  const session = {
    'x-service-tenant-id': tenants.romashka,
    'x-service-device-id': 'e2e-phone',
    'x-service-session-id': auth.body.sessionId,
    'x-service-session-code': auth.body.sessionSecret,
  };

  // the catalog, then a process's start form
  const catalog = await call<WorkflowCatalog>('/api/v2/workflow/catalog', { headers: session });
  t.equal(catalog.status, 200);
  const vacation = catalog.body.workflows.find((w) => w.name === 'Заявление на отпуск');
  if (!vacation) throw new Error('no vacation process');
  t.ok(vacation, 'the vacation process is in the catalog');
  t.ok(vacation.imageUrl.startsWith(base));
  const form = await call<WorkflowStartForm>(`/api/v2/workflow/start/${vacation.id}`, { headers: session });
  t.equal(form.status, 200);
  const required = form.body.fields.filter((f) => f.required).map((f) => f.id);
  t.same(required, ['leaveType', 'dateFrom', 'dateTo']);

  // a required field missing: a clear 422 naming it
  const leaveType = form.body.fields[0]!.values[0]!;
  const refused = await call<ErrorBody>(`/api/v2/workflow/start/${vacation.id}`, {
    method: 'POST',
    headers: session,
    body: { fieldValues: { leaveType, dateFrom: '2026-04-01' } },
  });
  t.equal(refused.status, 422);
  t.match(refused.body, { statusCode: 422, code: 'UNPROCESSABLE', message: /fieldValues\.dateTo is required/ });
  t.same(refused.body.details, [{ field: 'fieldValues.dateTo', message: 'is required (Дата окончания)' }]);

  // then right
  const created = await call<WorkflowStartResult>(`/api/v2/workflow/start/${vacation.id}`, {
    method: 'POST',
    headers: session,
    body: { fieldValues: { leaveType, dateFrom: '2026-04-01', dateTo: '2026-04-10' } },
  });
  t.equal(created.status, 201);
  const ticketId: string = created.body.id;
  t.match(created.body.message, /создана/);

  // the integration finds it by the API key
  const apiKey = { 'X-Service-Client-Id': 'romashka-integration', 'X-Service-Client-Secret': 'romashka-secret-0001' };
  const list = await call<WorkflowTicketPage>(`/api/v2/workflow-ticket/?wf_workflow_id=${vacation.id}&wf_status_id=1`, {
    headers: apiKey,
  });
  t.equal(list.status, 200);
  const item = list.body.data.find((x) => x.id === ticketId);
  t.match(item, {
    wf_status_id: 1,
    wfStatus: 'В работе',
    user_id: accounts.admin.userId,
    solved_at: null,
    url: `${base}/pages/workflow-ticket/${ticketId}`,
  });
  t.ok(list.body._links.self.startsWith(`${base}/api/v2/workflow-ticket/`));
  const firstStage = item?.wf_ticket_stage_id;
  t.equal(
    (await call('/api/v2/workflow-ticket/', { headers: { ...apiKey, 'X-Service-Client-Secret': 'wrong' } })).status,
    401,
  );

  // ten minutes later the ticket is at the next stage
  app.sandboxes.get('default').clock.state = { mode: 'frozen', at: '2026-03-02T09:10:00.000Z' };
  const later = await call<WorkflowTicketDetails>(`/api/v2/workflow-ticket/view?id=${ticketId}`, { headers: apiKey });
  t.equal(later.status, 200);
  t.not(later.body.wf_ticket_stage_id, firstStage, 'moved on');
  t.equal(later.body.wf_ticket_stage_id, later.body.wfTicketStages[1]?.id, 'to the second stage');
  t.equal(later.body.updated_at, '2026-03-02T09:10:00.000Z');
  const mine = await call<WorkflowTicketPage>('/api/v2/workflow-ticket/', { headers: session });
  t.equal(
    mine.body.data.find((x) => x.id === ticketId)?.wf_ticket_stage_id,
    later.body.wf_ticket_stage_id,
    'the owner sees the same',
  );
});
