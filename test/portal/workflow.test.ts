import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { FastifyInstance } from 'fastify';
import { accounts, build, expectError, json, signIn, tenants, sharedApp } from '../helper.js';
import type { Tenant } from '../../src/store/store.js';
import { countTurns } from '../support/turns.js';

// one app for the file's tests, each in a sandbox of its own
const ownSandbox = sharedApp(t);

const key = { 'x-service-client-id': 'romashka-integration', 'x-service-client-secret': 'romashka-secret-0001' };
const nwKey = { 'x-service-client-id': 'northwind-integration', 'x-service-client-secret': 'northwind-secret-0001' };
const data = (app: FastifyInstance, sandbox: string, tenant: string = tenants.romashka): Tenant =>
  app.sandboxes.get(sandbox).store.tenant(tenant)!;
const setClock = (app: FastifyInstance, sandbox: string, at: string) => {
  app.sandboxes.get(sandbox).clock.state = { mode: 'frozen', at };
};
const proc = (app: FastifyInstance, sandbox: string, name: string) =>
  data(app, sandbox).wfProcesses.find((p) => p.name === name)!;

const vacationValues = {
  leaveType: 'Ежегодный оплачиваемый',
  dateFrom: '2026-04-01',
  dateTo: '2026-04-14',
  comment: 'море',
};

t.test('workflowCatalog', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const root = await inject({ url: '/api/v2/workflow/catalog', headers: s.headers });
  t.equal(root.statusCode, 200);
  const body = json(root);
  t.equal(body.category, null, 'no current category at the root');
  t.equal(body.q, '');
  t.same(
    body.categories.map((c: { name: string }) => c.name),
    ['Кадровые вопросы', 'Административные вопросы', 'ИТ-сервисы'],
  );
  const names: string[] = body.workflows.map((w: { name: string }) => w.name);
  t.ok(names.includes('Заявление на отпуск'));
  t.notOk(
    names.some((n) => n.includes('архив') || n.includes('служебный')),
    'hidden processes are not listed',
  );
  t.ok(names.includes('Заявка на подбор сотрудника'), 'a head sees the managers-only process');
  const hiring = body.workflows.find((w: { name: string }) => w.name === 'Заявка на подбор сотрудника');
  t.equal(hiring.userGroupsVisible.length, 1);
  t.match(hiring.userGroupsVisible[0], {
    name: 'Руководители',
    iconUrl: /^http:\/\/localhost:80\/images\/user-group\//,
  });
  const vac = body.workflows.find((w: { name: string }) => w.name === 'Заявление на отпуск');
  t.match(vac, {
    imageUrl: `http://localhost:80/images/workflow/${vac.id}.svg`,
    url: `http://localhost:80/pages/workflow/${vac.id}`,
    status_id: 1,
    tags: ['отпуск', 'отсутствие'],
    brief: String,
    feedbackTotal: { count: Number, score: Number },
    userGroupsVisible: [],
  });

  // a plain employee does not see it
  const petr = await signIn(app, accounts.noRights, { sandbox });
  const petrNames = json(await inject({ url: '/workflow/catalog', headers: petr.headers })).workflows.map(
    (w: { name: string }) => w.name,
  );
  t.notOk(
    petrNames.includes('Заявка на подбор сотрудника'),
    'a group-restricted process is listed only for its members',
  );

  // a top category, then a child with breadcrumbs
  const hr = body.categories[0];
  const top = json(await inject({ url: `/workflow/catalog?id=${hr.id}`, headers: s.headers }));
  t.match(top.category, {
    id: hr.id,
    name: 'Кадровые вопросы',
    title: String,
    content_style_id: 1,
    breadcrumbs: [{ label: 'Кадровые вопросы', id: hr.id }],
  });
  t.equal(top.categories.length, 3);
  t.equal(top.workflows.length, hr.workflowCount);
  const leave = top.categories[0];
  const child = json(await inject({ url: `/workflow/catalog?id=${leave.id}`, headers: s.headers }));
  t.same(
    child.category.breadcrumbs.map((b: { label: string }) => b.label),
    ['Кадровые вопросы', 'Отпуска и отсутствия'],
  );
  t.match(child.category.breadcrumbs[1], { id: leave.id, hash_id: /^\w{10}$/, slug: 'leave-and-absence' });
  t.same(child.categories, []);
  t.same(child.workflows.map((w: { name: string }) => w.name).sort(), ['Больничный лист', 'Заявление на отпуск']);

  // search
  const found = json(await inject({ url: `/workflow/catalog?q=${encodeURIComponent('ОТПУСК')}`, headers: s.headers }));
  t.equal(found.q, 'ОТПУСК');
  t.ok(found.workflows.length >= 1);
  t.ok(
    found.workflows.every((w: { name: string; tags: string[]; description: string }) =>
      /отпуск/i.test(`${w.name} ${w.tags.join(' ')} ${w.description}`),
    ),
  );
  t.same(json(await inject({ url: '/workflow/catalog?q=zzzzzz', headers: s.headers })).workflows, []);
  const byTag = json(await inject({ url: `/workflow/catalog?q=${encodeURIComponent('ноутбук')}`, headers: s.headers }));
  t.same(
    byTag.workflows.map((w: { name: string }) => w.name),
    ['Заявка на оборудование'],
    'tags are searched',
  );

  expectError(t, await inject({ url: '/workflow/catalog?id=no-such-category', headers: s.headers }), 404);
  expectError(t, await inject({ url: '/workflow/catalog' }), 401);
  expectError(t, await inject({ url: '/workflow/catalog', headers: key }), 401);

  t.test('english tenant', async (t) => {
    const nw = await signIn(app, accounts.nwAdmin, { sandbox });
    const en = json(await inject({ url: '/workflow/catalog', headers: nw.headers }));
    t.same(
      en.categories.map((c: { name: string }) => c.name),
      ['HR matters', 'Administration', 'IT services'],
    );
    t.ok(en.workflows.some((w: { name: string }) => w.name === 'Vacation request'));
  });
});

