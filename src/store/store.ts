// One sandbox's data: the shared base world plus what the sandbox changed (see docs/store.md).
import { createHash } from 'node:crypto';
import { TenantData, type Data } from '../schemas/tenant-data.js';
import { cached, deepFreeze, type BaseWorld, type WorldStamp } from './world.js';
import { contentOf } from './file-bytes.js';
import type { FileRecord } from '../schemas/records.js';

/** An open transaction of a store (SandboxStore.begin). */
export type StoreTransaction = { commit(): void; rollback(): void };

/** The collections of a tenant (every field of TenantData but the tenant record itself). */
export type CollectionName = { [K in keyof TenantData]: TenantData[K] extends unknown[] ? K : never }[keyof TenantData];
export type Item<K extends CollectionName> = TenantData[K][number];
/** The collections of records (objects), which update can patch. */
export type RecordCollection = { [K in CollectionName]: Item<K> extends object ? K : never }[CollectionName];
/**
 * How a collection array came from the one before it when records were replaced in place (update, updateWhere):
 * what an index over the old array needs to carry itself over instead of being built again (src/domain/people-index.ts).
 * Weak: it lives as long as the array.
 */
const updates = new WeakMap<readonly unknown[], { from: readonly unknown[]; changed: readonly number[] }>();
export const updatedFrom = (list: readonly unknown[]) => updates.get(list);

// Maps by id, per collection array: a write replaces the array, so a map never goes stale.
const idMaps = new WeakMap<readonly unknown[], Map<string, unknown>>();
/** The record with `id` in a collection of the store, without scanning it (sessions and devices pile up). */
export const findById = <T extends { id: string }>(list: readonly T[], id: string) =>
  cached(idMaps, list, () => new Map(list.map((r) => [r.id, r]))).get(id) as T | undefined;
const positionMaps = new WeakMap<readonly unknown[], Map<string, number>>();
/** Where the record with `id` stands in a collection of the store (not for a draft's list, which grows). */
export const positionById = (list: readonly { id: string }[], id: string): number | undefined =>
  cached(positionMaps, list, () => new Map(list.map((r, i) => [r.id, i]))).get(id);
/**
 * Appends to a list no store holds (a draft of records about to be written, src/domain/record-draft.ts) and keeps
 * its map by id current, so findById over a list that grows stays one look-up instead of a rebuild per record.
 */
export function appendIndexed<T extends { id: string }>(list: T[], record: T): void {
  list.push(record);
  (idMaps.get(list) as Map<string, unknown> | undefined)?.set(record.id, record);
}
/** One step only: `from`'s own step is dropped, else the chain kept every version of the collection alive. */
function noteUpdate(copy: readonly unknown[], from: readonly unknown[], changed: readonly number[]): void {
  updates.delete(from);
  updates.set(copy, { from, changed });
}

/** A tenant as one sandbox sees it. Read-only: every change goes through the store (insert, update, remove). */
export type Tenant = {
  readonly [K in keyof TenantData]: TenantData[K] extends Array<infer R> ? readonly R[] : TenantData[K];
};

const tenantKeys = Object.keys(TenantData.properties) as Array<keyof TenantData>;
export const collectionNames = tenantKeys.filter((key): key is CollectionName => key !== 'tenant');
const collectionSet = new Set<string>(collectionNames);
export const isCollectionName = (name: string): name is CollectionName => collectionSet.has(name);

/** A change as the log keeps it: positions are those of the collection when the change was made. */
export type Op =
  | ['i', string, CollectionName, unknown]
  | ['u', string, CollectionName, number, object]
  | ['r', string, CollectionName, number[]]
  | ['reset', WorldStamp]
  | ['replace', EncodedState];

