import type { OutboxMessage } from '../schemas/control.js';
import type { SharedBytes } from './shared-bytes.js';

/** The last `limit` items, numbered as they arrive (numbers go on after a clear): oldest dropped first. */
export class NumberedList<T extends { id: number }> {
  protected items: T[] = [];
  private nextId = 1;
  readonly limit: number;
  constructor(limit: number) {
    this.limit = limit;
  }
  size(): number {
    return this.items.length;
  }
  add(item: Omit<T, 'id'>): T {
    const kept = { id: this.nextId++, ...item } as T;
    this.items.push(kept);
    if (this.items.length > this.limit) this.dropOldest();
    return kept;
  }
  /** how many were ever added (dropped and cleared ones too) */
  get added(): number {
    return this.nextId - 1;
  }
  list(): T[] {
    return this.items;
  }
  /** Drops every item; answers how many there were. */
  clear(): number {
    const n = this.items.length;
    this.items = [];
    return n;
  }
  dropOldest(): T | undefined {
    return this.items.shift();
  }
}

/** Messages an outbox keeps at most. */
export const outboxLimit = 500;
/**
 * Bytes an outbox keeps at most by default (its messages' JSON as UTF-8; --outbox-sandbox-kb). A push carries the
 * notification's title and body, each as long as --body-limit lets a client send: 500 of them could hold gigabytes.
 */
export const outboxMaxBytes = 4 * 1024 * 1024;

/**
 * What the mock "sent" (e-mails with codes, pushes): the last 500 messages within `maxBytes` and the server's budget
 * of outbox bytes (--outbox-mb), oldest dropped first. The newest message is always kept, even one past the bound
 * alone (it came within --body-limit): a test waiting for its push sees it.
 */
export class Outbox extends NumberedList<OutboxMessage> {
  readonly maxBytes: number;
  private bytes = 0;
  private readonly sizes = new WeakMap<OutboxMessage, number>();
  private readonly budget: SharedBytes<Outbox> | null;
  constructor(maxBytes = outboxMaxBytes, budget: SharedBytes<Outbox> | null = null) {
    super(outboxLimit);
    this.maxBytes = maxBytes;
    this.budget = budget;
  }
  /** bytes the kept messages take as JSON */
  get heldBytes(): number {
    return this.bytes;
  }
  override add(item: Omit<OutboxMessage, 'id'>): OutboxMessage {
    const kept = super.add(item);
    const size = Buffer.byteLength(JSON.stringify(kept));
    this.sizes.set(kept, size);
    this.bytes += size;
    this.budget?.charge(this, size);
    while (this.bytes > this.maxBytes && this.items.length > 1) this.dropOldest();
    this.budget?.wrote(this);
    return kept;
  }
  /** Drops every message, giving their bytes back to the server's budget (a reset; the sandbox gone). */
  override clear(): number {
    const freed = this.bytes;
    this.bytes = 0;
    const n = super.clear();
    this.budget?.charge(this, -freed);
    return n;
  }
  override dropOldest(): OutboxMessage | undefined {
    const dropped = super.dropOldest();
    if (dropped) {
      const size = this.sizes.get(dropped) ?? 0;
      this.bytes -= size;
      this.budget?.charge(this, -size);
    }
    return dropped;
  }
}