t.test('workflowStartForm', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const vac = proc(app, sandbox, 'Заявление на отпуск');
  const res = await inject({ url: `/api/v2/workflow/start/${vac.id}`, headers: s.headers });
  t.equal(res.statusCode, 200);
  const form = json(res);
  t.match(form, {
    id: vac.id,
    name: 'Заявление на отпуск',
    brief: String,
    imageUrl: `http://localhost:80/images/workflow/${vac.id}.svg`,
    isChiefRequired: true,
    isAllowCategoryChange: false,
    categories: { [vac.categoryId]: 'Отпуска и отсутствия' },
    description: { time: Number, version: String },
  });
  t.ok(form.description.blocks.length >= 2);
  t.match(form.description.blocks[1], { id: String, type: 'paragraph', data: { text: String } });
  t.same(
    form.fields.map((f: { id: string }) => f.id),
    ['leaveType', 'dateFrom', 'dateTo', 'comment'],
  );
  t.match(form.fields[0], {
    type: 'select',
    required: true,
    values: ['Ежегодный оплачиваемый', 'Без сохранения заработной платы', 'Учебный'],
    defaultValue: null,
  });

  const cert = json(
    await inject({ url: `/workflow/start/${proc(app, sandbox, 'Справка с места работы').id}`, headers: s.headers }),
  );
  t.equal(cert.isAllowCategoryChange, true);
  t.ok(Object.keys(cert.categories).length > 1, 'a process allowing category change offers several categories');
  t.match(
    cert.fields.find((f: { id: string }) => f.id === 'copies'),
    { type: 'number', defaultValue: '1' },
  );
  const types = new Set(data(app, sandbox).wfProcesses.flatMap((p) => p.fields.map((f) => f.type)));
  t.same(
    [...types].sort(),
    ['checkbox', 'date', 'file', 'number', 'select', 'text', 'textarea'],
    'every field type is seeded',
  );

  expectError(t, await inject({ url: '/workflow/start/unknown-process', headers: s.headers }), 404);
  const hidden = data(app, sandbox).wfProcesses.find((p) => p.isHidden)!;
  expectError(t, await inject({ url: `/workflow/start/${hidden.id}`, headers: s.headers }), 404);
  const petr = await signIn(app, accounts.noRights, { sandbox });
  expectError(
    t,
    await inject({
      url: `/workflow/start/${proc(app, sandbox, 'Заявка на подбор сотрудника').id}`,
      headers: petr.headers,
    }),
    404,
  );
  expectError(t, await inject({ url: `/workflow/start/${vac.id}` }), 401);
});

