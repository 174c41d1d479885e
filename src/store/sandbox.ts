import { readdirSync } from 'node:fs';
import { makeDirs } from '../shared/make-dirs.js';
import type { Data } from '../schemas/tenant-data.js';
import { Clock, clockProblem } from './clock.js';
import type { ClockState } from '../schemas/control.js';
import { newOutbox } from './outbox.js';
import { Journal } from './journal.js';
import { FindingLog } from './findings.js';
import { SeededRandom } from './random.js';
import { SandboxStore } from './store.js';
import { DataError, loadSandbox, persistedNames, SandboxLog, type SandboxSettings } from './log.js';
import type { Worlds } from './world.js';
import { fail } from '../errors.js';

/**
 * What a sandbox name is: 1 to 64 letters, digits, "-" or "_". One rule for the request's sandbox key, the admin
 * calls and the files under --data, as the name is also a balancer's routing key and a file name.
 */
export const sandboxNamePattern = '^[A-Za-z0-9_-]{1,64}$';
const sandboxNameRe = new RegExp(sandboxNamePattern);
export const isSandboxName = (name: string) => sandboxNameRe.test(name);

/** `name` when it is a sandbox name, else the 400 that says what one is. */
export function checkSandboxName(name: string): string {
  if (!isSandboxName(name))
    throw fail.badRequest(`sandbox name "${name.slice(0, 80)}" is invalid: use 1 to 64 letters, digits, "-" or "_"`);
  return name;
}

export type { SandboxSettings };
/** The scenario and clock of the start flags: a new sandbox's, a reset's, and those of one that has none of its own. */
export type StartSettings = { scenario: string; clock: ClockState };

/**
 * One isolated world: its own data (over the shared base), clock, scenario, upstream, journal and outbox. Under
 * --data a change of the settings (scenario, clock, upstream) is written at once, unless inside `change`.
 */
