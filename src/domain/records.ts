// The records API of the control plane (/__admin/data, docs/data.md): any record of a tenant's data read, created,
// patched or deleted through the store's one write path, checked against its collection's own schema.
import type { TObject } from '@sinclair/typebox';
import { checkOrThrow, CheckError } from '../schemas/check.js';
import { fail } from '../errors.js';
import { storedRecords } from '../schemas/stored-records.js';
import { findById, isCollectionName, type CollectionName, type SandboxStore, type Tenant } from '../store/store.js';
import { newUuid } from '../store/ids.js';
import { closest } from '../shared/closest.js';
import { textOf } from '../shared/matchers.js';
import { checkReferences, referrersOf } from './references.js';
import { factoryContext, makeRecord } from './factories.js';
import { checkRoom, RecordDraft } from './record-draft.js';

type AnyRecord = Record<string, unknown> & { id: string };

/** The collections whose records have an id: the ones this API serves. */
export const recordCollections: string[] = storedRecords.map((r) => r.name);

/** The collection of that name, checked: an unknown one is a 404 listing the known. */
export function recordCollection(name: string): { name: CollectionName; schema: TObject } {
  if (!isCollectionName(name) || !recordCollections.includes(name))
    throw fail.notFound(`unknown collection "${name.slice(0, 80)}"; known: ${recordCollections.join(', ')}`);
  return { name, schema: storedRecords.find((r) => r.name === name)!.plain };
}

export function recordTenant(store: SandboxStore, tenantId: string): Tenant {
  const tenant = store.tenant(tenantId);
  if (!tenant) {
    const known = store.tenants().map((t) => t.tenant.id);
    throw fail.notFound(`unknown tenant "${tenantId.slice(0, 80)}"; known: ${known.join(', ')}`);
  }
  return tenant;
}

const recordsOf = (tenant: Tenant, name: CollectionName) => tenant[name] as unknown as readonly AnyRecord[];

export type RecordQuery = { offset: number; limit: number; where: Record<string, string> };

/**
 * The records of a collection, filtered by field equality (each value compared as text: `isActive=true`,
 * `departmentId=…`), in store order, paged. A field the records do not have is a 400 naming it.
 */
export function listRecords(tenant: Tenant, collection: string, query: RecordQuery) {
  const { name, schema } = recordCollection(collection);
  const fields = Object.entries(query.where);
  for (const [field] of fields) {
    if (!Object.hasOwn(schema.properties, field))
      throw fail.badRequest(
        `unknown filter "${field.slice(0, 80)}": ${name} records have ${Object.keys(schema.properties).join(', ')}`,
      );
  }
  const matching = recordsOf(tenant, name).filter((r) => fields.every(([field, value]) => textOf(r[field]) === value));
  return { total: matching.length, records: matching.slice(query.offset, query.offset + query.limit) };
}

export function getRecord(tenant: Tenant, collection: string, id: string): AnyRecord {
  const { name } = recordCollection(collection);
  const found = findById(recordsOf(tenant, name), id);
  if (!found) throw fail.notFound(`no ${name} record "${id.slice(0, 80)}" in tenant ${tenant.tenant.id}`);
  return found;
}

/** A field the records do not have is refused: a misspelt field would be kept and never read. */
function knownFields(name: CollectionName, schema: TObject, record: Record<string, unknown>): void {
  const unknown = Object.keys(record).find((field) => !Object.hasOwn(schema.properties, field));
  if (unknown === undefined) return;
  const nearest = closest(unknown, Object.keys(schema.properties)).join(', ');
  throw fail.badRequest(`${name} records have no field "${unknown.slice(0, 80)}"; closest: ${nearest}`, [
    { field: `body.${unknown.slice(0, 80)}`, message: `not a field of the record (closest: ${nearest})` },
  ]);
}