t.test('workflowStart', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const vac = proc(app, sandbox, 'Заявление на отпуск');
  const post = (payload: unknown, id = vac.id, headers = s.headers) =>
    inject({ method: 'POST', url: `/api/v2/workflow/start/${id}`, headers, payload: payload as object });

  const missing = expectError(t, await post({ fieldValues: { dateFrom: '2026-04-01' } }), 422);
  t.same(missing.details?.map((d) => d.field).sort(), ['fieldValues.dateTo', 'fieldValues.leaveType']);
  t.match(missing.details?.find((d) => d.field === 'fieldValues.leaveType')?.message, /required/);
  const wrong = expectError(
    t,
    await post({ fieldValues: { ...vacationValues, leaveType: 'Сабаттикал', dateFrom: '01.04.2026', extra: 'x' } }),
    422,
  );
  t.same(wrong.details?.map((d) => d.field).sort(), [
    'fieldValues.dateFrom',
    'fieldValues.extra',
    'fieldValues.leaveType',
  ]);
  t.match(wrong.details?.find((d) => d.field === 'fieldValues.leaveType')?.message, /one of/);
  const cert = proc(app, sandbox, 'Справка с места работы');
  const num = expectError(
    t,
    await post({ fieldValues: { purpose: 'Банк', copies: 'два', delivery: 'Электронно' } }, cert.id),
    422,
  );
  t.same(
    num.details?.map((d) => d.field),
    ['fieldValues.copies'],
  );
  const badCat = expectError(t, await post({ categoryId: 'nope', fieldValues: vacationValues }), 422);
  t.same(
    badCat.details?.map((d) => d.field),
    ['categoryId'],
  );
  expectError(t, await post({}), 400);
  expectError(t, await post({ fieldValues: { a: { b: 1 } } }), 400);
  expectError(t, await post({ fieldValues: vacationValues }, 'unknown'), 404);
  expectError(
    t,
    await inject({ method: 'POST', url: `/workflow/start/${vac.id}`, payload: { fieldValues: vacationValues } }),
    401,
  );
  const before = data(app, sandbox).wfTickets.length;
  t.equal(data(app, sandbox).wfTickets.length, before, 'no ticket from invalid applications');

  const ok = await post({ fieldValues: vacationValues });
  t.equal(ok.statusCode, 201);
  t.match(json(ok), { id: /^[0-9a-f-]{36}$/, message: /создана/ });
  t.equal(data(app, sandbox).wfTickets.length, before + 1);

  // default values fill omitted fields; the category may change when allowed
  const other = Object.keys(
    json(await inject({ url: `/workflow/start/${cert.id}`, headers: s.headers })).categories,
  ).find((c) => c !== cert.categoryId)!;
  const certOk = await post({ categoryId: other, fieldValues: { purpose: 'Банк', delivery: 'Электронно' } }, cert.id);
  t.equal(certOk.statusCode, 201);
  const certView = json(await inject({ url: `/workflow-ticket/view?id=${json(certOk).id}`, headers: s.headers }));
  t.equal(certView.wf_category_id, other);
  t.equal(certView.fieldValues.copies, '1');

  // the chief becomes responsible of the first stage: Ivan heads his division, so it is the head of the parent
  const view = json(await inject({ url: `/workflow-ticket/view?id=${json(ok).id}`, headers: s.headers }));
  const tenant = data(app, sandbox);
  const ivan = tenant.users.find((u) => u.id === accounts.admin.userId)!;
  const dep = tenant.departments.find((d) => d.id === ivan.departmentId)!;
  t.equal(dep.headId, ivan.id, 'Ivan is the head of his department');
  const parent = tenant.departments.find((d) => d.id === dep.parentId)!;
  t.same(
    view.wfTicketStages[0].responsible.map((r: { id: string }) => r.id),
    [parent.headId],
  );
  t.same(
    view.wfTicketStages[1].responsible.map((r: { id: string }) => r.id),
    vac.stages[1]!.responsibleIds,
    'later stages keep their own',
  );

  // Olga's chief is the head of her own department
  const olgaUser = tenant.users.find((u) => u.id === accounts.twoFactor.userId)!;
  const olgaDep = tenant.departments.find((d) => d.id === olgaUser.departmentId)!;
  const olga = await signIn(app, accounts.twoFactor, { sandbox });
  const olgaTicket = json(await post({ fieldValues: vacationValues }, vac.id, olga.headers)).id;
  const olgaView = json(await inject({ url: `/workflow-ticket/view?id=${olgaTicket}`, headers: olga.headers }));
  t.same(
    olgaView.wfTicketStages[0].responsible.map((r: { id: string }) => r.id),
    [olgaDep.headId],
  );
});

