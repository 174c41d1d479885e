// Persistence of one sandbox under --data: an append-only log of changes and a compacted snapshot (docs/store.md).
import {
  closeSync,
  existsSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Low, LowSync } from 'lowdb';
import { JSONFile, JSONFileSync } from 'lowdb/node';
import { Data, TenantData } from '../schemas/tenant-data.js';
import { checkOrThrow } from '../schemas/check.js';
import { StoredClockState } from '../schemas/control.js';
import { Nullable } from '../schemas/common.js';
import { collectionNames, isCollectionName, SandboxStore, type EncodedState, type Op } from './store.js';
import { writeAtomic } from '../shared/write-atomic.js';
import type { BaseWorld, WorldStamp, Worlds } from './world.js';

/**
 * What admin calls set on a sandbox besides its data: its own scenario, clock and upstream. One left out is the one
 * the start flags give (--scenario, --now or a real clock, --proxy), so a sandbox nobody set follows the flags of
 * the start that brings it back. Kept whole in the snapshot and in each log line that changed it.
 */
export const SandboxSettings = Type.Object({
  scenario: Type.Optional(Type.String({ minLength: 1 })),
  // as stored: a clock an older version kept out of range is repaired at start (SandboxRegistry.loadPersisted)
  clock: Type.Optional(StoredClockState),
  upstream: Type.Optional(Nullable(Type.String())),
  // kept out of the idle sweep (--sandbox-idle-ttl); only `true` is written
  kept: Type.Optional(Type.Boolean()),
  // its WireMock stub mappings and scenario states, when set through the WireMock API (src/wiremock/state.ts);
  // each mapping is checked again (parseMapping) when the sandbox is read back
  wiremock: Type.Optional(
    Type.Object({ mappings: Type.Array(Type.Unknown()), scenarios: Type.Record(Type.String(), Type.String()) }),
  ),
});
export type SandboxSettings = Static<typeof SandboxSettings>;

/**
 * A sandbox's changes folded into one document: what the log held up to line `upTo` (settings: none before them).
 * `marked`: the sandbox has a NAME.mark (written since it was made, so a missing one is damage); `createdAt`: when the
 * sandbox was made (files of earlier versions have neither).
 */
export type SnapshotDoc = {
  format: 'portal-mock-sandbox';
  version: 2;
  world: WorldStamp;
  upTo: number;
  state: EncodedState;
  settings?: SandboxSettings;
  marked?: true;
  createdAt?: string;
};
type LogLine = { n: number; seq: number; ops: Op[]; settings?: SandboxSettings };

/** Compaction starts when the log holds this many bytes since the last snapshot. */
export const compactFromBytes = 1024 * 1024;

export class DataError extends Error {}

const corrupt = (file: string, what: string) =>
  new DataError(`${file}: ${what}; move it away or delete it to start that sandbox fresh`);

/** Runs `work`; an error it throws means damaged files and becomes the DataError `toError` makes of its message. */
function orDataError<T>(work: () => T, toError: (message: string) => DataError): T {
  try {
    return work();
  } catch (err) {
    throw toError((err as Error).message);
  }
}

const snapshotOf = (
  world: WorldStamp,
  upTo: number,
  state: EncodedState,
  settings?: SandboxSettings,
  createdAt?: string,
): SnapshotDoc => ({
  format: 'portal-mock-sandbox',
  version: 2,
  world,
  upTo,
  state,
  ...(settings ? { settings } : {}),
  marked: true,
  ...(createdAt ? { createdAt } : {}),
});

/**
 * NAME.mark holds the number of the last line acknowledged, rewritten in place (one positional write of a fixed
 * width, after the line's own write) at every line: a log that ends before it was cut after the fact. Fixed width,
 * so a shorter number overwrites a longer one whole; JSON allows the padding.
 */
const markWidth = 48;
const markText = (line: number) => `${JSON.stringify({ acknowledged: line }).padEnd(markWidth - 1)}\n`;