/** A collection as a run-length list over the base: [from, to) ranges of base records, or records of the sandbox. */
export type EncodedCollection = Array<[number, number] | unknown>;
export type EncodedTenant = { tenant?: object; collections: Record<string, EncodedCollection> };
/** A sandbox's data relative to its base: meta, and per tenant present only the collections that differ. */
export type EncodedState = { meta: Data['meta']; tenants: Record<string, EncodedTenant> };

const setField = (view: Tenant, key: keyof TenantData, value: unknown) =>
  Object.defineProperty(view, key, { value, enumerable: true, writable: false, configurable: true });
const makeView = (source: Readonly<Record<string, unknown>>): Tenant => {
  const view = {} as Tenant;
  for (const key of tenantKeys) setField(view, key, source[key]);
  return view;
};

/**
 * A record as the store keeps it, frozen. A file's content that comes in as base64 (an import, a replayed log, the
 * records API) is kept as its bytes (src/store/file-bytes.ts), which are written out as base64 again.
 */
function kept<T>(name: CollectionName, record: T): T {
  if (name === 'files') {
    const content = (record as FileRecord).contentBase64;
    if (typeof content === 'string')
      return deepFreeze({ ...record, contentBase64: contentOf(Buffer.from(content, 'base64')) });
  }
  return deepFreeze(record);
}

/**
 * The data of one sandbox. Reads see the base world's frozen collections until the sandbox writes one; a write
 * makes a new frozen array for that collection (records are shared, the changed one is new), so a sandbox costs
 * a few objects until it writes, a reset drops its changes, and a stray mutation throws.
 */
export class SandboxStore {
  readonly sandbox: string;
  base: BaseWorld;
  meta: Data['meta'];
  /** moves with every change: what is derived from the data and kept (answers, indexes) compares it */
  version = 0;
  private ids: readonly string[];
  private views = new Map<string, Tenant>();
  /** changes not yet taken by the log (null: nobody keeps them) */
  private pending: Op[] | null;
  private takenSequence: number;
  private undo: Array<() => void> | null = null;

  constructor(sandbox: string, base: BaseWorld, options: { recordChanges: boolean }) {
    this.sandbox = sandbox;
    this.base = base;
    this.meta = { ...base.data.meta };
    this.ids = Object.keys(base.data.tenants);
    this.pending = options.recordChanges ? [] : null;
    this.takenSequence = this.meta.sequence;
  }

  tenant(id: string): Tenant | undefined {
    // a tenant the base does not have got its view in applyState
    return this.ids.includes(id) ? cached(this.views, id, () => makeView(this.base.data.tenants[id]!)) : undefined;
  }

  tenants(): Tenant[] {
    return this.ids.map((id) => this.tenant(id)!);
  }

  /** The next id, secret or code: from the seed, the sandbox and a counter, so a replay mints the same ones. */
  mint(purpose: string): Buffer {
    return this.mintAt(purpose, this.meta.sequence++);
  }

  /** What `mint` answers at position `n` of the sequence, without moving it (a draft mints ahead, then commits). */
  mintAt(purpose: string, n: number): Buffer {
    return createHash('sha256').update(`${this.meta.seed}:${this.sandbox}:${purpose}:${n}`).digest();
  }

  /** Moves the sequence to where a committed draft's mints ended. */
  advanceSequence(to: number): void {
    // a transaction that fails puts it back, as it does for mint
    if (to < this.meta.sequence) throw new Error('store: the sequence only moves forward');
    this.meta.sequence = to;
  }

  insert<K extends CollectionName>(tenant: Tenant, name: K, record: Item<K>): Item<K> {
    return this.insertMany(tenant, name, [record])[0]!;
  }

  /** Appends records with one copy of the collection (a copy per record made N inserts cost N × its length). */
  insertMany<K extends CollectionName>(tenant: Tenant, name: K, records: readonly Item<K>[]): Item<K>[] {
    if (records.length === 0) return [];
    const frozen = records.map((record) => kept(name, record));
    this.setCollection(tenant, name, [...tenant[name], ...frozen]);
    for (const record of frozen) this.pending?.push(['i', tenant.tenant.id, name, record]);
    return frozen;
  }