t.test('workflowTicketIndex', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const all = data(app, sandbox).wfTickets;
  t.ok(all.length >= 28 && all.length <= 32, `about 30 seeded tickets (${all.length})`);
  t.same(new Set(all.map((x) => x.statusId)), new Set([1, 2, 3, 4]), 'every status is seeded');

  const res = await inject({ url: '/api/v2/workflow-ticket/', headers: s.headers });
  t.equal(res.statusCode, 200);
  const page = json(res);
  t.equal(page._meta.perPage, 10);
  t.equal(page._meta.currentPage, 1);
  const mine = all.filter(
    (x) =>
      x.userId === accounts.admin.userId ||
      Object.values(x.responsible).some((ids) => ids.includes(accounts.admin.userId)),
  );
  t.equal(page._meta.totalCount, mine.length, 'a session sees its own tickets (created or responsible)');
  t.ok(mine.length >= 5);
  t.match(page.data[0], {
    id: String,
    wf_workflow_id: String,
    wf_ticket_stage_id: String,
    wf_status_id: Number,
    user_id: String,
    created_at: String,
    updated_at: String,
    url: /^http:\/\/localhost:80\/pages\/workflow-ticket\//,
    wfStatus: String,
    wfWorkflow: { id: String, name: String, is_hidden: Boolean },
    user: { id: String, name: String, faceUrl: /^http/ },
  });

  // filters
  const byKey = (q: string) => inject({ url: `/workflow-ticket/${q}`, headers: key });
  const solved = json(await byKey('?wf_status_id=2&per-page=100'));
  t.ok(solved.data.length > 0);
  t.ok(
    solved.data.every(
      (x: { wf_status_id: number; solved_at: string | null; wfStatus: string }) =>
        x.wf_status_id === 2 && x.solved_at !== null && x.wfStatus === 'Решена',
    ),
  );
  const inProgress = json(await byKey('?wf_status_id=1&per-page=100'));
  t.ok(
    inProgress.data.every(
      (x: { solved_at: string | null; wfStatus: string }) => x.solved_at === null && x.wfStatus === 'В работе',
    ),
  );
  const one = all[0]!;
  const byWf = json(await byKey(`?wf_workflow_id=${one.processId}&per-page=100`));
  t.ok(byWf.data.length > 0 && byWf.data.every((x: { wf_workflow_id: string }) => x.wf_workflow_id === one.processId));
  const byStage = json(await byKey(`?wf_ticket_stage_id=${one.stageId}&per-page=100`));
  t.ok(byStage.data.some((x: { id: string }) => x.id === one.id));
  t.ok(byStage.data.every((x: { wf_ticket_stage_id: string }) => x.wf_ticket_stage_id === one.stageId));
  t.equal(json(await byKey('?wf_workflow_id=nothing')).data.length, 0);

  // paging and links: absolute, as the client called (with /api/v2 and the sandbox prefix)
  const p2 = json(
    await inject({
      url: '/sandbox/default/api/v2/workflow-ticket/?per-page=7&page=2&wf_status_id=2',
      headers: { ...key, host: 'mock.test:3000' },
    }),
  );
  t.match(p2._meta, {
    currentPage: 2,
    perPage: 7,
    totalCount: solved.data.length,
    pageCount: Math.ceil(solved.data.length / 7),
  });
  t.equal(
    p2._links.self,
    'http://mock.test:3000/sandbox/default/api/v2/workflow-ticket/?per-page=7&page=2&wf_status_id=2',
  );
  t.equal(
    p2._links.first,
    'http://mock.test:3000/sandbox/default/api/v2/workflow-ticket/?per-page=7&page=1&wf_status_id=2',
  );
  t.match(p2._links.last, /page=\d+/);
  const followed = await inject({ url: p2._links.first.replace('http://mock.test:3000', ''), headers: key });
  t.equal(followed.statusCode, 200, 'a page link works');
  t.equal(json(followed)._meta.currentPage, 1);
  const plain = json(await byKey('?page=2'));
  t.equal(plain._links.self, 'http://localhost/workflow-ticket/?page=2&per-page=10', 'URL drops the default port');
  t.ok(plain.data.length > 0);

  expectError(t, await byKey('?wf_status_id=abc'), 400);
  expectError(t, await byKey('?per-page=abc'), 400);
  expectError(t, await byKey('?page=-1'), 400);
  expectError(t, await inject({ url: '/workflow-ticket/' }), 401);
});