/** The line NAME.mark says was acknowledged last; null without a mark; a mark that does not parse is damage. */
function readMark(markFile: string): number | null {
  if (!existsSync(markFile)) return null;
  const text = readFileSync(markFile, 'utf8');
  let line: unknown;
  try {
    line = (JSON.parse(text) as { acknowledged?: unknown }).acknowledged;
  } catch {
    line = undefined;
  }
  if (!Number.isInteger(line) || (line as number) < 0)
    throw corrupt(markFile, `not a mark of the last acknowledged line (${JSON.stringify(text.slice(0, 60))})`);
  return line as number;
}
const writeSnapshot = (file: string, doc: SnapshotDoc) =>
  new LowSync<SnapshotDoc>(new JSONFileSync<SnapshotDoc>(file), doc).write();

/**
 * The files of one persisted sandbox: NAME.json (a lowdb snapshot of its changes) and NAME.log (one line per
 * acknowledged write since). A line is written (one write call) before the answer leaves; compaction rewrites the
 * snapshot in the background and then keeps only the lines it does not cover. The log is created before the first
 * snapshot and replaced by a rename in compaction, so a snapshot without its log always means a lost log.
 */
export class SandboxLog {
  readonly logFile: string;
  readonly snapshotFile: string;
  readonly markFile: string;
  /** when the sandbox was made: kept in its snapshots, so a restart keeps it (set by the Sandbox for a new one) */
  createdAt: string | undefined;
  private fd: number | null = null;
  private lastLine: number;
  private bytesSinceSnapshot: number;
  /** lines written while a compaction runs: the ones its snapshot will not cover */
  private tail: string[] | null = null;
  private closed = false;
  /** the files were deleted (the sandbox was): a compaction still running must not bring the snapshot back */
  private removed = false;
  /** the world a sandbox without files yet was made from: its first snapshot is that world, unchanged */
  private origin: BaseWorld | null;

  constructor(
    dir: string,
    name: string,
    state: { lastLine: number; bytes: number; origin?: BaseWorld; createdAt?: string | undefined },
  ) {
    this.logFile = join(dir, `${name}.log`);
    this.snapshotFile = join(dir, `${name}.json`);
    this.markFile = join(dir, `${name}.mark`);
    this.createdAt = state.createdAt;
    this.lastLine = state.lastLine;
    this.bytesSinceSnapshot = state.bytes;
    this.origin = state.origin ?? null;
  }

  /** Whether a compaction is writing the snapshot now (the sandbox must not be dropped from memory meanwhile). */
  get compacting(): boolean {
    return this.tail !== null;
  }

  /** Whether the sandbox has no files yet (its first commit writes them). */
  get isNew(): boolean {
    return this.origin !== null;
  }

  /**
   * Writes the store's changes since the last call as one line (and the first snapshot, once). `settings.before`
   * are the sandbox's settings as of the last line, `settings.changed` the new ones when they changed since.
   */
  commit(store: SandboxStore, settings: { before: SandboxSettings; changed: SandboxSettings | null }): void {
    if (this.closed) return;
    const changes = store.takeChanges();
    if (!changes && !settings.changed) return;
    if (this.origin) this.writeFirstSnapshot(this.origin, settings.before);
    const seq = changes?.sequence ?? store.meta.sequence;
    const line: LogLine = { n: ++this.lastLine, seq, ops: changes?.ops ?? [] };
    if (settings.changed) line.settings = settings.changed;
    const text = `${JSON.stringify(line)}\n`;
    this.fd ??= openSync(this.logFile, 'a');
    writeSync(this.fd, text);
    // after the line: a crash between the two leaves the mark behind the log, never ahead of it. Opened per write
    // (r+: in place, from byte 0) rather than kept open: a descriptor per sandbox more would halve how many
    // sandboxes fit under the process's limit, for ~10 us a write saved (docs/store.md)
    this.writeMark(line.n);
    // bytes, as the bound says and as a load counts them (a line of Cyrillic text has about twice as many as chars)
    this.bytesSinceSnapshot += Buffer.byteLength(text);
    this.tail?.push(text);
    if (this.bytesSinceSnapshot >= compactFromBytes && !this.tail) {
      const now = settings.changed ?? settings.before;
      void this.compact(store, now).catch(() => {
        /* the log still holds everything */
      });
    }
  }

