// A sandbox's data changes against the base world it was made from, as a scenario's data block (docs/data.md,
// "Exporting changes"): arrange by hand, export, commit the block in a scenario file, replay it anywhere.
import type { DataEntry } from '../schemas/scenario.js';
import { fail } from '../errors.js';
import type { WfTicketRecord } from '../schemas/workflow.js';
import type { SandboxStore } from '../store/store.js';
import { recordCollections } from './records.js';
import { movedByClockOnly } from './workflow.js';

type AnyRecord = Readonly<Record<string, unknown>> & { readonly id: string };
type Found = { collection: string; tenant: string; record: AnyRecord };
type Patched = Found & { was: AnyRecord };
type DataPatch = Extract<DataEntry, { patch: string }>;

/** The collections asked for (`?collections=a,b`), checked: an unknown name is a 400 listing the known. */
export function exportedCollections(list: string | undefined): string[] {
  if (list === undefined) return recordCollections;
  const names = list
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  const unknown = names.find((n) => !recordCollections.includes(n));
  if (unknown !== undefined)
    throw fail.badRequest(`unknown collection "${unknown.slice(0, 80)}"; known: ${recordCollections.join(', ')}`, [
      { field: 'query.collections', message: 'names an unknown collection' },
    ]);
  return recordCollections.filter((n) => names.includes(n));
}

/** Longer than any record id (a UUID is 36 characters, a generated key a few dozen). */
const maxIdLength = 128;

const same = (a: unknown, b: unknown) => a === b || JSON.stringify(a) === JSON.stringify(b);

/**
 * Orders records so that one naming another of the list (a field equal to its id, or a list holding it) comes after
 * it; otherwise they keep their order (collections in the store's order, records in theirs). With `inCollectionOrder`,
 * a record also comes after those before it in its own collection, so replayed creates append each collection's
 * records in the order the sandbox has them (lists that sort by a tied date answer the same order). A cycle, which no
 * create can replay, is cut where it closes.
 */
function referencedFirst(found: Found[], inCollectionOrder = false): Found[] {
  const byId = new Map<string, Found>();
  const previous = new Map<Found, Found>();
  const last = new Map<string, Found>();
  for (const f of found) {
    byId.set(`${f.tenant}/${f.record.id}`, f);
    const collection = `${f.tenant}/${f.collection}`;
    const before = last.get(collection);
    if (inCollectionOrder && before) previous.set(f, before);
    last.set(collection, f);
  }
  const out: Found[] = [];
  const state = new Map<Found, 'visiting' | 'done'>();
  const visit = (f: Found) => {
    if (state.has(f)) return;
    // the records before it in its collection first, oldest first: a loop, as a collection may hold thousands
    const earlier: Found[] = [];
    for (let p = previous.get(f); p && !state.has(p); p = previous.get(p)) earlier.push(p);
    for (let i = earlier.length - 1; i >= 0; i--) visit(earlier[i]!);
    if (state.has(f)) return;
    state.set(f, 'visiting');
    for (const [field, value] of Object.entries(f.record)) {
      if (field === 'id') continue;
      for (const v of Array.isArray(value) ? value : [value]) {
        // a long text is never an id: not hashed as a key (a record of uploads or long texts made this seconds)
        const named = typeof v === 'string' && v.length <= maxIdLength ? byId.get(`${f.tenant}/${v}`) : undefined;
        if (named && named !== f) visit(named);
      }
    }
    state.set(f, 'done');
    out.push(f);
  };
  for (const f of found) visit(f);
  return out;
}

/** A list of texts (ids): one whose change a patch can say by its items. */
const isTextList = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((v) => typeof v === 'string');

/**
 * `now` as `was` with some items taken out (`drop`) and others put at its end (`add`), when that is what happened
 * and says less than the whole list; else null. Applied, `was` less `drop` then `add` is `now` again, exactly.
 */
function listChange(was: readonly string[], now: readonly string[]): { drop: string[]; add: string[] } | null {
  const present = new Set(now);
  const drop = [...new Set(was.filter((v) => !present.has(v)))];
  const dropped = new Set(drop);
  const kept = was.filter((v) => !dropped.has(v));
  if (kept.length > now.length || kept.some((v, i) => now[i] !== v)) return null; // reordered: not a list change
  const add = now.slice(kept.length);
  return drop.length + add.length < now.length ? { drop, add } : null;
}

/**
 * The patch that makes `was` into `record`: the fields that changed, whole; with `lists`, a list of texts that only
 * lost and gained items (a group's members) as those items (`drop`, `add`) instead. Null when nothing changed.
 */
