// Workflow (business processes): the records the store keeps and the API shapes built from them.
import { Type, type Static } from '@sinclair/typebox';
import { assumed, Nullable, Page, PersonBrief, ref, Stamp, Uuid } from './common.js';

// ---------------------------------------------------------------- records (no $id)

export const WorkflowFieldTypes = ['text', 'textarea', 'select', 'date', 'number', 'file', 'checkbox'] as const;

export const WfFieldRecord = Type.Object({
  id: Type.String({ minLength: 1 }),
  name: Type.String(),
  type: Type.Union(WorkflowFieldTypes.map((t) => Type.Literal(t))),
  values: Type.Array(Type.String()),
  required: Type.Boolean(),
  defaultValue: Nullable(Type.String()),
});
export type WfFieldRecord = Static<typeof WfFieldRecord>;

export const WfCategoryRecord = Type.Object({
  id: Uuid,
  parentId: Nullable(Uuid),
  name: Type.String(),
  title: Type.String(),
  description: Type.String(),
  hashId: Type.String(),
  slug: Type.String(),
  tags: Type.Array(Type.String()),
  contentStyleId: Type.Integer(),
  sort: Type.Integer(),
});
export type WfCategoryRecord = Static<typeof WfCategoryRecord>;

export const WfStageRecord = Type.Object({
  id: Uuid,
  name: Type.String(),
  fields: Type.Array(WfFieldRecord),
  /** default responsible users of the stage */
  responsibleIds: Type.Array(Uuid),
});

export const WfProcessRecord = Type.Object({
  id: Uuid,
  categoryId: Uuid,
  name: Type.String(),
  brief: Type.String(),
  descriptionBlocks: Type.Array(Type.Object({ id: Type.String(), type: Type.String(), text: Type.String() })),
  tags: Type.Array(Type.String()),
  statusId: Type.Integer(),
  isHidden: Type.Boolean(),
  /** user groups that may see the process; empty: everyone */
  visibleGroupIds: Type.Array(Uuid),
  isChiefRequired: Type.Boolean(),
  isAllowCategoryChange: Type.Boolean(),
  fields: Type.Array(WfFieldRecord),
  stages: Type.Array(WfStageRecord, { minItems: 1 }),
  /** how long each stage takes, by the sandbox clock */
  stageMinutes: Type.Integer({ minimum: 1 }),
  feedbackCount: Type.Integer({ minimum: 0 }),
  feedbackScore: Type.Integer({ minimum: 0, maximum: 5 }),
  createdAt: Stamp,
});
export type WfProcessRecord = Static<typeof WfProcessRecord>;

export const WfTransitionRecord = Type.Object({ at: Stamp, stageId: Uuid, statusId: Type.Integer() });

export const WfTicketRecord = Type.Object({
  id: Uuid,
  processId: Uuid,
  categoryId: Nullable(Uuid),
  userId: Uuid,
  stageId: Uuid,
  /** 1 in progress, 2 solved, 3 rejected, 4 cancelled */
  statusId: Type.Integer({ minimum: 1, maximum: 4 }),
  createdAt: Stamp,
  updatedAt: Stamp,
  solvedAt: Nullable(Stamp),
  /** when the current stage began: the ticket moves on stageMinutes later */
  stageEnteredAt: Stamp,
  fieldValues: Type.Record(Type.String(), Type.String()),
  /** responsible users per stage id, fixed at creation (the chief replaces the first stage's when required) */
  responsible: Type.Record(Type.String(), Type.Array(Uuid)),
  history: Type.Array(WfTransitionRecord),
});
export type WfTicketRecord = Static<typeof WfTicketRecord>;

export const WorkflowCollections = {
  wfCategories: Type.Array(WfCategoryRecord),
  wfProcesses: Type.Array(WfProcessRecord),
  wfTickets: Type.Array(WfTicketRecord),
};

// ---------------------------------------------------------------- API shapes

export const WorkflowField = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    type: Type.String({
      description: 'text, textarea, select, date (yyyy-MM-dd), number, file (a file id), checkbox (true/false)',
    }),
    values: Type.Array(Type.String(), { description: 'choices of a select; empty otherwise' }),
    required: Type.Boolean(),
    defaultValue: Nullable(Type.String()),
  },
  {
    $id: 'WorkflowField',
    description:
      'A field of a start form or a ticket stage (fields as named ' +
      'for ticket stages; the rest of WorkflowField is not shown).',
  },
);
export type WorkflowField = Static<typeof WorkflowField>;

export const WorkflowCategory = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    parent_id: Nullable(Type.String()),
    description: Type.String(),
    imageUrl: Type.String(),
    workflowCount: Type.Integer({ description: 'visible processes in this category and below' }),
  },
  { $id: 'WorkflowCategory', ...assumed('A catalog category; the API description names the record only.') },
);
export type WorkflowCategory = Static<typeof WorkflowCategory>;

export const WorkflowBreadcrumb = Type.Object(
  {
    label: Type.String(),
    id: Type.String(),
    hash_id: Type.String(),
    slug: Type.String(),
  },
  { $id: 'WorkflowBreadcrumb' },
);

export const WorkflowCurrentCategory = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    title: Type.String(),
    description: Type.String(),
    content_style_id: Type.Integer(),
    tags: Type.Array(Type.String()),
    breadcrumbs: Type.Array(ref(WorkflowBreadcrumb), {
      description: 'from the top category down to this one, inclusive',
    }),
  },
  { $id: 'WorkflowCurrentCategory' },
);
export type WorkflowCurrentCategory = Static<typeof WorkflowCurrentCategory>;

