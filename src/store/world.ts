import { createHash } from 'node:crypto';
import type { Data } from '../schemas/tenant-data.js';
import { fail } from '../errors.js';

/**
 * Freezes a value and everything it holds, so a stray mutation of shared data throws (TypeError in strict mode)
 * instead of leaking into every sandbox that reads it.
 */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  // an index loop and for…in: Object.values made an array per record, a tenth of a --users 100000 start-up
  if (Array.isArray(value)) for (let i = 0; i < value.length; i++) deepFreeze(value[i]);
  else for (const key in value) deepFreeze(value[key]);
  return Object.freeze(value);
}

/** The value `map` keeps for `key`, made by `make` on first use. */
export function cached<K, V>(
  map: { get(key: K): V | undefined; set(key: K, value: V): unknown },
  key: K,
  make: () => V,
): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}

/** What identifies a base world: the same stamp regenerates the same data, byte for byte. */
export type WorldStamp = { seed: number; refDate: string; users: number; digest: string };

/**
 * A hash of a sample of the data (every collection's length, and its first and last records): it tells a data
 * directory written for another generator, fixtures or size apart from this one without hashing all of a large world.
 */
function digestOf(data: Data): string {
  const hash = createHash('sha256');
  for (const [id, tenant] of Object.entries(data.tenants)) {
    hash.update(id);
    for (const [name, value] of Object.entries(tenant)) {
      if (!Array.isArray(value)) {
        hash.update(`${name}:${JSON.stringify(value)}`);
        continue;
      }
      hash.update(`${name}:${value.length}:${JSON.stringify(value.slice(0, 3))}:${JSON.stringify(value.slice(-3))}`);
    }
  }
  return hash.digest('hex').slice(0, 16);
}

/** One seeded world, frozen, shared read-only by every sandbox made from it. */
export class BaseWorld {
  readonly data: Data;
  private readonly users: number;
  private stampMemo: WorldStamp | undefined;
  // the position of each base record in its collection, for encoding a sandbox's collections as runs of the base
  private readonly positions = new WeakMap<readonly unknown[], Map<unknown, number>>();
  constructor(data: Data, users: number) {
    this.data = deepFreeze(data);
    this.users = users;
  }
  /** Made when a data directory first needs it: the digest takes a second at --users 100000 (its groups' members). */
  get stamp(): WorldStamp {
    const { data, users } = this;
    this.stampMemo ??= { seed: data.meta.seed, refDate: data.meta.refDate, users, digest: digestOf(data) };
    return this.stampMemo;
  }
  positionsOf(collection: readonly unknown[]): Map<unknown, number> {
    return cached(this.positions, collection, () => new Map(collection.map((record, i) => [record, i])));
  }
}

type WorldsOptions = {
  refDate: Date;
  users: number;
  generate: (seed: number, refDate: Date) => Data;
  /** most worlds kept at once (--max-worlds); unbounded when absent */
  max?: number;
  /** the worlds sandboxes are made from now: the others may be dropped to make room */
  inUse?: () => ReadonlySet<BaseWorld>;
};

/**
 * The base worlds of one app, by seed and reference date, each generated on first use. A world is the whole seeded
 * store, so they are bounded (--max-worlds): a new one first drops those no sandbox uses (they regenerate, byte for
 * byte, when asked again), and past the bound with every kept world in use the call is a 429.
 */
export class Worlds {
  private readonly worlds = new Map<string, BaseWorld>();
  private readonly options: WorldsOptions;
  constructor(options: WorldsOptions) {
    this.options = options;
  }
  /** This app's reference date: the start's --now, else the start of the day (UTC) it started on. */
  get refDate(): Date {
    return this.options.refDate;
  }
  get size(): number {
    return this.worlds.size;
  }
  /** The world of `seed` at `refDate` (default: this app's reference date). */
  get(seed: number, refDate: Date = this.options.refDate): BaseWorld {
    const key = `${seed}@${refDate.toISOString()}`;
    const kept = this.worlds.get(key);
    if (kept) return kept;
    this.makeRoom(seed, refDate);
    const { generate, users } = this.options;
    return cached(this.worlds, key, () => new BaseWorld(generate(seed, refDate), users));
  }
  private makeRoom(seed: number, refDate: Date): void {
    const max = this.options.max;
    if (max === undefined || this.worlds.size < max) return;
    const used = this.options.inUse?.() ?? new Set<BaseWorld>();
    for (const [key, world] of this.worlds) if (!used.has(world)) this.worlds.delete(key);
    if (this.worlds.size < max) return;
    throw fail.tooManyRequests(
      `the base world of seed ${seed} at ${refDate.toISOString()} cannot be made: ${this.worlds.size} base worlds ` +
        `are in use, the limit is ${max} (--max-worlds). Reset or delete the sandboxes made from another seed or ` +
        'reference date (a reset with another seed, a bug capture from another day), or raise the limit',
    );
  }
  /** The world a persisted sandbox was made from; a stamp this app cannot regenerate is an error. */
  forStamp(stamp: WorldStamp, source: string): BaseWorld {
    let world: BaseWorld;
    try {
      world = this.get(stamp.seed, new Date(stamp.refDate));
    } catch (err) {
      // past --max-worlds at start: the data directory's sandboxes use more worlds than this start keeps
      throw new Error(`${source}: ${(err as Error).message}`);
    }
    if (world.stamp.users !== stamp.users || world.stamp.digest !== stamp.digest) {
      throw new Error(
        `${source}: written for another base world (seed ${stamp.seed}, ${stamp.users} users, digest ${stamp.digest}; ` +
          `this start gives ${world.stamp.users} users, digest ${world.stamp.digest}): start with the same --users and --fixtures ` +
          'and the same portal-mock version, or move the data directory away',
      );
    }
    return world;
  }
}
