import { hash } from 'node:crypto';
import type { Finding, FindingFilter } from '../schemas/control.js';
import { copyOf } from './journal.js';
import { NumberedList } from './outbox.js';

/** What a detector remembers of an earlier request: a time (sandbox ms), a count, a text, a request number. */
export type Memo = { at?: number; n?: number; s?: string; id?: number };

const memoryKeys = 1000;

/** Most characters of one client value in a key (`keyPart`), and of a whole key or a memo's text (`remembered`). */
export const keyPartChars = 128;
const keyChars = 512;

/**
 * A client's value (a URL, a device id, a token …) as the detectors remember it: a copy of it when it is short, else
 * its first 96 characters and a hash of the whole, so two values compare equal exactly when they are, and a message
 * can still quote the start. At most `max` characters, a copy that keeps nothing of the request: a slice of the
 * request's 16 KB URL kept the whole URL alive, 16 MB of heap per sandbox (issue 54). The same value always gives
 * the same part, and a part gives itself (so a key built of parts can be built again from a remembered part).
 */
export function keyPart(value: string, max = keyPartChars): string {
  if (value.length <= max) return copyOf(value);
  return `${copyOf(value.slice(0, max - 32))}#${hash('sha1', value, 'base64')}`;
}

/** A key or a memo's text as the detectors keep it (a key of `keyPart`s is kept as it is): compare memos with it. */
export const remembered = (value: string): string => keyPart(value, keyChars);
/** The key a look-up finds: bounded as `remembered`, not copied (it is not kept). */
const lookUp = (key: string): string => (key.length <= keyChars ? key : keyPart(key, keyChars));

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
    return this.memory.get(lookUp(key));
  }
  /** Remembers `memo` under `key`: both copied and bounded (`keyPart`), the key oldest set first dropped past 1000. */
  set(key: string, memo: Memo): void {
    const kept = remembered(key);
    this.memory.delete(kept);
    if (this.memory.size >= memoryKeys) this.memory.delete(this.memory.keys().next().value!);
    this.memory.set(kept, memo.s === undefined ? { ...memo } : { ...memo, s: remembered(memo.s) });
  }
  delete(key: string): void {
    this.memory.delete(lookUp(key));
  }
  /** How many keys the detectors remember. */
  get remembered(): number {
    return this.memory.size;
  }
  /** The remembered keys that start with `prefix` (of `keyPart`s, as the keys), with their memos. */
  *entries(prefix: string): Generator<[string, Memo]> {
    for (const entry of this.memory) if (entry[0].startsWith(prefix)) yield entry;
  }
}