t.test('API-key authorization of the ticket operations', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const res = await inject({ url: '/api/v2/workflow-ticket?per-page=100', headers: key });
  t.equal(res.statusCode, 200);
  t.equal(
    json(res)._meta.totalCount,
    data(app, sandbox).wfTickets.length,
    'an API key sees every ticket of its tenant',
  );
  const id = json(res).data[0].id;
  t.equal((await inject({ url: `/api/v2/workflow-ticket/view?id=${id}`, headers: key })).statusCode, 200);

  expectError(
    t,
    await inject({ url: '/workflow-ticket/', headers: { ...key, 'x-service-client-secret': 'wrong' } }),
    401,
  );
  expectError(
    t,
    await inject({
      url: `/workflow-ticket/view?id=${id}`,
      headers: { ...key, 'x-service-client-secret': 'wrong' },
    }),
    401,
  );
  expectError(
    t,
    await inject({
      url: '/workflow-ticket/',
      headers: { 'x-service-client-id': 'nobody', 'x-service-client-secret': 'x' },
    }),
    401,
  );
  expectError(
    t,
    await inject({ url: '/workflow-ticket/', headers: { ...key, 'x-service-tenant-id': tenants.northwind } }),
    401,
  );

  // another tenant's key never sees this tenant's tickets
  const nw = json(await inject({ url: '/workflow-ticket/?per-page=100', headers: nwKey }));
  const romashkaIds = new Set(data(app, sandbox).wfTickets.map((x) => x.id));
  t.ok(nw.data.length > 0);
  t.notOk(nw.data.some((x: { id: string }) => romashkaIds.has(x.id)));
  t.equal(
    nw.data[0].wfStatus === 'In progress' ||
      nw.data[0].wfStatus === 'Solved' ||
      nw.data[0].wfStatus === 'Rejected' ||
      nw.data[0].wfStatus === 'Cancelled',
    true,
    'labels in English',
  );
  expectError(t, await inject({ url: `/workflow-ticket/view?id=${id}`, headers: nwKey }), 404);
  // the start operations are session only
  expectError(t, await inject({ url: '/workflow/catalog', headers: key }), 401);
});

