// One budget of bytes that many lists of one server share (the journals, --journal-mb; the outboxes, --outbox-mb):
// each list has its own cap, which multiplies by the sandboxes; this bound does not.

/** A list of one sandbox that keeps its oldest items first and can let them go. */
export interface SharedBytesList {
  size(): number;
  dropOldest(): void;
}

/**
 * The bytes of many lists together: past `maxBytes`, the list written to longest ago gives up its oldest items
 * first (an abandoned sandbox's before a busy one's), down to none; the list just written keeps its newest item. A
 * list is its sandbox's: it gives its bytes back when the sandbox goes (cleared, closed).
 */
export class SharedBytes<L extends SharedBytesList = SharedBytesList> {
  readonly maxBytes: number;
  private used = 0;
  /** the lists holding items, the one written to longest ago first (a Set keeps the order of insertion) */
  private readonly lists = new Set<L>();
  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }
  /** Bytes the items of every list take now. */
  get usedBytes(): number {
    return this.used;
  }
  /** How many lists hold items. */
  get listCount(): number {
    return this.lists.size;
  }
  /** @internal a list's items grew or shrank by `bytes` */
  charge(list: L, bytes: number): void {
    this.used += bytes;
    if (list.size() === 0) this.lists.delete(list);
  }
  /** @internal `list` was just written to: it goes last, then the budget is kept (never its newest item) */
  wrote(list: L): void {
    this.lists.delete(list);
    this.lists.add(list);
    while (this.used > this.maxBytes) {
      const oldest = this.lists.values().next().value;
      if (oldest === undefined || (oldest === list && list.size() <= 1)) break;
      if (oldest.size() === 0) this.lists.delete(oldest);
      else oldest.dropOldest();
    }
  }
}