  /** Replaces `record` (found by identity, else by id) with its copy changed by `patch`; answers the new record. */
  update<K extends RecordCollection>(tenant: Tenant, name: K, record: Item<K>, patch: Partial<Item<K>>): Item<K> {
    const list = tenant[name] as readonly Item<K>[];
    let at = list.indexOf(record);
    if (at < 0 && 'id' in record) at = list.findIndex((r) => 'id' in r && r.id === record.id);
    if (at < 0) throw new Error(`store: the ${name} record to update is not in the sandbox`);
    const next = kept(name, { ...list[at]!, ...patch } as Item<K>);
    const copy = list.slice();
    copy[at] = next;
    this.setCollection(tenant, name, copy);
    noteUpdate(copy, list, [at]);
    this.pending?.push(['u', tenant.tenant.id, name, at, next]);
    return next;
  }

  /** Changes every record that `matches` with what `patch` answers for it; answers how many changed. */
  updateWhere<K extends RecordCollection>(
    tenant: Tenant,
    name: K,
    matches: (r: Item<K>) => boolean,
    patch: (r: Item<K>) => Partial<Item<K>>,
  ): number {
    const list = tenant[name] as readonly Item<K>[];
    let copy: Item<K>[] | null = null;
    const changed: number[] = [];
    for (let i = 0; i < list.length; i++) {
      const r = list[i]!;
      if (!matches(r)) continue;
      copy ??= list.slice();
      copy[i] = kept(name, { ...r, ...patch(r) } as Item<K>);
      changed.push(i);
    }
    if (!copy) return 0;
    this.setCollection(tenant, name, copy);
    noteUpdate(copy, list, changed);
    for (const i of changed) this.pending?.push(['u', tenant.tenant.id, name, i, copy[i]!]);
    return changed.length;
  }

  /** Removes every record that `matches`; answers how many were removed. */
  remove<K extends CollectionName>(tenant: Tenant, name: K, matches: (r: Item<K>) => boolean): number {
    const list = tenant[name] as readonly Item<K>[];
    const at: number[] = [];
    for (let i = 0; i < list.length; i++) if (matches(list[i]!)) at.push(i);
    if (at.length === 0) return 0;
    this.removeAt(tenant, name, at);
    this.pending?.push(['r', tenant.tenant.id, name, at]);
    return at.length;
  }

  /**
   * Opens a transaction: `rollback` undoes every change made since (and every id minted), `commit` keeps them. One
   * opened inside another is a savepoint: its rollback undoes its own changes, its commit hands them to the outer one.
   */
  begin(): StoreTransaction {
    const outer = this.undo;
    const undo: Array<() => void> = [];
    const sequence = this.meta.sequence;
    const pendingLength = this.pending?.length ?? 0;
    this.undo = undo;
    let open = true;
    const close = () => {
      open = false;
      this.undo = outer;
    };
    return {
      commit: () => {
        if (!open) return;
        close();
        for (const step of undo) outer?.push(step);
      },
      rollback: () => {
        if (!open) return;
        for (let i = undo.length - 1; i >= 0; i--) undo[i]!();
        this.meta.sequence = sequence;
        this.pending?.splice(pendingLength);
        this.version++;
        close();
      },
    };
  }

  /** Runs `work`; if it throws, every change it made (and every id it minted) is undone. */
  transaction<T>(work: () => T): T {
    const transaction = this.begin();
    try {
      const result = work();
      transaction.commit();
      return result;
    } catch (err) {
      transaction.rollback();
      throw err;
    }
  }

  /** The changes since the last call, for the log; null when nothing changed. */
  takeChanges(): { ops: Op[]; sequence: number } | null {
    if (!this.pending || (this.pending.length === 0 && this.meta.sequence === this.takenSequence)) return null;
    const changes = { ops: this.pending, sequence: this.meta.sequence };
    this.pending = [];
    this.takenSequence = this.meta.sequence;
    return changes;
  }