t.test('workflowTicketView', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const mine = data(app, sandbox).wfTickets.find((x) => x.userId === accounts.admin.userId)!;
  const res = await inject({ url: `/api/v2/workflow-ticket/view?id=${mine.id}`, headers: s.headers });
  t.equal(res.statusCode, 200);
  const v = json(res);
  const p = data(app, sandbox).wfProcesses.find((x) => x.id === mine.processId)!;
  t.match(v, {
    id: mine.id,
    wf_workflow_id: p.id,
    wf_ticket_stage_id: mine.stageId,
    user_id: accounts.admin.userId,
    wf_status_id: mine.statusId,
    wfWorkflow: { id: p.id, name: p.name, brief: p.brief, is_hidden: p.isHidden },
    wfStatus: String,
  });
  t.equal(v.wfTicketStages.length, p.stages.length);
  t.match(v.wfTicketStages[0], {
    id: p.stages[0]!.id,
    name: String,
    fields: Array,
    responsible: [{ id: String, name: String, faceUrl: /^http/ }],
  });
  t.match(v.wfTicketStages.at(-1).fields[0], {
    id: 'resolution',
    type: 'textarea',
    values: [],
    required: false,
    defaultValue: null,
  });

  const foreign = data(app, sandbox).wfTickets.find(
    (x) => x.userId !== accounts.admin.userId && !Object.values(x.responsible).flat().includes(accounts.admin.userId),
  )!;
  expectError(t, await inject({ url: `/workflow-ticket/view?id=${foreign.id}`, headers: s.headers }), 404);
  t.equal((await inject({ url: `/workflow-ticket/view?id=${foreign.id}`, headers: key })).statusCode, 200);
  expectError(t, await inject({ url: '/workflow-ticket/view?id=unknown', headers: s.headers }), 404);
  expectError(t, await inject({ url: '/workflow-ticket/view', headers: s.headers }), 400);
  expectError(t, await inject({ url: `/workflow-ticket/view?id=${mine.id}` }), 401);
});

t.test('tickets move on with the sandbox clock', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'wf-scenarios-'));
  writeFileSync(
    join(dir, 'hold-tickets.json'),
    JSON.stringify({ name: 'hold-tickets', description: 'tickets stand still', holdTickets: true }),
  );
  const app = await build(t, { scenarios: [dir] });
  const s = await signIn(app);
  t.ok(data(app, 'default').wfTickets.filter((x) => x.statusId === 1).length >= 8, 'seeded tickets in progress');
  const vac = proc(app, 'default', 'Заявление на отпуск');
  const id = json(
    await app.inject({
      method: 'POST',
      url: `/workflow/start/${vac.id}`,
      headers: s.headers,
      payload: { fieldValues: vacationValues },
    }),
  ).id;
  const view = async (extra: Record<string, string> = {}) =>
    json(await app.inject({ url: `/workflow-ticket/view?id=${id}`, headers: { ...key, ...extra } }));

  let v = await view();
  t.match(v, {
    wf_status_id: 1,
    wf_ticket_stage_id: vac.stages[0]!.id,
    solved_at: null,
    created_at: '2026-03-02T09:00:00.000Z',
  });
  t.same(
    v.wfTicketStages.map((x: { state: string }) => x.state),
    ['current', 'pending', 'pending'],
  );

  setClock(app, 'default', '2026-03-02T09:09:59.000Z');
  t.equal(
    (await view()).wf_ticket_stage_id,
    vac.stages[0]!.id,
    'still at the first stage before its 10 minutes are up',
  );

  setClock(app, 'default', '2026-03-02T09:10:00.000Z');
  t.equal(
    (await view({ 'x-mock-scenario': 'hold-tickets' })).wf_ticket_stage_id,
    vac.stages[0]!.id,
    'held by the scenario',
  );
  v = await view();
  t.match(v, { wf_status_id: 1, wf_ticket_stage_id: vac.stages[1]!.id, updated_at: '2026-03-02T09:10:00.000Z' });
  t.same(
    v.wfTicketStages.map((x: { state: string }) => x.state),
    ['done', 'current', 'pending'],
  );
  const listed = json(
    await app.inject({ url: `/workflow-ticket/?wf_ticket_stage_id=${vac.stages[1]!.id}`, headers: s.headers }),
  );
  t.ok(
    listed.data.some((x: { id: string }) => x.id === id),
    'the list shows the new stage',
  );

  setClock(app, 'default', '2026-03-02T12:00:00.000Z');
  v = await view();
  t.match(v, {
    wf_status_id: 2,
    wfStatus: 'Решена',
    solved_at: '2026-03-02T09:30:00.000Z',
    updated_at: '2026-03-02T09:30:00.000Z',
    wf_ticket_stage_id: vac.stages[2]!.id,
  });
  t.same(
    data(app, 'default')
      .wfTickets.find((x) => x.id === id)!
      .history.map((h) => [h.at.slice(11, 16), h.statusId]),
    [
      ['09:00', 1],
      ['09:10', 1],
      ['09:20', 1],
      ['09:30', 2],
    ],
  );

  // the clock going back does not undo stored transitions
  setClock(app, 'default', '2026-03-02T09:05:00.000Z');
  t.equal((await view()).wf_status_id, 2, 'stable once computed');

  // seeded tickets in progress move too
  setClock(app, 'default', '2026-04-30T00:00:00.000Z');
  const after = json(await app.inject({ url: '/workflow-ticket/?wf_status_id=1', headers: key }));
  t.equal(after._meta.totalCount, 0, 'every ticket in progress is solved by then');
});

