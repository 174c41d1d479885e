import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';

/** The event loop's delay since the previous read: what GET /__admin/health?loop=true answers. */
export type LoopDelay = { maxMs: number; p99Ms: number; meanMs: number; samples: number; sinceMs: number };

/** Samples every 10 ms: a stall shows as one sample of about its length. */
const resolutionMs = 10;
let histogram: IntervalHistogram | null = null;
let since = 0;

const ms = (ns: number) => Math.round(ns / 1e4) / 100;

/**
 * The loop's delay since the previous read, then a fresh start. Off until the first read (which answers zeros and
 * starts it), so an instance nobody measures runs no sampling timer; one histogram per process, as the loop is.
 */
export function readLoopDelay(): LoopDelay {
  const now = performance.now();
  if (histogram === null) {
    histogram = monitorEventLoopDelay({ resolution: resolutionMs });
    histogram.enable();
    since = now;
    return { maxMs: 0, p99Ms: 0, meanMs: 0, samples: 0, sinceMs: 0 };
  }
  const samples = histogram.count;
  const read: LoopDelay = {
    maxMs: samples ? ms(histogram.max) : 0,
    p99Ms: samples ? ms(histogram.percentile(99)) : 0,
    meanMs: samples ? ms(histogram.mean) : 0,
    samples,
    sinceMs: Math.round(now - since),
  };
  histogram.reset();
  since = now;
  return read;
}