  /** Back to a base world: every change dropped (undone with the rest when a transaction fails). */
  reset(base: BaseWorld): void {
    if (this.undo) {
      const was = { base: this.base, meta: this.meta, ids: this.ids, views: new Map(this.views) };
      this.undo.push(() => {
        this.base = was.base;
        this.meta = was.meta;
        this.ids = was.ids;
        this.views = was.views;
      });
    }
    this.base = base;
    this.meta = { ...base.data.meta };
    this.ids = Object.keys(base.data.tenants);
    this.views.clear();
    this.version++;
    this.pending?.push(['reset', base.stamp]);
  }

  /** The whole data, as a snapshot exports it (plain objects in the schema's key order). */
  toData(): Data {
    const tenants: Data['tenants'] = {};
    for (const id of this.ids) tenants[id] = { ...this.tenant(id)! } as TenantData;
    return { meta: { ...this.meta }, tenants };
  }

  /** Takes another sandbox's data (a snapshot import): collections equal to the base's share them again. */
  replace(data: Data): void {
    this.applyState(encodeData(this.base, data));
    this.pending?.push(['replace', this.encode()]);
  }

  /** This sandbox relative to its base: what a compacted snapshot stores. */
  encode(): EncodedState {
    const tenants: Record<string, EncodedTenant> = {};
    for (const id of this.ids) {
      const view = this.tenant(id)!;
      const base = this.base.data.tenants[id];
      const encoded: EncodedTenant = { collections: {} };
      if (!base || view.tenant !== base.tenant) encoded.tenant = view.tenant;
      for (const key of collectionNames) {
        if (base && view[key] === base[key]) continue;
        encoded.collections[key] = encodeCollection(this.base, base?.[key] ?? [], view[key]);
      }
      tenants[id] = encoded;
    }
    return { meta: { ...this.meta }, tenants };
  }

  /** Replays one logged change (start-up); a change that does not fit the data throws. */
  apply(op: Op, worlds: { forStamp(stamp: WorldStamp, source: string): BaseWorld }): void {
    switch (op[0]) {
      case 'reset':
        this.reset(worlds.forStamp(op[1], 'a logged reset'));
        break;
      case 'replace':
        this.applyState(op[1]);
        break;
      case 'i':
        this.insert(this.replayTenant(op[1]), op[2], op[3] as Item<CollectionName>);
        break;
      case 'u': {
        const tenant = this.replayTenant(op[1]);
        const record = tenant[op[2]][op[3]];
        if (!record) throw new Error(`no ${op[2]} record at ${op[3]}`);
        const list = (tenant[op[2]] as readonly unknown[]).slice();
        list[op[3]] = kept(op[2], op[4]);
        this.setCollection(tenant, op[2], list);
        break;
      }
      case 'r': {
        const tenant = this.replayTenant(op[1]);
        const length = tenant[op[2]].length;
        if (op[3].some((i) => !(i >= 0 && i < length))) throw new Error(`no ${op[2]} record at ${op[3].join(',')}`);
        this.removeAt(tenant, op[2], op[3]);
        break;
      }
      default:
        throw new Error(`unknown change ${JSON.stringify(op).slice(0, 80)}`);
    }
    this.pending?.splice(0);
  }

  /** Sets the sequence a replayed log line recorded. */
  replayedSequence(sequence: number): void {
    this.meta.sequence = sequence;
    this.takenSequence = sequence;
  }

