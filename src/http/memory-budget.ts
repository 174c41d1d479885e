// The whole process's memory budget (--max-memory-mb), beside the heap's (--max-heap-percent): the per-sandbox
// bounds multiply by the sandboxes, so the calls that make the server hold more (a new sandbox, records made through
// the records API, uploaded bytes) are refused once the process holds its budget. The heap alone missed most of it:
// uploaded bytes, large strings and Buffers live outside V8's heap (80 sandboxes × 60 MiB of uploads: 6.9 GB RSS
// with a 35 MB heap, nothing refused).
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { heapPastLimit } from '../shared/heap.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** the whole process's memory budget (--max-memory-mb, --max-heap-percent) */
    memory: MemoryBudget;
  }
}

/** What process.memoryUsage() answers, the parts the budget reads (arrayBuffers is part of external). */
export type MemoryReading = { rss: number; heapUsed: number; external: number };

export type MemoryBudgetOptions = {
  /** bytes the process may hold; 0: no budget */
  limitBytes: number;
  /** share of V8's heap limit, checked first (100: never) */
  heapPercent: number;
  /** the reading (tests give their own, to cross a budget without allocating it) */
  read?: () => MemoryReading;
  /** how long a reading is used before the next: memoryUsage() costs about 30 us, rss() about as much */
  readingMs?: number;
  now?: () => number;
};

const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);

export class MemoryBudget {
  readonly limitBytes: number;
  private readonly heapPercent: number;
  private readonly read: () => MemoryReading;
  private readonly readingMs: number;
  private readonly now: () => number;
  private reading: MemoryReading | null = null;
  private readAt = 0;
  /** bytes kept since the reading (uploads), which it cannot show yet */
  private keptSince = 0;
  /** bytes of upload bodies on their way in, reserved by their Content-Length */
  private arriving = 0;

  constructor(options: MemoryBudgetOptions) {
    this.limitBytes = options.limitBytes;
    this.heapPercent = options.heapPercent;
    this.read = options.read ?? (() => process.memoryUsage());
    this.readingMs = options.readingMs ?? 100;
    this.now = options.now ?? (() => performance.now());
  }

  /**
   * What the process holds by this count: its resident memory, or its heap and what it allocated outside the heap
   * when that is more (a Buffer's pages count in RSS only once written to), plus what was kept since the reading and
   * the bodies arriving.
   */
  held(): number {
    const at = this.now();
    if (this.reading === null || at - this.readAt >= this.readingMs) {
      this.reading = this.read();
      this.readAt = at;
      this.keptSince = 0;
    }
    const r = this.reading;
    return Math.max(r.rss, r.heapUsed + r.external) + this.keptSince + this.arriving;
  }

  /**
   * Null while the process may take `adding` more bytes; past either bound, a sentence for the refusal naming the
   * flag and what to do. Asked only where a call would grow the server, never on a read.
   */
  pastLimit(adding = 0): string | null {
    const heap = heapPastLimit(this.heapPercent);
    if (heap) return heap;
    if (this.limitBytes === 0) return null;
    const held = this.held();
    if (held + adding <= this.limitBytes) return null;
    return (
      `the server holds ${mb(held)} MB${adding > 0 ? `, ${mb(adding)} MB more were asked for` : ''}, past its ` +
      `budget of ${mb(this.limitBytes)} MB (--max-memory-mb): delete or reset sandboxes (DELETE ` +
      '/__admin/sandboxes?prefix=…), start with --sandbox-idle-ttl, lower --max-records and --sandbox-upload-mb, or ' +
      'raise --max-memory-mb where the machine has the memory'
    );
  }

  /** Counts `bytes` kept just now (an upload), until the next reading shows them. */
  kept(bytes: number): void {
    this.keptSince += bytes;
  }

  /** Counts a body on its way in; the function answered gives the bytes back (once, however often it is called). */
  reserve(bytes: number): () => void {
    this.arriving += bytes;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.arriving -= bytes;
    };
  }
}

/** `app.memory`, from --max-memory-mb and --max-heap-percent (and a test's reading). */
export const memoryBudgetPlugin = fp(
  async (app: FastifyInstance, options: { read?: () => MemoryReading; readingMs?: number }) => {
    app.decorate(
      'memory',
      new MemoryBudget({
        limitBytes: app.config.maxMemoryMb * 1024 * 1024,
        heapPercent: app.config.maxHeapPercent,
        ...(options.read ? { read: options.read } : {}),
        ...(options.readingMs !== undefined ? { readingMs: options.readingMs } : {}),
      }),
    );
  },
  { name: 'memory-budget' },
);