export const UserGroupVisible = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    description: Type.String(),
    iconUrl: Type.String(),
    conditionsReadable: Type.String(),
  },
  { $id: 'WorkflowUserGroupVisible' },
);

export const WorkflowCatalogEntry = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    description: Type.String(),
    imageUrl: Type.String(),
    url: Type.String(),
    status_id: Type.Integer({ description: '1 active (assumed value)' }),
    tags: Type.Array(Type.String()),
    brief: Type.String(),
    userGroupsVisible: Type.Array(ref(UserGroupVisible), { description: 'empty: visible to everyone' }),
    feedbackTotal: Type.Object({ count: Type.Integer(), score: Type.Integer() }),
  },
  { $id: 'WorkflowCatalogEntry' },
);
export type WorkflowCatalogEntry = Static<typeof WorkflowCatalogEntry>;

export const WorkflowCatalog = Type.Object(
  {
    categories: Type.Array(ref(WorkflowCategory), {
      description: 'sub-categories of the current category (top categories at the root)',
    }),
    category: Nullable(ref(WorkflowCurrentCategory), { description: 'null at the root (no id)' }),
    q: Type.String(),
    workflows: Type.Array(ref(WorkflowCatalogEntry), {
      description: 'visible processes in the current category and below (all at the root)',
    }),
  },
  { $id: 'WorkflowCatalog' },
);
export type WorkflowCatalog = Static<typeof WorkflowCatalog>;

export const WorkflowStartForm = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    brief: Type.String(),
    description: Type.Object({
      time: Type.Integer({ description: 'milliseconds timestamp' }),
      blocks: Type.Array(
        Type.Object({ id: Type.String(), type: Type.String(), data: Type.Object({ text: Type.String() }) }),
      ),
      version: Type.String(),
    }),
    imageUrl: Type.String(),
    isChiefRequired: Type.Boolean(),
    isAllowCategoryChange: Type.Boolean(),
    categories: Type.Record(Type.String(), Type.String(), {
      description: 'category id → name: where the application may be filed',
    }),
    fields: Type.Array(ref(WorkflowField)),
  },
  { $id: 'WorkflowStartForm' },
);
export type WorkflowStartForm = Static<typeof WorkflowStartForm>;

export const WorkflowStartRequest = Type.Object(
  {
    categoryId: Type.Optional(Type.String({ maxLength: 64 })),
    fieldValues: Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: 10_000 }), {
      description: 'field id → value (always a string)',
    }),
  },
  { $id: 'WorkflowStartRequest' },
);
export type WorkflowStartRequest = Static<typeof WorkflowStartRequest>;

export const WorkflowStartResult = Type.Object(
  { id: Type.String(), message: Type.String() },
  { $id: 'WorkflowStartResult' },
);
export type WorkflowStartResult = Static<typeof WorkflowStartResult>;

const Person = ref(PersonBrief);

export const WorkflowTicketItem = Type.Object(
  {
    id: Type.String(),
    wf_workflow_id: Type.String(),
    wf_ticket_stage_id: Type.String(),
    wf_status_id: Type.Integer({
      description: '1 in progress, 2 solved, 3 rejected, 4 cancelled (values other than 1 assumed)',
    }),
    user_id: Type.String(),
    created_at: Stamp,
    updated_at: Stamp,
    solved_at: Nullable(Stamp),
    url: Type.String(),
    wfStatus: Type.String(),
    wfWorkflow: Type.Object({ id: Type.String(), name: Type.String(), is_hidden: Type.Boolean() }),
    user: Person,
  },
  { $id: 'WorkflowTicketItem' },
);
export type WorkflowTicketItem = Static<typeof WorkflowTicketItem>;

export const WorkflowTicketPage = Page(ref(WorkflowTicketItem), { $id: 'WorkflowTicketPage' });
export type WorkflowTicketPage = Static<typeof WorkflowTicketPage>;

export const WorkflowTicketStage = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    fields: Type.Array(ref(WorkflowField)),
    responsible: Type.Array(Person),
    state: Type.String(assumed('done, current or pending (for a ticket no longer in progress: done or skipped).')),
  },
  { $id: 'WorkflowTicketStage' },
);

export const WorkflowTicketDetails = Type.Object(
  {
    id: Type.String(),
    wf_workflow_id: Type.String(),
    wf_ticket_stage_id: Type.String(),
    user_id: Type.String(),
    wf_category_id: Nullable(Type.String()),
    wf_status_id: Type.Integer({
      description: '1 in progress, 2 solved, 3 rejected, 4 cancelled (values other than 1 assumed)',
    }),
    created_at: Stamp,
    updated_at: Stamp,
    solved_at: Nullable(Type.String({ format: 'date-time', ...assumed() })),
    wfStatus: Type.String(),
    wfWorkflow: Type.Object({
      id: Type.String(),
      name: Type.String(),
      brief: Type.String(),
      is_hidden: Type.Boolean(),
    }),
    wfTicketStages: Type.Array(ref(WorkflowTicketStage)),
    fieldValues: Type.Record(Type.String(), Type.String(), assumed('The values submitted with the start form.')),
  },
  { $id: 'WorkflowTicketDetails' },
);
export type WorkflowTicketDetails = Static<typeof WorkflowTicketDetails>;

export const workflowSchemas = [
  WorkflowField,
  WorkflowCategory,
  WorkflowBreadcrumb,
  WorkflowCurrentCategory,
  UserGroupVisible,
  WorkflowCatalogEntry,
  WorkflowCatalog,
  WorkflowStartForm,
  WorkflowStartRequest,
  WorkflowStartResult,
  WorkflowTicketItem,
  WorkflowTicketPage,
  WorkflowTicketStage,
  WorkflowTicketDetails,
];
