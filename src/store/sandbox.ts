import { readdirSync } from 'node:fs';
import { makeDirs } from '../shared/make-dirs.js';
import type { Data } from '../schemas/tenant-data.js';
import { Clock, clockProblem } from './clock.js';
import type { ClockState } from '../schemas/control.js';
import { Outbox } from './outbox.js';
import { SharedBytes } from './shared-bytes.js';
import { Journal, type JournalBudget } from './journal.js';
import { FindingLog } from './findings.js';
import { SeededRandom } from './random.js';
import { SandboxStore } from './store.js';
import { DataError, loadSandbox, persistedNames, SandboxLog, type SandboxSettings } from './log.js';
import type { Worlds } from './world.js';
import { fail } from '../errors.js';
import { WireMockStubs, type StoredWireMock } from '../wiremock/state.js';

/** Stub mappings read back from a sandbox's files: one that no longer parses is damage (exit 2, or the 409). */
function storedStubs(stored: StoredWireMock, name: string): WireMockStubs {
  const stubs = WireMockStubs.fromStored(stored);
  if ('problem' in stubs) throw new DataError(`sandbox ${name}: its settings hold a ${stubs.problem}`);
  return stubs;
}

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
/** An open unit of work over a sandbox (Sandbox.begin): commit writes it, undo puts everything back. */
export type SandboxWork = { commit(): void; undo(): void };
/** The scenario and clock of the start flags: a new sandbox's, a reset's, and those of one that has none of its own. */
export type StartSettings = { scenario: string; clock: ClockState; wiremock?: WireMockStubs };

/**
 * One isolated world: its own data (over the shared base), clock, scenario, upstream, journal and outbox. Under
 * --data a change of the settings (scenario, clock, upstream) is written at once, unless inside `change`.
 */