  /** The mark rewritten in place; one removed while the mock runs is made again (whole, under a temporary name). */
  private writeMark(line: number): void {
    try {
      writeFileSync(this.markFile, markText(line), { flag: 'r+' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      writeAtomic(this.markFile, markText(line));
    }
  }

  /** Folds the log into a new snapshot, then drops the lines it covers; writes that arrive meanwhile are kept. */
  async compact(store: SandboxStore, settings: SandboxSettings): Promise<void> {
    if (this.tail || this.closed) return;
    this.tail = [];
    try {
      const doc = snapshotOf(store.base.stamp, this.lastLine, store.encode(), settings, this.createdAt);
      await new Low<SnapshotDoc>(new JSONFile<SnapshotDoc>(this.snapshotFile), doc).write();
      if (this.removed) {
        rmSync(this.snapshotFile, { force: true });
        return;
      }
      // stopped meanwhile: the new snapshot with the whole log is consistent (its older lines are skipped)
      if (this.closed) return;
      const kept = this.tail.join('');
      writeAtomic(this.logFile, kept);
      if (this.fd !== null) closeSync(this.fd);
      this.fd = null;
      this.bytesSinceSnapshot = Buffer.byteLength(kept);
    } finally {
      this.tail = null;
    }
  }

  /**
   * A new sandbox's first snapshot: the world it was made from, before the changes about to be logged. The mark
   * (replacing one a deleted sandbox of that name may have left) and the (empty) log come first: a crash before the
   * snapshot leaves an empty log alone, which start-up drops as never acknowledged.
   */
  private writeFirstSnapshot(origin: BaseWorld, settings: SandboxSettings): void {
    writeAtomic(this.markFile, markText(this.lastLine));
    this.fd ??= openSync(this.logFile, 'a');
    const tenants = Object.fromEntries(Object.keys(origin.data.tenants).map((id) => [id, { collections: {} }]));
    const state = { meta: { ...origin.data.meta }, tenants };
    writeSnapshot(this.snapshotFile, snapshotOf(origin.stamp, this.lastLine, state, settings, this.createdAt));
    this.origin = null;
  }

  /** Stops writing and removes the files (DELETE of the sandbox, idle eviction). */
  remove(): void {
    this.removed = true;
    this.close();
    // the snapshot first: a snapshot left without its log would read as a lost log
    for (const file of [this.snapshotFile, this.logFile, this.markFile]) rmSync(file, { force: true });
  }

  close(): void {
    this.closed = true;
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}

/** The names of the sandboxes that have a NAME.json or NAME.log among `files`. */
export const persistedNames = (files: string[]): string[] => [
  ...new Set(files.filter((f) => f.endsWith('.json') || f.endsWith('.log')).map((f) => f.replace(/\.(json|log)$/, ''))),
];

/** A persisted sandbox rebuilt: data, log, settings (files of earlier versions have none). */
export type LoadedSandbox = { store: SandboxStore; log: SandboxLog; settings: SandboxSettings };

const checkSettings = (value: unknown, where: string): SandboxSettings => checkOrThrow(SandboxSettings, value, where);

/**
 * Rebuilds a persisted sandbox: its snapshot, then the log lines after it, which must continue it without a gap.
 * A torn last line (a crash in the middle of writing it) is dropped with a warning and cut from the file; any other
 * damage, a missing line or a missing log throws a DataError (exit 2). Null: only an empty log, the trace of a first
 * write cut short by a crash (nothing of it was acknowledged), which is removed with a warning.
 */
export function loadSandbox(
  dir: string,
  name: string,
  worlds: Worlds,
  warn: (message: string) => void,
): LoadedSandbox | null {
  const snapshotFile = join(dir, `${name}.json`);
  const logFile = join(dir, `${name}.log`);
  const markFile = join(dir, `${name}.mark`);
  if (!existsSync(snapshotFile)) {
    if (!existsSync(logFile)) throw new DataError(`${dir}: no files for sandbox ${name}`);
    if (statSync(logFile).size > 0) throw corrupt(logFile, 'a log without its snapshot (NAME.json)');
    warn(
      `${logFile}: removed an empty log without its snapshot (a first write cut short by a crash, never ` +
        'acknowledged)',
    );
    rmSync(logFile);
    rmSync(markFile, { force: true });
    return null;
  }
  let store: SandboxStore;
  let upTo = 0;
  let settings: SandboxSettings = {};
  const doc = orDataError(
    () => new JSONFileSync<unknown>(snapshotFile).read(),
    (message) => corrupt(snapshotFile, `not valid JSON (${message})`),
  );
  const snapshot = doc as Partial<SnapshotDoc> & { meta?: unknown; tenants?: unknown };
  const { world: stamp, state } = snapshot;
  if (
    snapshot.format === 'portal-mock-sandbox' &&
    snapshot.version === 2 &&
    stamp &&
    state &&
    Number.isInteger(snapshot.upTo)
  ) {
    const world = orDataError(
      () => worlds.forStamp(stamp, snapshotFile),
      (message) => new DataError(message),
    );
    store = new SandboxStore(name, world, { recordChanges: true });
    orDataError(
      () => store.applyState(state),
      (message) => corrupt(snapshotFile, message),
    );
    upTo = snapshot.upTo!;
    if (snapshot.marked === true && !existsSync(markFile)) {
      throw new DataError(
        `${markFile} is missing: ${snapshotFile} says sandbox ${name} has one, and without it a log cut short ` +
          `cannot be told from a whole one; put it back, or move the sandbox's files away to start it fresh`,
      );
    }
    if (snapshot.settings !== undefined) {
      const saved = snapshot.settings;
      settings = orDataError(
        () => checkSettings(saved, 'settings'),
        (message) => corrupt(snapshotFile, message),
      );
    }
    if (!existsSync(logFile) && isMigratedWithoutLog(snapshot as SnapshotDoc)) {
      closeSync(openSync(logFile, 'a'));
    } else if (!existsSync(logFile)) {
      throw new DataError(
        `${logFile} is missing: ${snapshotFile} holds the changes up to line ${upTo}, so the writes ` +
          `from line ${upTo + 1} on are lost; put the log back, or move both files away to start sandbox ${name} ` +
          'fresh',
      );
    }
  } else if (snapshot.meta !== undefined && snapshot.tenants !== undefined) {
    // a data file of portal-mock before the log (the whole data): taken as an import over today's base
    const data = checkOrThrow(Data, doc, `${snapshotFile} (move it away or delete it to start that sandbox fresh)`);
    store = new SandboxStore(name, worlds.get(data.meta.seed), { recordChanges: true });
    store.replace(data);
    store.takeChanges();
    closeSync(openSync(logFile, 'a')); // from now on a snapshot has its log and its mark, as a new sandbox's first one
    writeAtomic(markFile, markText(0));
    writeSnapshot(snapshotFile, snapshotOf(store.base.stamp, 0, store.encode(), settings));
  } else {
    throw corrupt(snapshotFile, 'not a portal-mock sandbox snapshot');
  }

  let lastLine = upTo;
  let bytes = 0;
  const acknowledged = readMark(markFile);
  if (existsSync(logFile)) {
    const raw = readFileSync(logFile);
    let end = raw.lastIndexOf(10) + 1;
    // a torn last line is cut from the file only once the log is known to hold every acknowledged line
    let torn: { at: number; what: string } | null = null;
    const dropTornLine = (at: number, what: string) => {
      torn = { at, what };
      end = at;
    };
    if (end < raw.length) dropTornLine(end, `${raw.length - end} bytes, a write cut short by a crash`);
    // the complete lines: every one ends with a newline
    const lines = raw.subarray(0, end).toString('utf8').split('\n').slice(0, -1);
    let offset = 0;
    let previous: number | null = null;
    for (const [i, lineText] of lines.entries()) {
      const at = offset;
      let line: LogLine;
      try {
        line = JSON.parse(lineText) as LogLine;
        if (!Number.isInteger(line.n) || !Number.isInteger(line.seq) || !Array.isArray(line.ops))
          throw new Error('not a log line');
      } catch (err) {
        if (i === lines.length - 1) {
          dropTornLine(at, (err as Error).message);
          break;
        }
        throw corrupt(logFile, `line ${i + 1} (byte ${at}) is damaged: ${(err as Error).message}`);
      }
      offset += Buffer.byteLength(lineText) + 1;
      // lines are numbered one by one; a number out of order or past the next one means lines were lost
      if (previous !== null && line.n <= previous) {
        throw corrupt(logFile, `line ${i + 1} (byte ${at}) is numbered ${line.n}, after ${previous}: out of order`);
      }
      previous = line.n;
      if (line.n <= lastLine) continue;
      if (line.n > lastLine + 1) {
        const first = lastLine + 1;
        const missing = line.n === first + 1 ? `line ${first} is` : `lines ${first} to ${line.n - 1} are`;
        throw corrupt(
          logFile,
          `${missing} missing (the data holds up to line ${lastLine}, the next one in the file, ` +
            `at byte ${at}, is line ${line.n}): acknowledged writes are lost`,
        );
      }
      orDataError(
        () => {
          for (const op of line.ops) {
            if ((op[0] === 'i' || op[0] === 'u' || op[0] === 'r') && !isCollectionName(op[2]))
              throw new Error(`unknown collection ${String(op[2]).slice(0, 40)}`);
            store.apply(op, worlds);
          }
          if (line.settings !== undefined) settings = checkSettings(line.settings, 'settings');
        },
        (message) => corrupt(logFile, `line ${i + 1} (byte ${at}) does not fit the data: ${message}`),
      );
      store.replayedSequence(line.seq);
      lastLine = line.n;
    }
    if (acknowledged !== null && acknowledged > lastLine)
      throw truncated(logFile, markFile, lastLine, acknowledged, end);
    const cut = torn as { at: number; what: string } | null;
    if (cut) {
      warn(`${logFile}: dropped a torn last line at byte ${cut.at} (${cut.what}); it was never acknowledged`);
      truncateSync(logFile, cut.at);
    }
    bytes = end;
  }
  // files of an earlier version have no mark: from now on they do, as a new sandbox's
  if (acknowledged === null) writeAtomic(markFile, markText(lastLine));
  orDataError(
    () => checkOwnRecords(store),
    (message) => corrupt(logFile, message),
  );
  const createdAt = typeof snapshot.createdAt === 'string' ? snapshot.createdAt : undefined;
  return { store, log: new SandboxLog(dir, name, { lastLine, bytes, createdAt }), settings };
}

/** The log ends (after line `lastLine`, at byte `end`) before the line its mark says was acknowledged. */
const truncated = (logFile: string, markFile: string, lastLine: number, acknowledged: number, end: number) => {
  const first = lastLine + 1;
  const missing = acknowledged === first ? `line ${first} is` : `lines ${first} to ${acknowledged} are`;
  return corrupt(
    logFile,
    `${missing} missing: the log ends at byte ${end} after line ${lastLine}, but ${markFile} says line ` +
      `${acknowledged} was acknowledged (the log was cut short): acknowledged writes are lost`,
  );
};

/**
 * Whether a snapshot is an earlier portal-mock data file as versions before settings rewrote it: those made no log
 * until the next write (upTo 0, data of its own). A first snapshot holds no data of its own and always had a log.
 */
const isMigratedWithoutLog = (doc: SnapshotDoc) =>
  doc.settings === undefined &&
  doc.upTo === 0 &&
  Object.values(doc.state.tenants).some((t) => t.tenant !== undefined || Object.keys(t.collections).length > 0);

/** Records the files brought in (not the base's) must match their schema, as seeded ones do. */
function checkOwnRecords(store: SandboxStore): void {
  for (const tenant of store.tenants()) {
    const base = store.base.data.tenants[tenant.tenant.id];
    for (const key of collectionNames) {
      const list = tenant[key] as readonly unknown[];
      if (base && list === base[key]) continue;
      const itemSchema: TSchema = TenantData.properties[key].items;
      const baseRecords = base ? store.base.positionsOf(base[key] as readonly unknown[]) : new Map<unknown, number>();
      for (const [i, record] of list.entries()) {
        if (!baseRecords.has(record)) checkOrThrow(itemSchema, record, `${tenant.tenant.id}.${key}[${i}]`);
      }
    }
  }
}
