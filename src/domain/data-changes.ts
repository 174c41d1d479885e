// A sandbox's data changes against the base world it was made from, as a scenario's data block (docs/data.md,
// "Exporting changes"): arrange by hand, export, commit the block in a scenario file, replay it anywhere.
import type { DataEntry } from '../schemas/scenario.js';
import { fail } from '../errors.js';
import type { SandboxStore } from '../store/store.js';
import { recordCollections } from './records.js';

type AnyRecord = Readonly<Record<string, unknown>> & { readonly id: string };
type Found = { collection: string; tenant: string; record: AnyRecord };

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

/**
 * The changes of a sandbox against its base world, as a data block that replays them on that world: records it
 * made as `create` (whole, ids included; referenced ones first, each collection's in its order), records it changed
 * as `patch` with only the fields that changed, records it removed as `remove` (those naming others first), in that
 * order. Collections the sandbox never wrote are not looked at (they are the base's own arrays).
 */
export function dataChanges(store: SandboxStore, collections: readonly string[]): DataEntry[] {
  const created: Found[] = [];
  const patches: DataEntry[] = [];
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
        else if (was !== record) {
          const set: Record<string, unknown> = {};
          for (const [field, value] of Object.entries(record)) if (!same(value, was[field])) set[field] = value;
          if (Object.keys(set).length > 0) patches.push({ patch: collection, tenant, id: record.id, set });
        }
      }
      for (const record of before.values()) removed.push({ collection, tenant, record });
    }
  }
  return [
    // the records a factory made with them are in the export too: replayed alone, not made twice
    ...referencedFirst(created, true).map(
      (f): DataEntry => ({ create: f.collection, tenant: f.tenant, record: f.record, dependents: false }),
    ),
    ...patches,
    ...referencedFirst(removed)
      .reverse()
      .map((f): DataEntry => ({ remove: f.collection, tenant: f.tenant, id: f.record.id })),
  ];
}