export class Sandbox {
  readonly name: string;
  readonly store: SandboxStore;
  readonly clock: Clock;
  readonly outbox = newOutbox();
  /** when it was made; under --data kept in its files, so a restart does not move it */
  readonly createdAt: string;
  /** the log of its changes under --data, else null */
  readonly log: SandboxLog | null;
  private scenarioName: string;
  /** whether scenario and clock were set on it (else they are the start ones) */
  private ownScenario: boolean;
  private ownClock: boolean;
  /** its own upstream (null: forward nothing); undefined: the one of --proxy (src/proxy/) */
  private upstreamUrl: string | null | undefined;
  /** the settings as the log last wrote them (or as the sandbox was made): a first snapshot holds these */
  private writtenSettings: SandboxSettings;
  private settingsChanged = false;
  /** nesting of `change`: settings are written when the outermost one ends */
  private changing = 0;
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
  constructor(init: {
    name: string;
    store: SandboxStore;
    log: SandboxLog | null;
    journalLimit: number;
    /** the start flags' scenario and clock, and what was set on it (from its files) */
    start: StartSettings;
    own: SandboxSettings;
  }) {
    const own = init.own;
    this.name = init.name;
    this.store = init.store;
    this.clock = new Clock(own.clock ?? init.start.clock);
    this.scenarioName = own.scenario ?? init.start.scenario;
    this.ownScenario = own.scenario !== undefined;
    this.ownClock = own.clock !== undefined;
    this.upstreamUrl = own.upstream;
    this.writtenSettings = own;
    this.log = init.log;
    this.createdAt = init.log?.createdAt ?? new Date().toISOString();
    if (init.log) init.log.createdAt = this.createdAt;
    this.journal = new Journal(init.journalLimit);
    this.random = new SeededRandom(init.store.meta.seed, init.name);
    this.clock.onChange = () => {
      this.ownClock = true;
      this.noteSettings();
    };
  }
  /** The scenario's name; setting another one (src/scenarios/activate.ts) makes it the sandbox's own. */
  get scenario(): string {
    return this.scenarioName;
  }
  set scenario(name: string) {
    if (name === this.scenarioName) return;
    this.scenarioName = name;
    this.ownScenario = true;
    this.noteSettings();
  }
  /** Back to the start scenario and clock (a reset), no longer its own: they follow the flags of later starts. */
  startOver(start: StartSettings): void {
    this.change(() => {
      const wasOwn = this.ownScenario || this.ownClock;
      this.scenario = start.scenario;
      this.clock.state = start.clock;
      this.ownScenario = false;
      this.ownClock = false;
      if (wasOwn) this.noteSettings();
    });
  }
  /** Runs work that may set the clock; when it throws, the clock is as before, and so is whether it was its own. */
  keepingClockOnFailure<T>(work: () => T): T {
    const state = this.clock.state;
    const own = this.ownClock;
    try {
      return work();
    } catch (err) {
      this.clock.state = state;
      this.ownClock = own;
      throw err;
    }
  }
  get upstream(): string | null | undefined {
    return this.upstreamUrl;
  }
  set upstream(url: string | null | undefined) {
    if (url === this.upstreamUrl) return;
    this.upstreamUrl = url;
    this.noteSettings();
  }
  /** What was set on it, as the log keeps it: the rest is the start flags'. */
  settings(): SandboxSettings {
    const settings: SandboxSettings = {};
    if (this.ownScenario) settings.scenario = this.scenarioName;
    if (this.ownClock) settings.clock = this.clock.state;
    if (this.upstreamUrl !== undefined) settings.upstream = this.upstreamUrl;
    return settings;
  }
  /** Runs work that changes settings and data together (a scenario's activation, a reset): one log line at the end. */
  change<T>(work: () => T): T {
    this.changing++;
    try {
      return work();
    } finally {
      if (--this.changing === 0) this.commit();
    }
  }
  /**
   * Gives a sandbox without files its files now, even when nothing changed: an admin call that set something on it
   * acknowledged that it exists.
   */
  keep(): void {
    if (!this.log?.isNew) return;
    this.settingsChanged = true;
    this.commit();
  }
  /** Writes its settings as they are now in a log line (a repair made at start). */
  rewriteSettings(): void {
    this.settingsChanged = true;
    this.commit();
  }
  private noteSettings(): void {
    if (!this.log) return;
    this.settingsChanged = true;
    if (this.changing === 0) this.commit();
  }
  get findings(): FindingLog {
    this.findingLog ??= new FindingLog(Math.max(100, this.journal.limit));
    return this.findingLog;
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
    if (!this.log) return;
    const changed = this.settingsChanged ? this.settings() : null;
    this.settingsChanged = false;
    this.log.commit(this.store, { before: this.writtenSettings, changed });
    if (changed) this.writtenSettings = changed;
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
  /** why no sandbox may be made now (the memory budget, src/http/memory-budget.ts), or null */
  memoryFull?: () => string | null;
  /** called for each sandbox made from the seed (not for one loaded from its files) */
  onCreate?: (sandbox: Sandbox) => void;
  warn?: (message: string) => void;
};

/** All sandboxes of one app. `default` always exists; others are created on first use, up to maxSandboxes. */
export class SandboxRegistry {
  private readonly sandboxes = new Map<string, Sandbox>();
  private readonly options: SandboxRegistryOptions;
  /** told when a sandbox's data is dropped (reset, replaced, deleted): what was kept of the old data goes too */
  private readonly discardListeners: ((sandbox: Sandbox) => void)[] = [];
  constructor(options: SandboxRegistryOptions) {
    this.options = options;
    if (options.dataDir) makeDirs(options.dataDir);
  }

  get limit(): number {
    return this.options.maxSandboxes;
  }
  get size(): number {
    return this.sandboxes.size;
  }

  /** Calls `listener` each time a sandbox is reset, takes other data, or is deleted. */
  onDiscard(listener: (sandbox: Sandbox) => void): void {
    this.discardListeners.push(listener);
  }
  private discarded(sandbox: Sandbox): void {
    for (const listener of this.discardListeners) listener(sandbox);
  }

