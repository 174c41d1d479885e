import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Low, Memory } from 'lowdb';
import { JSONFile } from 'lowdb/node';
import { Data, type TenantData } from './data.js';
import { checkOrThrow } from './check.js';
import { Clock, type ClockState } from './clock.js';
import { Outbox } from './outbox.js';
import { Journal } from './journal.js';
import { SeededRandom } from './random.js';
import { seedFrom } from './ids.js';

export const sandboxNamePattern = '^[A-Za-z0-9_-]{1,64}$';
const sandboxNameRe = new RegExp(sandboxNamePattern);
export const isSandboxName = (name: string) => sandboxNameRe.test(name);

/** One isolated world: its own data, clock, scenario, journal and outbox. */
export class Sandbox {
  readonly name: string;
  readonly db: Low<Data>;
  readonly clock: Clock;
  readonly outbox: Outbox;
  readonly persistent: boolean;
  readonly createdAt: string;
  readonly journal: Journal;
  scenario: string;
  /** seeded randomness of scenario probabilities, delays and faults */
  random: SeededRandom;
  /** how often each limited stub (`times`) has answered, by "scenario#index" */
  stubUses = new Map<string, number>();
  constructor(init: { name: string; db: Low<Data>; clock: Clock; scenario: string; persistent: boolean; journalLimit: number }) {
    this.name = init.name;
    this.db = init.db;
    this.clock = init.clock;
    this.scenario = init.scenario;
    this.persistent = init.persistent;
    this.outbox = new Outbox();
    this.journal = new Journal(init.journalLimit);
    this.random = new SeededRandom(seedFrom(init.db.data.meta.seed, init.name));
    this.createdAt = new Date().toISOString();
  }
  get data(): Data {
    return this.db.data;
  }
  tenant(id: string): TenantData | undefined {
    return Object.hasOwn(this.data.tenants, id) ? this.data.tenants[id] : undefined;
  }
  /** Writes the data to its file before a change is acknowledged (atomically: temp file, then rename). */
  async save(): Promise<void> {
    if (this.persistent) await this.db.write();
  }
}

export type SandboxRegistryOptions = {
  /** builds the seeded data for a new sandbox (or a reset) */
  seedData(seed?: number): Data;
  dataDir: string | null;
  clock: ClockState;
  scenario: string;
  journalLimit: number;
  /** called for each sandbox made from the seed (not for one loaded from its file) */
  onCreate?: (sandbox: Sandbox) => void;
};

/** All sandboxes of one app. `default` always exists; others are created on first use. */
export class SandboxRegistry {
  private readonly sandboxes = new Map<string, Sandbox>();
  private readonly options: SandboxRegistryOptions;
  constructor(options: SandboxRegistryOptions) {
    this.options = options;
    if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  }

  private fileOf(name: string): string | null {
    return this.options.dataDir ? join(this.options.dataDir, `${name}.json`) : null;
  }

  /** Reads every sandbox file at start: a corrupt or hand-broken file stops start-up instead of being replaced. */
  loadPersisted(): string[] {
    const dir = this.options.dataDir;
    if (!dir) return [];
    const names = readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).filter(isSandboxName);
    for (const name of names) {
      const file = this.fileOf(name)!;
      let raw: unknown;
      try {
        raw = JSON.parse(readFileSync(file, 'utf8'));
      } catch (err) {
        throw new Error(`${file}: not valid JSON (${(err as Error).message}); move it away or delete it to start that sandbox fresh`);
      }
      const data = checkOrThrow(Data, raw, `${file} (move it away or delete it to start that sandbox fresh)`);
      this.install(name, data, true);
    }
    return names;
  }

  private install(name: string, data: Data, persistent: boolean): Sandbox {
    const file = this.fileOf(name);
    const db = new Low<Data>(persistent && file ? new JSONFile<Data>(file) : new Memory<Data>(), data);
    const sandbox = new Sandbox({
      name, db, clock: new Clock(this.options.clock), scenario: this.options.scenario, persistent: Boolean(file), journalLimit: this.options.journalLimit,
    });
    this.sandboxes.set(name, sandbox);
    return sandbox;
  }

  get(name: string): Sandbox {
    const existing = this.sandboxes.get(name);
    if (existing) return existing;
    const sandbox = this.install(name, this.options.seedData(), true);
    this.options.onCreate?.(sandbox);
    return sandbox;
  }

  find(name: string): Sandbox | undefined {
    return this.sandboxes.get(name);
  }

  list(): Sandbox[] {
    return [...this.sandboxes.values()];
  }

  /** Replaces a sandbox's data (snapshot import) keeping its identity. */
  async replaceData(sandbox: Sandbox, data: Data): Promise<void> {
    sandbox.db.data = data;
    await sandbox.save();
  }

  /** Back to the seeded state: data (of `seed`, default the start seed), scenario, clock, journal, outbox, randomness. */
  async reset(sandbox: Sandbox, seed?: number): Promise<void> {
    sandbox.db.data = this.options.seedData(seed);
    sandbox.scenario = this.options.scenario;
    sandbox.clock.state = this.options.clock;
    sandbox.journal.clear();
    sandbox.outbox.clear();
    sandbox.stubUses.clear();
    sandbox.random = new SeededRandom(seedFrom(sandbox.data.meta.seed, sandbox.name));
    await sandbox.save();
  }

  get startScenario(): string {
    return this.options.scenario;
  }

  async delete(name: string): Promise<boolean> {
    const sandbox = this.sandboxes.get(name);
    if (!sandbox) return false;
    this.sandboxes.delete(name);
    const file = this.fileOf(name);
    if (file && existsSync(file)) await rm(file, { force: true });
    return true;
  }

  /** Writes every sandbox (at shutdown). */
  async flush(): Promise<void> {
    await Promise.all(this.list().map((s) => s.save()));
  }
}