function patchOf(p: Patched, lists: boolean): DataPatch | null {
  const set: Record<string, unknown> = {};
  const drop: Record<string, string[]> = {};
  const add: Record<string, string[]> = {};
  for (const [field, value] of Object.entries(p.record)) {
    const before = p.was[field];
    if (same(value, before)) continue;
    const change = lists && isTextList(before) && isTextList(value) ? listChange(before, value) : null;
    if (!change) set[field] = value;
    else {
      if (change.drop.length > 0) drop[field] = change.drop;
      if (change.add.length > 0) add[field] = change.add;
    }
  }
  const has = (o: object) => Object.keys(o).length > 0;
  if (!has(set) && !has(drop) && !has(add)) return null;
  return {
    patch: p.collection,
    tenant: p.tenant,
    id: p.record.id,
    ...(has(set) || !lists ? { set } : {}),
    ...(has(drop) ? { drop } : {}),
    ...(has(add) ? { add } : {}),
  } as DataPatch;
}

/** What a sandbox changed against its base world, record by record; collections it never wrote are skipped. */
function changedRecords(store: SandboxStore, collections: readonly string[]) {
  const created: Found[] = [];
  const patched: Patched[] = [];
  const removed: Found[] = [];
  for (const view of store.tenants()) {
    const tenant = view.tenant.id;
    const base = store.base.data.tenants[tenant];
    for (const collection of collections) {
      const list = view[collection as keyof typeof view] as unknown as readonly AnyRecord[];
      const baseList = (base?.[collection as keyof typeof base] ?? []) as unknown as readonly AnyRecord[];
      if (list === baseList) continue;
      const before = new Map(baseList.map((r) => [r.id, r]));
      for (const record of list) {
        const was = before.get(record.id);
        before.delete(record.id);
        if (!was) created.push({ collection, tenant, record });
        else if (was !== record) patched.push({ collection, tenant, record, was });
      }
      for (const record of before.values()) removed.push({ collection, tenant, record });
    }
  }
  return { created, patched, removed };
}

// the records a factory made with them are in the export too: replayed alone, not made twice
const createEntries = (created: Found[]) =>
  referencedFirst(created, true).map(
    (f): DataEntry => ({ create: f.collection, tenant: f.tenant, record: f.record, dependents: false }),
  );
const removeEntries = (removed: Found[]) =>
  referencedFirst(removed)
    .reverse()
    .map((f): DataEntry => ({ remove: f.collection, tenant: f.tenant, id: f.record.id }));

/**
 * The changes of a sandbox against its base world, as a data block that replays them on that world: records it
 * made as `create` (whole, ids included; referenced ones first, each collection's in its order), records it changed
 * as `patch` with only the fields that changed, records it removed as `remove` (those naming others first), in that
 * order. Collections the sandbox never wrote are not looked at (they are the base's own arrays).
 */
export function dataChanges(store: SandboxStore, collections: readonly string[]): DataEntry[] {
  const { created, patched, removed } = changedRecords(store, collections);
  const patches = patched.map((p) => patchOf(p, false)).filter((e) => e !== null);
  return [...createEntries(created), ...patches, ...removeEntries(removed)];
}

/** A bug capture's changes: the arranged ones (`data`) apart from those that followed from the clock. */
export type CapturedChanges = { data: DataEntry[]; followed: DataEntry[] };

/**
 * Every change of a sandbox against its base world, as a bug capture holds it (docs/data.md, "Bug capture"):
 * `data` as dataChanges answers it for every collection, but a list that only gained or lost items (a group's
 * members when a user joined) patched by those items; and `followed` apart, the base world's tickets the clock
 * alone moved on (each one exactly what the clock makes of its base record: any other change keeps it in `data`).
 * Applied after `data`, they make the same sandbox.
 */
export function capturedChanges(store: SandboxStore): CapturedChanges {
  const { created, patched, removed } = changedRecords(store, recordCollections);
  const patches: DataEntry[] = [];
  const followed: DataEntry[] = [];
  for (const p of patched) {
    const entry = patchOf(p, true);
    if (!entry) continue;
    const processes = p.collection === 'wfTickets' ? store.tenant(p.tenant)?.wfProcesses : undefined;
    const byClock =
      processes !== undefined &&
      movedByClockOnly(p.was as unknown as WfTicketRecord, p.record as unknown as WfTicketRecord, processes);
    (byClock ? followed : patches).push(entry);
  }
  return { data: [...createEntries(created), ...patches, ...removeEntries(removed)], followed };
}