  /** Rebuilds every persisted sandbox at start: damaged files stop start-up instead of being replaced. */
  loadPersisted(): string[] {
    const dir = this.options.dataDir;
    if (!dir) return [];
    const names = persistedNames(readdirSync(dir)).filter(isSandboxName);
    const loaded: string[] = [];
    for (const name of names) {
      const found = loadSandbox(dir, name, this.options.worlds, this.options.warn ?? (() => {}));
      if (!found) continue;
      const { clock, ...rest } = found.settings;
      const problem = clock ? clockProblem(clock) : null;
      // a clock no call could set now (older versions stored one they answered 500 to, never acknowledged): the
      // sandbox goes back to the start flags' clock, written at once so that the next start says nothing
      const sandbox = this.install(name, found.store, found.log, problem ? rest : found.settings);
      if (problem) {
        this.options.warn?.(
          `${found.log.logFile}: sandbox ${name} had a clock the mock cannot show (${problem}); ` +
            'set back to the start clock (--now, else real time)',
        );
        sandbox.rewriteSettings();
      }
      loaded.push(name);
    }
    return loaded;
  }

  /**
   * Refuses persisted sandboxes whose scenario this start does not know (a --scenarios directory left out): their
   * stubs and faults would silently stop acting.
   */
  checkScenarios(scenarios: { get(name: string): unknown; names(): string[] }): void {
    for (const sandbox of this.sandboxes.values()) {
      if (!sandbox.log || scenarios.get(sandbox.scenario)) continue;
      throw new DataError(
        `${sandbox.log.logFile}: sandbox ${sandbox.name} is set to scenario "${sandbox.scenario}", ` +
          `which this start does not know (known: ${scenarios.names().join(', ')}); start with the --scenarios ` +
          "directory that has it, or move the sandbox's files away",
      );
    }
  }

  /** What a new sandbox starts with, and a reset goes back to: --scenario, --now (else real time). */
  private startSettings(): StartSettings {
    return { scenario: this.options.scenario, clock: this.options.clock };
  }

  private install(name: string, store: SandboxStore, log: SandboxLog | null, own: SandboxSettings = {}): Sandbox {
    const start = this.startSettings();
    const sandbox = new Sandbox({ name, store, log, start, own, journalLimit: this.options.journalLimit });
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
      throw fail.tooManyRequests(
        `sandbox "${name}" cannot be created: ${this.sandboxes.size} sandboxes exist, the limit is ${this.options.maxSandboxes} ` +
          '(--max-sandboxes). Delete finished ones (DELETE /__admin/sandboxes/NAME), start with --sandbox-idle-ttl to ' +
          'drop idle ones, or raise the limit',
      );
    }
    // `default` always exists: it is made on its first use whatever the process holds
    const full = name === 'default' ? null : (this.options.memoryFull?.() ?? null);
    if (full) throw fail.tooManyRequests(`sandbox "${name}" cannot be created: ${full}`);
    const store = new SandboxStore(name, this.options.worlds.get(this.options.seed), {
      recordChanges: this.options.dataDir !== null,
    });
    const log = this.options.dataDir
      ? new SandboxLog(this.options.dataDir, name, { lastLine: 0, bytes: 0, origin: store.base })
      : null;
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
    sandbox.random = new SeededRandom(sandbox.store.meta.seed, sandbox.name);
    sandbox.commit();
    this.discarded(sandbox);
  }

  /**
   * Back to the seeded state: data (of `seed`, default the start seed), scenario, clock, journal, findings, outbox,
   * randomness; one log line. The upstream stays (docs/proxy.md).
   */
  reset(sandbox: Sandbox, seed = this.options.seed): void {
    sandbox.change(() => {
      sandbox.store.reset(this.options.worlds.get(seed));
      sandbox.startOver(this.startSettings());
      sandbox.journal.clear();
      sandbox.findingLog = null;
      sandbox.outbox.clear();
      sandbox.stubUses.clear();
      sandbox.random = new SeededRandom(seed, sandbox.name);
    });
    this.discarded(sandbox);
  }

  delete(name: string): boolean {
    const sandbox = this.sandboxes.get(name);
    if (!sandbox) return false;
    this.sandboxes.delete(name);
    sandbox.log?.remove();
    this.discarded(sandbox);
    return true;
  }

  /** Deletes the sandboxes (all but default) no request has named for `idleMs`; answers their names. */
  evictIdle(idleMs: number, nowMs = Date.now()): string[] {
    const gone = this.list()
      .filter((s) => s.name !== 'default' && nowMs - s.lastUsedMs >= idleMs)
      .map((s) => s.name);
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