  applyState(state: EncodedState): void {
    this.meta = { ...state.meta };
    this.ids = Object.keys(state.tenants);
    this.views.clear();
    for (const [id, encoded] of Object.entries(state.tenants)) {
      const base = this.base.data.tenants[id];
      const tenantRecord = encoded.tenant ? deepFreeze(encoded.tenant) : base?.tenant;
      if (!tenantRecord) throw new Error(`tenant ${id} is not in the base world and has no tenant record`);
      const view = makeView(base ?? { tenant: tenantRecord });
      setField(view, 'tenant', tenantRecord);
      for (const key of collectionNames) {
        const list = encoded.collections[key];
        if (list) setField(view, key, decodeCollection(key, base?.[key] ?? [], list, `${id}.${key}`));
        else if (!base) setField(view, key, Object.freeze([]));
      }
      this.views.set(id, view);
    }
    this.version++;
  }

  private replayTenant(id: string): Tenant {
    const tenant = this.tenant(id);
    if (!tenant) throw new Error(`no tenant ${id}`);
    return tenant;
  }

  private removeAt(tenant: Tenant, name: CollectionName, at: readonly number[]): void {
    const gone = new Set(at);
    this.setCollection(
      tenant,
      name,
      (tenant[name] as readonly unknown[]).filter((_, i) => !gone.has(i)),
    );
  }

  private setCollection(tenant: Tenant, name: CollectionName, list: readonly unknown[]): void {
    const previous = tenant[name];
    setField(tenant, name, Object.freeze(list));
    this.undo?.push(() => setField(tenant, name, previous));
    this.version++;
  }
}

/** A collection as runs of the base's records ([from, to)) and the sandbox's own records. */
function encodeCollection(world: BaseWorld, base: readonly unknown[], list: readonly unknown[]): EncodedCollection {
  const positions = world.positionsOf(base);
  const out: EncodedCollection = [];
  let run: [number, number] | null = null;
  for (const record of list) {
    // only records (objects) are shared by identity; texts (a collection of ids) are kept as they are
    const at = typeof record === 'object' && record !== null ? positions.get(record) : undefined;
    if (at === undefined) {
      run = null;
      out.push(record);
    } else if (run && run[1] === at) {
      run[1]++;
    } else {
      run = [at, at + 1];
      out.push(run);
    }
  }
  return out;
}

function decodeCollection(
  name: CollectionName,
  base: readonly unknown[],
  encoded: EncodedCollection,
  where: string,
): readonly unknown[] {
  const out: unknown[] = [];
  for (const item of encoded) {
    if (!Array.isArray(item)) {
      out.push(kept(name, item));
      continue;
    }
    const [from, to] = item as [number, number];
    if (!(Number.isInteger(from) && Number.isInteger(to) && from >= 0 && from < to && to <= base.length)) {
      throw new Error(`${where}: base records [${from}, ${to}) do not exist`);
    }
    for (let i = from; i < to; i++) out.push(base[i]!);
  }
  return Object.freeze(out);
}

// Texts of base collections, to tell an imported collection equal to the base (and share it again) cheaply.
const baseTexts = new WeakMap<readonly unknown[], string>();
const textOf = (list: readonly unknown[]) => cached(baseTexts, list, () => JSON.stringify(list));

/** Whole data (an import) relative to a base: collections equal to the base's are left out, so they are shared. */
function encodeData(world: BaseWorld, data: Data): EncodedState {
  const tenants: Record<string, EncodedTenant> = {};
  for (const [id, tenant] of Object.entries(data.tenants)) {
    const base = world.data.tenants[id];
    const encoded: EncodedTenant = { collections: {} };
    if (!base || JSON.stringify(tenant.tenant) !== JSON.stringify(base.tenant)) encoded.tenant = tenant.tenant;
    for (const key of collectionNames) {
      const list = tenant[key] as unknown[];
      const baseList = base?.[key] as readonly unknown[] | undefined;
      if (baseList && baseList.length === list.length && textOf(baseList) === JSON.stringify(list)) continue;
      encoded.collections[key] = list;
    }
    tenants[id] = encoded;
  }
  return { meta: data.meta, tenants };
}