/** The one check of a record about to be written: its collection's schema, as a 400 naming the field. */
function checked(name: CollectionName, schema: TObject, record: Record<string, unknown>): AnyRecord {
  knownFields(name, schema, record);
  try {
    return checkOrThrow(schema, record, `${name} record`) as AnyRecord;
  } catch (err) {
    if (!(err instanceof CheckError)) throw err;
    throw fail.badRequest(err.message, [{ field: `body${err.path.replaceAll('/', '.')}`, message: err.expected }]);
  }
}

/**
 * now: the sandbox clock's time, for the stamps a factory fills (default: the seed's reference date).
 * dependents: false makes the record alone, without what its factory would make for it (a user's employment and
 * groups): a data block exported from a sandbox lists those itself.
 * count: how many records alike. maxRecords: the bound of --max-records (none: a scenario's data block).
 */
export type CreateOptions = { now?: Date; dependents?: boolean; count?: number; maxRecords?: number };

/** What a create made: the records of the collection named, and those they needed (by collection). */
export type Created = { records: AnyRecord[]; dependents: Record<string, AnyRecord[]> };

/**
 * Makes one record into the draft: the fields not given are filled as the seeder fills them
 * (src/domain/factories.ts), from draws the sandbox's store mints, and stamps at `now`; the id is minted when not
 * given. A `tenantId` field, when the records have one, is the tenant's. An id that exists is a 409; a field naming
 * a record the tenant does not have is a 400. What the record needs (a user's employment) is made with it and added
 * to `created.dependents`.
 */
function draftRecord(
  draft: RecordDraft,
  collection: string,
  input: Record<string, unknown>,
  { now, dependents }: { now: Date; dependents: boolean },
  created: Created,
): void {
  const tenant = draft.tenant;
  const { name, schema } = recordCollection(collection);
  knownFields(name, schema, input);
  if ('tenantId' in schema.properties && input.tenantId !== undefined && input.tenantId !== tenant.tenant.id)
    throw fail.badRequest(`tenantId: a record of tenant ${tenant.tenant.id} cannot name another tenant`);
  const withTenant = 'tenantId' in schema.properties ? { tenantId: tenant.tenant.id } : {};
  const id = typeof input.id === 'string' ? input.id : newUuid(draft, name);
  if (findById(recordsOf(tenant, name), id))
    throw fail.conflict(`a ${name} record "${id}" exists in tenant ${tenant.tenant.id}`);
  // the fields given name existing records before a factory reads them
  checkReferences(tenant, name, input);
  const made = makeRecord(factoryContext(draft, name, now), name, schema, { id, ...withTenant, ...input });
  const record = checked(name, schema, made.record);
  checkReferences(tenant, name, record);
  draft.append(name, record);
  created.records.push(record);
  if (!dependents) return;
  for (const dependent of made.dependents) {
    const { schema: dependentSchema } = recordCollection(dependent.collection);
    const written = checked(dependent.collection, dependentSchema, dependent.record);
    draft.append(dependent.collection, written);
    const list = created.dependents[dependent.collection] ?? [];
    list.push(written);
    created.dependents[dependent.collection] = list;
  }
  // the groups it joins are changed, not answered nor checked again: a group holds every member, and both would
  // grow with the tenant; the factory joins only groups that exist
  for (const group of made.joins ?? []) draft.join(group, id);
}

/** Makes `count` records alike from `record` into a draft, one step per record. */
function* draftRecords(
  draft: RecordDraft,
  collection: string,
  record: Record<string, unknown>,
  { count = 1, now = new Date(draft.store.meta.refDate), dependents = true, maxRecords }: CreateOptions,
): Generator<void, Created> {
  const { name } = recordCollection(collection);
  // refused before any work: the bound counts only the records named (their dependents are checked at commit)
  if (maxRecords !== undefined) checkRoom(draft.store, draft.real, name, count, maxRecords);
  const created: Created = { records: [], dependents: {} };
  for (let i = 0; i < count; i++) {
    draftRecord(draft, collection, record, { now, dependents }, created);
    yield;
  }
  return created;
}

/**
 * Creates `count` records alike from `record` (a scenario's data block): each made as the seeder makes one, with
 * what it needs, checked; then all written at once. Nothing is written when one is refused.
 */