export class Sandbox {
  readonly name: string;
  readonly store: SandboxStore;
  readonly clock: Clock;
  readonly outbox: Outbox;
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
  /** when a request last named it or ended (the registry's clock), for --sandbox-idle-ttl */
  lastUsedMs = Date.now();
  /** requests and background jobs working on it now: the idle sweep leaves it alone meanwhile */
  inFlight = 0;
  /** kept out of the idle sweep (`kept`), under --data in its settings */
  private keptFlag: boolean;
  /** its WireMock stub mappings and scenario states (src/wiremock/state.ts), and whether they are its own */
  private stubs: WireMockStubs;
  private ownStubs: boolean;
  /** empty until the sandbox receives a request */
  readonly journal: Journal;
  /** null until a detector first looks at a request (src/findings/) */
  findingLog: FindingLog | null = null;
  constructor(init: {
    name: string;
    store: SandboxStore;
    log: SandboxLog | null;
    journalLimit: number;
    /** its journal's byte cap (--journal-sandbox-mb) and the server's budget of journal bytes (--journal-mb) */
    journalBytes?: { maxBytes: number; budget: JournalBudget | null };
    /** its outbox's byte cap (--outbox-sandbox-kb; default: outboxMaxBytes) and the server's (--outbox-mb) */
    outboxBytes?: { maxBytes?: number; budget: SharedBytes<Outbox> | null };
    /** the start flags' scenario and clock, and what was set on it (from its files) */
    start: StartSettings;
    own: SandboxSettings;
  }) {
    const own = init.own;
    this.name = init.name;
    this.store = init.store;
    this.outbox = new Outbox(init.outboxBytes?.maxBytes, init.outboxBytes?.budget);
    this.clock = new Clock(own.clock ?? init.start.clock);
    this.scenarioName = own.scenario ?? init.start.scenario;
    this.ownScenario = own.scenario !== undefined;
    this.ownClock = own.clock !== undefined;
    this.upstreamUrl = own.upstream;
    this.keptFlag = own.kept === true;
    this.ownStubs = own.wiremock !== undefined;
    this.stubs = own.wiremock ? storedStubs(own.wiremock, init.name) : (init.start.wiremock ?? WireMockStubs.empty);
    this.writtenSettings = own;
    this.log = init.log;
    this.createdAt = init.log?.createdAt ?? new Date().toISOString();
    if (init.log) init.log.createdAt = this.createdAt;
    this.journal = new Journal(init.journalLimit, init.journalBytes);
    this.random = new SeededRandom(init.store.meta.seed, init.name);
    this.clock.onChange = () => {
      this.ownClock = true;
      this.noteSettings();
    };
  }
  /** The scenario's name; setting another one (src/domain/scenario-activation.ts) makes it the sandbox's own. */
  get scenario(): string {
    return this.scenarioName;
  }
  set scenario(name: string) {
    if (name === this.scenarioName) return;
    this.scenarioName = name;
    this.ownScenario = true;
    this.noteSettings();
  }
  /**
   * Its WireMock stub mappings and scenario states; setting others (the WireMock API, a served stub that moves a
   * scenario) makes them its own, written under --data like the other settings.
   */
  get wiremock(): WireMockStubs {
    return this.stubs;
  }
  set wiremock(next: WireMockStubs) {
    if (next === this.stubs) return;
    this.stubs = next;
    this.ownStubs = true;
    this.noteSettings();
  }
  /**
   * Back to the start scenario, clock and stubs (a reset), no longer its own: they follow the flags of later
   * starts.
   */
  startOver(start: StartSettings): void {
    this.change(() => {
      const wasOwn = this.ownScenario || this.ownClock || this.ownStubs;
      this.scenario = start.scenario;
      this.clock.state = start.clock;
      this.stubs = start.wiremock ?? WireMockStubs.empty;
      this.ownScenario = false;
      this.ownClock = false;
      this.ownStubs = false;
      if (wasOwn) this.noteSettings();
    });
  }
  /**
   * Opens one unit of work over the sandbox: its data (a store transaction), clock, scenario and settings change
   * together, and are written in one log line when it commits, or put back as they were when it is undone. Nested
   * units are savepoints of the outer one.
   */
  begin(): SandboxWork {
    const transaction = this.store.begin();
    const before = {
      clock: this.clock.state,
      ownClock: this.ownClock,
      scenario: this.scenarioName,
      ownScenario: this.ownScenario,
      stubs: this.stubs,
      ownStubs: this.ownStubs,
      settingsChanged: this.settingsChanged,
    };
    this.changing++;
    let open = true;
    const close = () => {
      open = false;
      if (--this.changing === 0) this.commit();
    };
    return {
      commit: () => {
        if (!open) return;
        transaction.commit();
        close();
      },
      undo: () => {
        if (!open) return;
        transaction.rollback();
        this.clock.state = before.clock;
        this.ownClock = before.ownClock;
        this.scenarioName = before.scenario;
        this.ownScenario = before.ownScenario;
        this.stubs = before.stubs;
        this.ownStubs = before.ownStubs;
        this.settingsChanged = before.settingsChanged;
        close();
      },
    };
  }
  /** Runs `work` as one unit of work (begin): all of it, or, when it throws, none of it. */
  change<T>(work: () => T): T {
    const unit = this.begin();
    try {
      const result = work();
      unit.commit();
      return result;
    } catch (err) {
      unit.undo();
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
  /**
   * Whether the idle sweep leaves it in memory however long nobody uses it (`default` always is). Set by the admin
   * API; under --data written at once (unless inside `change`) and kept across restarts.
   */
  get kept(): boolean {
    return this.keptFlag || this.name === 'default';
  }
  set kept(value: boolean) {
    if (value === this.keptFlag) return;
    this.keptFlag = value;
    this.noteSettings();
  }
  /** What was set on it, as the log keeps it: the rest is the start flags'. */
  settings(): SandboxSettings {
    const settings: SandboxSettings = {};
    if (this.ownScenario) settings.scenario = this.scenarioName;
    if (this.ownClock) settings.clock = this.clock.state;
    if (this.upstreamUrl !== undefined) settings.upstream = this.upstreamUrl;
    if (this.keptFlag) settings.kept = true;
    if (this.ownStubs) settings.wiremock = this.stubs.toStored();
    return settings;
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
    // in flight until it is written: the idle sweep must not drop the sandbox under it
    this.inFlight++;
    try {
      await work(this.store);
      this.commit();
    } finally {
      this.inFlight--;
    }
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
  /** the stub mappings every new sandbox starts with, and a reset goes back to (--wiremock DIR) */
  wiremock?: WireMockStubs;
  journalLimit: number;
  /** most bytes of one sandbox's journal entries (--journal-sandbox-mb); default: no cap of its own */
  journalSandboxBytes?: number;
  /** most bytes of one sandbox's outbox (--outbox-sandbox-kb); default: outboxMaxBytes */
  outboxSandboxBytes?: number;
  /** the bytes of every journal together (--journal-mb); default: no bound */
  journalBudget?: JournalBudget;
  /** the bytes of every outbox together (--outbox-mb); default: no bound */
  outboxBudget?: SharedBytes<Outbox>;
  maxSandboxes: number;
  /** why no sandbox may be made now (the memory budget, src/http/memory-budget.ts), or null */
  memoryFull?: () => string | null;
  /** called for each sandbox made from the seed (not for one loaded from its files) */
  onCreate?: (sandbox: Sandbox) => void;
  warn?: (message: string) => void;
  /** the clock of idle times (ms); tests give their own, so that nothing sleeps */
  nowMs?: () => number;
};

/**
 * What is known of a written-out sandbox without reading its files: its settings when it left memory. Its journal
 * and outbox were dropped then (a journal is memory only), so it comes back with none.
 */
export type ColdSandbox = {
  name: string;
  scenario: string;
  createdAt: string;
  clock: ClockState;
  /** when it left memory (the registry's clock) */
  writtenOutAt: string;
};

/**
 * All sandboxes of one app. `default` always exists; others are created on first use, up to maxSandboxes. Under
 * --data a sandbox nobody used for the idle TTL is written out and dropped from memory ("cold"): it still exists,
 * counts towards maxSandboxes, and comes back from its files, as a restart brings it back, on its next use.
 */
export class SandboxRegistry {
  /** the sandboxes in memory */
  private readonly sandboxes = new Map<string, Sandbox>();
  /**
   * under --data, the sandboxes written out and dropped from memory (their files are all they are), each with what a
   * listing shows of it: a few hundred bytes a sandbox, bounded by maxSandboxes as they are
   */
  private readonly cold = new Map<string, ColdSandbox>();
  private readonly options: SandboxRegistryOptions;
  private readonly nowMs: () => number;
  readonly journalBudget: JournalBudget;
  readonly outboxBudget: SharedBytes<Outbox>;
  /** told when a sandbox's data is dropped (reset, replaced, deleted): what was kept of the old data goes too */
  private readonly discardListeners: ((sandbox: Sandbox) => void)[] = [];
  constructor(options: SandboxRegistryOptions) {
    this.options = options;
    this.nowMs = options.nowMs ?? Date.now;
    // counted even where nothing bounds them, so that health tells what they hold
    this.journalBudget = options.journalBudget ?? new SharedBytes(Number.POSITIVE_INFINITY);
    this.outboxBudget = options.outboxBudget ?? new SharedBytes(Number.POSITIVE_INFINITY);
    if (options.dataDir) makeDirs(options.dataDir);
  }

  get limit(): number {
    return this.options.maxSandboxes;
  }
  /** Every sandbox that exists: in memory, and (under --data) written out. */
  get size(): number {
    return this.sandboxes.size + this.cold.size;
  }
  /** The sandboxes in memory. */
  get resident(): number {
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
    for (const name of names) if (this.load(dir, name)) loaded.push(name);
    return loaded;
  }

  /** A persisted sandbox from its files, in memory (at start, or a cold one used again); null: it has none. */
  private load(dir: string, name: string): Sandbox | null {
    const found = loadSandbox(dir, name, this.options.worlds, this.options.warn ?? (() => {}));
    if (!found) return null;
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
    return sandbox;
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
    return {
      scenario: this.options.scenario,
      clock: this.options.clock,
      wiremock: this.options.wiremock ?? WireMockStubs.empty,
    };
  }

  private install(name: string, store: SandboxStore, log: SandboxLog | null, own: SandboxSettings = {}): Sandbox {
    const start = this.startSettings();
    const journalBytes = {
      maxBytes: this.options.journalSandboxBytes ?? Number.POSITIVE_INFINITY,
      budget: this.journalBudget,
    };
    const journalLimit = this.options.journalLimit;
    const outboxBytes = { maxBytes: this.options.outboxSandboxBytes, budget: this.outboxBudget };
    const sandbox = new Sandbox({ name, store, log, start, own, journalLimit, journalBytes, outboxBytes });
    sandbox.lastUsedMs = this.nowMs();
    this.sandboxes.set(name, sandbox);
    return sandbox;
  }

  /**
   * A cold sandbox back in memory from its files, as a start loads it (not a new sandbox: no scenario is applied).
   * Files that cannot be read back (changed by hand, a base world past --max-worlds) are a 409 saying so.
   */
  private revive(name: string): Sandbox | undefined {
    const dir = this.options.dataDir!;
    let sandbox: Sandbox | null;
    try {
      sandbox = this.load(dir, name);
    } catch (err) {
      throw fail.conflict(
        `sandbox "${name}" was written out after --sandbox-idle-ttl and cannot be read back from ${dir}: ` +
          `${(err as Error).message}. Delete it (DELETE /__admin/sandboxes/${name}) or fix its files`,
      );
    }
    this.cold.delete(name);
    return sandbox ?? undefined;
  }

  /** The sandbox of that name, made from the seed on first use; past the limit, a 429 that says how to free some. */
  get(name: string): Sandbox {
    const existing = this.find(name);
    if (existing) return existing;
    if (this.size >= this.options.maxSandboxes) {
      throw fail.tooManyRequests(
        `sandbox "${name}" cannot be created: ${this.size} sandboxes exist, the limit is ${this.options.maxSandboxes} ` +
          '(--max-sandboxes). Delete finished ones (DELETE /__admin/sandboxes/NAME), start with a shorter ' +
          '--sandbox-idle-ttl to drop idle ones, or raise the limit',
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

  /** The sandbox of that name if it exists (a cold one is read back): naming it counts as using it. */
  find(name: string): Sandbox | undefined {
    const sandbox = this.sandboxes.get(name) ?? (this.cold.has(name) ? this.revive(name) : undefined);
    if (sandbox) sandbox.lastUsedMs = this.nowMs();
    return sandbox;
  }

  /** Whether a sandbox of that name exists, in memory or written out (nothing is read back). */
  has(name: string): boolean {
    return this.sandboxes.has(name) || this.cold.has(name);
  }

  /** Whether it is written out and out of memory (under --data, after --sandbox-idle-ttl). */
  isCold(name: string): boolean {
    return this.cold.has(name);
  }

  /** The sandboxes in memory (a cold one is not read back for a listing: `listCold` describes them). */
  list(): Sandbox[] {
    return [...this.sandboxes.values()];
  }

  /** The sandboxes written out (under --data, idle past --sandbox-idle-ttl), as they were when written out. */
  listCold(): ColdSandbox[] {
    return [...this.cold.values()];
  }

  /** The names of every sandbox that exists, cold ones included, sorted. */
  names(): string[] {
    return [...this.sandboxes.keys(), ...this.cold.keys()].sort();
  }

  /** A request (or other work) starts on the sandbox: the idle sweep leaves it alone until `leave`. */
  enter(sandbox: Sandbox): void {
    sandbox.inFlight++;
    sandbox.lastUsedMs = this.nowMs();
  }
  /** The work `enter` announced is done: the idle time counts from now. */
  leave(sandbox: Sandbox): void {
    if (sandbox.inFlight > 0) sandbox.inFlight--;
    sandbox.lastUsedMs = this.nowMs();
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
    if (this.cold.delete(name)) {
      // its files are all it is
      new SandboxLog(this.options.dataDir!, name, { lastLine: 0, bytes: 0 }).remove();
      return true;
    }
    const sandbox = this.sandboxes.get(name);
    if (!sandbox) return false;
    this.sandboxes.delete(name);
    sandbox.log?.remove();
    sandbox.journal.close();
    sandbox.outbox.clear();
    this.discarded(sandbox);
    return true;
  }

  /**
   * The idle sweep (--sandbox-idle-ttl): every sandbox nobody has used for `idleMs`, none of whose requests or jobs
   * is running, that is not `default` nor kept, leaves memory: under --data written out (cold, back on next use),
   * else deleted. Answers their names. Never throws (it runs on a timer): a sandbox that cannot be written out stays,
   * with a warning.
   */
  evictIdle(idleMs: number, nowMs = this.nowMs()): string[] {
    const gone: string[] = [];
    for (const sandbox of [...this.sandboxes.values()]) {
      if (sandbox.kept || sandbox.inFlight > 0 || nowMs - sandbox.lastUsedMs < idleMs) continue;
      if (sandbox.log?.compacting) continue; // its snapshot is being written: the next sweep
      try {
        if (sandbox.log) this.writeOut(sandbox);
        else this.delete(sandbox.name);
        gone.push(sandbox.name);
      } catch (err) {
        this.options.warn?.(`sandbox ${sandbox.name} stays in memory: it could not be written out (${String(err)})`);
      }
    }
    return gone;
  }

  /** A sandbox out of memory, its files (written now if it has none yet) all that is left of it until its next use. */
  private writeOut(sandbox: Sandbox): void {
    sandbox.commit();
    sandbox.keep(); // one that never wrote gets its files, so that it comes back as it was (its creation time too)
    sandbox.log!.close();
    this.sandboxes.delete(sandbox.name);
    const { name, scenario, createdAt } = sandbox;
    const writtenOutAt = new Date(this.nowMs()).toISOString();
    this.cold.set(name, { name, scenario, createdAt, clock: sandbox.clock.state, writtenOutAt });
    sandbox.journal.close();
    sandbox.outbox.clear();
    this.discarded(sandbox);
  }

  /** Writes what is not yet written and closes the logs (at shutdown). */
  close(): void {
    for (const sandbox of this.sandboxes.values()) {
      sandbox.commit();
      sandbox.log?.close();
    }
  }
}
