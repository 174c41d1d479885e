import type { OutboxMessage } from '../schemas/control.js';

/** The last `limit` items, numbered as they arrive (numbers go on after a clear): oldest dropped first. */
export class NumberedList<T extends { id: number }> {
  protected items: T[] = [];
  private nextId = 1;
  readonly limit: number;
  constructor(limit: number) {
    this.limit = limit;
  }
  add(item: Omit<T, 'id'>): T {
    const kept = { id: this.nextId++, ...item } as T;
    this.items.push(kept);
    if (this.items.length > this.limit) this.items.shift();
    return kept;
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
}

/** What the mock "sent" (e-mails with codes, pushes), bounded. */
export type Outbox = NumberedList<OutboxMessage>;
export const newOutbox = (): Outbox => new NumberedList(500);