export function createRecords(
  store: SandboxStore,
  tenant: Tenant,
  collection: string,
  record: Record<string, unknown>,
  options: CreateOptions = {},
): Created {
  const draft = new RecordDraft(store, tenant, options.count);
  const steps = draftRecords(draft, collection, record, options);
  let step = steps.next();
  while (!step.done) step = steps.next();
  draft.checkRooms(options.maxRecords);
  store.transaction(() => draft.commit());
  return step.value;
}

/** How long a create works before it lets other requests through (the event loop is never held longer). */
const sliceMs = 10;
/** How often a create starts over when its sandbox was written while it was made, before it gives up (409). */
const attempts = 3;

/** Records made and checked, not yet written: `commit` writes them all at once (in the caller's unit of work). */
export type RecordsDraft = { created: Created; commit(): void };

/**
 * Makes records as createRecords does, for the records API: in slices of about 10 ms with other requests let
 * through between them, and answers the draft for the caller to commit. A write to the sandbox while they were
 * made (another request) starts them over from the new state, so what is written is exactly what one uninterrupted
 * create would write; after 3 tries, a 409 says so. A refused record leaves no trace, not even a minted id.
 */
export async function draftRecordsInSlices(
  store: SandboxStore,
  tenantId: string,
  collection: string,
  record: Record<string, unknown>,
  options: CreateOptions,
): Promise<RecordsDraft> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    const draft = new RecordDraft(store, recordTenant(store, tenantId), options.count);
    const steps = draftRecords(draft, collection, record, options);
    let sliceStart = performance.now();
    let step = steps.next();
    while (!step.done) {
      if (performance.now() - sliceStart > sliceMs) {
        await new Promise((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
      step = steps.next();
    }
    // the last slice's turn ends here: the checks, the commit and the answer's first slice take the next one
    await new Promise((resolve) => setImmediate(resolve));
    if (draft.stale) continue;
    draft.checkRooms(options.maxRecords);
    return { created: step.value, commit: () => draft.commit() };
  }
  throw fail.conflict(
    `sandbox ${store.sandbox} was written ${attempts} times while ${options.count ?? 1} ${collection} records were ` +
      'made; nothing was written: retry, or make fewer at a time',
  );
}

/** Changes the fields given; id and tenantId cannot change (400). The result is checked whole. */
export function patchRecord(
  store: SandboxStore,
  tenant: Tenant,
  collection: string,
  id: string,
  patch: Record<string, unknown>,
) {
  const { name, schema } = recordCollection(collection);
  const current = getRecord(tenant, collection, id);
  // a record whose schema has no tenantId field still has a tenant: the one of its address
  const now: Record<string, unknown> = { id: current.id, tenantId: current.tenantId ?? tenant.tenant.id };
  for (const field of ['id', 'tenantId']) {
    if (patch[field] !== undefined && patch[field] !== now[field])
      throw fail.badRequest(`${field} of a record cannot change (it is "${String(now[field])}")`);
  }
  const next = checked(name, schema, { ...current, ...patch });
  checkReferences(tenant, name, next, new Set(Object.keys(patch)));
  return store.update(tenant, name as never, current as never, next as never) as unknown as AnyRecord;
}

/**
 * Deletes a record no other record names (by the reference map, src/domain/references.ts); one that others point
 * to is a 409 naming them (delete or patch those first): the portal's operations would otherwise meet a dangling
 * reference the real portal never has.
 */
export function deleteRecord(store: SandboxStore, tenant: Tenant, collection: string, id: string): void {
  const { name } = recordCollection(collection);
  getRecord(tenant, collection, id);
  const pointing = referrersOf(tenant, name, id);
  if (pointing.length > 0) {
    const listed = pointing.slice(0, 5).join(', ') + (pointing.length > 5 ? ` and ${pointing.length - 5} more` : '');
    throw fail.conflict(`${name} record "${id}" is named by ${listed}: delete or patch those first`);
  }
  store.remove(tenant, name, (r) => (r as unknown as AnyRecord).id === id);
}
