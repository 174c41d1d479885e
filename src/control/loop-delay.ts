import { createHistogram, type RecordableHistogram } from 'node:perf_hooks';

/** The event loop's delay since the previous read: what GET /__admin/health?loop=true answers. */
export type LoopDelay = { maxMs: number; p99Ms: number; meanMs: number; samples: number; sinceMs: number };

/** Samples every 10 ms: a stall shows as one sample of about its length. */
const resolutionMs = 10;

/**
 * A 10 ms timer measuring how late each tick comes, as perf_hooks.monitorEventLoopDelay does; not that monitor itself,
 * as its reset() also forgets the last tick, so a stall that starts right after a read (before its next tick) is lost.
 * Here a read starts a new period and the last tick stays.
 */
class LoopSampler {
  private histogram: RecordableHistogram = createHistogram();
  private last = performance.now();
  private since = this.last;
  constructor() {
    setInterval(() => {
      const now = performance.now();
      const lateMs = now - this.last - resolutionMs;
      this.last = now;
      this.histogram.record(Math.max(1, Math.round(lateMs * 1000))); // microseconds, at least 1 (its minimum)
    }, resolutionMs).unref();
  }
  read(): LoopDelay {
    const now = performance.now();
    const h = this.histogram;
    const samples = h.count;
    const ms = (us: number) => Math.round(us / 10) / 100;
    const read: LoopDelay = {
      maxMs: samples ? ms(h.max) : 0,
      p99Ms: samples ? ms(h.percentile(99)) : 0,
      meanMs: samples ? ms(h.mean) : 0,
      samples,
      sinceMs: Math.round(now - this.since),
    };
    h.reset();
    this.since = now;
    return read;
  }
}

let sampler: LoopSampler | null = null;

/**
 * The loop's delay since the previous read, then a new period. Off until the first read (which answers zeros and
 * starts it), so an instance nobody measures runs no sampling timer; one sampler per process, as the loop is.
 */
export function readLoopDelay(): LoopDelay {
  if (sampler === null) {
    sampler = new LoopSampler();
    return { maxMs: 0, p99Ms: 0, meanMs: 0, samples: 0, sinceMs: 0 };
  }
  return sampler.read();
}