// Issue 54, part 6: a sandbox filled through the records API made a catalog of megabytes, built and serialized in
// one synchronous block (315 ms at 10,000 processes). A large catalog is now streamed, each entry made as it is
// written. Time here is a counter (each reading of performance.now() one ms more), so the slices fall where the work
// is, whatever the load; the test counts turns of the event loop during the request, never time.
t.test('a large catalog is written over several turns of the event loop, the same answer', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'catalog-fault-'));
  const malformed = { name: 'f-malformed', description: 'malformed catalog', faults: [{ kind: 'malformed' }] };
  writeFileSync(
    join(dir, 'f-malformed.json'),
    JSON.stringify({ ...malformed, faults: [{ ...malformed.faults[0], operations: ['workflowCatalog'] }] }),
  );
  const app = await build(t, { scenarios: [dir] });
  const s = await signIn(app);
  const url = `/__admin/data/${tenants.romashka}/wfProcesses?count=1000`;
  for (let i = 0; i < 3; i++) {
    const made = await app.inject({ method: 'POST', url, payload: { name: 'Заявка на пропуск' } });
    t.equal(made.statusCode, 201, made.body.slice(0, 200));
  }
  const small = json(await app.inject({ url: '/workflow/catalog?q=отпуск', headers: s.headers }));

  const realNow = performance.now.bind(performance);
  let fake = realNow();
  performance.now = () => ++fake;
  t.teardown(() => {
    performance.now = realNow;
  });
  const turns = countTurns();
  const res = await app.inject({ url: '/workflow/catalog', headers: s.headers });
  turns.stop();
  performance.now = realNow;
  t.equal(res.statusCode, 200);
  t.equal(res.headers['content-length'], undefined, 'streamed, not one text');
  t.match(res.headers['content-type'], /^application\/json/);
  const catalog = json(res);
  t.equal(catalog.workflows.filter((w: { name: string }) => w.name === 'Заявка на пропуск').length, 3000);
  t.ok(turns.count >= 2, `the catalog took ${turns.count} turns of the event loop (it took none)`);

  // a scenario's malformed answer still breaks a large catalog (it is cut from the text, so that one is not streamed)
  const broken = await app.inject({
    url: '/workflow/catalog',
    headers: { ...s.headers, 'x-mock-scenario': 'f-malformed' },
  });
  t.equal(broken.statusCode, 200);
  t.throws(() => JSON.parse(broken.body) as unknown, 'malformed: not JSON');

  // a search that finds a few is one text, as before, and finds the same as the streamed catalog holds
  t.ok(small.workflows.length > 0);
  for (const w of small.workflows)
    t.same(
      catalog.workflows.find((x: { id: string }) => x.id === w.id),
      w,
      'an entry is the same streamed or not',
    );
});
