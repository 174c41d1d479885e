import type { Finding, FindingFilter } from '../schemas/control.js';
import { NumberedList } from './outbox.js';

/** What a detector remembers of an earlier request: a time (sandbox ms), a count, a text, a request number. */
export type Memo = { at?: number; n?: number; s?: string; id?: number };

const memoryKeys = 1000;

/**
 * The findings of a sandbox (the last `limit`, oldest dropped first) and what the detectors remember between
 * requests (the last 1000 keys): both bounded like the journal, however long the app runs. A clear drops the
 * findings only: the detectors keep their memory, so a protocol followed across the clear still counts.
 */
export class FindingLog extends NumberedList<Finding> {
  private readonly memory = new Map<string, Memo>();
  /** counts the requests seen, to order events when the clock is frozen */
  seq = 0;

  /** Newest first. */
  override list(f: FindingFilter = {}): Finding[] {
    const sinceMs = f.since === undefined ? undefined : Date.parse(f.since);
    return this.items
      .filter(
        (x) =>
          (f.code === undefined || x.code === f.code) &&
          (f.severity === undefined || x.severity === f.severity) &&
          (sinceMs === undefined || Date.parse(x.at) >= sinceMs),
      )
      .reverse();
  }
  counts(): { warning: number; error: number } {
    const out = { warning: 0, error: 0 };
    for (const x of this.items) out[x.severity]++;
    return out;
  }

  get(key: string): Memo | undefined {
    return this.memory.get(key);
  }
  set(key: string, memo: Memo): void {
    this.memory.delete(key);
    if (this.memory.size >= memoryKeys) this.memory.delete(this.memory.keys().next().value!);
    this.memory.set(key, memo);
  }
  delete(key: string): void {
    this.memory.delete(key);
  }
  /** The remembered keys that start with `prefix`, with their memos. */
  *entries(prefix: string): Generator<[string, Memo]> {
    for (const entry of this.memory) if (entry[0].startsWith(prefix)) yield entry;
  }
}
