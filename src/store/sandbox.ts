import { mkdirSync, readdirSync } from 'node:fs';
import type { Data } from './data.js';
import { Clock } from './clock.js';
import type { ClockState } from '../schemas/admin.js';
import { newOutbox } from './outbox.js';
import { Journal } from './journal.js';
import { FindingLog } from './findings.js';
import { SeededRandom } from './random.js';
import { seedFrom } from './ids.js';
import { SandboxStore } from './store.js';
import { loadSandbox, persistedNames, SandboxLog } from './log.js';
import type { Worlds } from './world.js';
import { fail } from '../errors.js';

const sandboxNameRe = /^[A-Za-z0-9_-]{1,64}$/;
export const isSandboxName = (name: string) => sandboxNameRe.test(name);

/** One isolated world: its own data (over the shared base), clock, scenario, journal and outbox. */
export class Sandbox {
  readonly name: string;
  readonly store: SandboxStore;
  readonly clock: Clock;
  readonly outbox = newOutbox();
  readonly createdAt = new Date().toISOString();
  /** the log of its changes under --data, else null */
  readonly log: SandboxLog | null;
  scenario: string;
  /** seeded randomness of scenario probabilities, delays and faults */
  random: SeededRandom;
  /** how often each limited stub (`times`) has answered, by "scenario#index" */
  stubUses = new Map<string, number>();
  /** when a request last named it (Date.now()), for --sandbox-idle-ttl */
  lastUsedMs = Date.now();
  /** empty until the sandbox receives a request */
  readonly journal: Journal;
  /** null until a detector first looks at a request (src/findings/) */
  findingLog: FindingLog | null = null;
  constructor(init: { name: string; store: SandboxStore; clock: Clock; scenario: string; log: SandboxLog | null; journalLimit: number }) {
    this.name = init.name;
    this.store = init.store;
    this.clock = init.clock;
    this.scenario = init.scenario;
    this.log = init.log;
    this.journal = new Journal(init.journalLimit);
    this.random = new SeededRandom(seedFrom(init.store.meta.seed, init.name));
  }
  get findings(): FindingLog {
    return (this.findingLog ??= new FindingLog(Math.max(100, this.journal.limit)));
  }
  get persistent(): boolean {
    return this.log !== null;
  }
  /** Runs work outside the request that started it (a background job), then logs what it changed. */
  async background(work: (store: SandboxStore) => Promise<void>): Promise<void> {
    await work(this.store);
    this.commit();
  }
  /** Writes the changes made since the last commit to the log (a no-op in memory), before they are acknowledged. */
  commit(): void {
    if (this.log) this.log.commit(this.store);
  }
}

export type SandboxRegistryOptions = {
  worlds: Worlds;
  /** the seed of new sandboxes and of a reset without one */
  seed: number;
  dataDir: string | null;
  clock: ClockState;
  scenario: string;
  journalLimit: number;
  maxSandboxes: number;
  /** called for each sandbox made from the seed (not for one loaded from its files) */
  onCreate?: (sandbox: Sandbox) => void;
  warn?: (message: string) => void;
};

/** All sandboxes of one app. `default` always exists; others are created on first use, up to maxSandboxes. */
export class SandboxRegistry {
  private readonly sandboxes = new Map<string, Sandbox>();
  private readonly options: SandboxRegistryOptions;
  constructor(options: SandboxRegistryOptions) {
    this.options = options;
    if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  }

  get limit(): number {
    return this.options.maxSandboxes;
  }
  get size(): number {
    return this.sandboxes.size;
  }

  /** Rebuilds every persisted sandbox at start: damaged files stop start-up instead of being replaced. */
  loadPersisted(): string[] {
    const dir = this.options.dataDir;
    if (!dir) return [];
    const names = persistedNames(readdirSync(dir)).filter(isSandboxName);
    for (const name of names) {
      const { store, log } = loadSandbox(dir, name, this.options.worlds, this.options.warn ?? (() => {}));
      this.install(name, store, log);
    }
    return names;
  }

  private install(name: string, store: SandboxStore, log: SandboxLog | null): Sandbox {
    const sandbox = new Sandbox({ name, store, log, clock: new Clock(this.options.clock), scenario: this.options.scenario, journalLimit: this.options.journalLimit });
    this.sandboxes.set(name, sandbox);
    return sandbox;
  }

  /** The sandbox of that name, made from the seed on first use; past the limit, a 429 that says how to free some. */
  get(name: string): Sandbox {
    const existing = this.sandboxes.get(name);
    if (existing) {
      existing.lastUsedMs = Date.now();
      return existing;
    }
    if (this.sandboxes.size >= this.options.maxSandboxes) {
      throw fail.tooManyRequests(`sandbox "${name}" cannot be created: ${this.sandboxes.size} sandboxes exist, the limit is ${this.options.maxSandboxes} `
        + '(--max-sandboxes). Delete finished ones (DELETE /__admin/sandboxes/NAME), start with --sandbox-idle-ttl to drop idle ones, or raise the limit');
    }
    const store = new SandboxStore(name, this.options.worlds.get(this.options.seed), { recordChanges: this.options.dataDir !== null });
    const log = this.options.dataDir ? new SandboxLog(this.options.dataDir, name, { lastLine: 0, bytes: 0, origin: store.base }) : null;
    const sandbox = this.install(name, store, log);
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
  replaceData(sandbox: Sandbox, data: Data): void {
    sandbox.store.replace(data);
    sandbox.random = new SeededRandom(seedFrom(sandbox.store.meta.seed, sandbox.name));
    sandbox.commit();
  }

  /** Back to the seeded state: data (of `seed`, default the start seed), scenario, clock, journal, findings, outbox, randomness. */
  reset(sandbox: Sandbox, seed = this.options.seed): void {
    sandbox.store.reset(this.options.worlds.get(seed));
    sandbox.scenario = this.options.scenario;
    sandbox.clock.state = this.options.clock;
    sandbox.journal.clear();
    sandbox.findingLog = null;
    sandbox.outbox.clear();
    sandbox.stubUses.clear();
    sandbox.random = new SeededRandom(seedFrom(seed, sandbox.name));
    sandbox.commit();
  }

  delete(name: string): boolean {
    const sandbox = this.sandboxes.get(name);
    if (!sandbox) return false;
    this.sandboxes.delete(name);
    sandbox.log?.remove();
    return true;
  }

  /** Deletes the sandboxes (all but default) no request has named for `idleMs`; answers their names. */
  evictIdle(idleMs: number, nowMs = Date.now()): string[] {
    const gone = this.list().filter((s) => s.name !== 'default' && nowMs - s.lastUsedMs >= idleMs).map((s) => s.name);
    for (const name of gone) this.delete(name);
    return gone;
  }

  /** Writes what is not yet written and closes the logs (at shutdown). */
  close(): void {
    for (const sandbox of this.sandboxes.values()) {
      sandbox.commit();
      sandbox.log?.close();
    }
  }
}
