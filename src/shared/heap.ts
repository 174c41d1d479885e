// The whole server's memory bound: the per-sandbox bounds multiply by the sandboxes, so the calls that make the
// server hold much more (a new sandbox, records made through the records API, uploaded bytes) are refused once the
// JavaScript heap is used past a share of its limit, before the process would run out of memory.
import { getHeapStatistics } from 'node:v8';

const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);

/**
 * Null while the heap in use is at most `percent` of V8's heap limit; past it, a sentence for the refusal saying
 * what to do. A heap statistics read costs about a microsecond: it is asked only where a call would grow the server.
 */
export function heapPastLimit(percent: number): string | null {
  if (percent >= 100) return null;
  const { used_heap_size: used, heap_size_limit: limit } = getHeapStatistics();
  if (used <= (limit * percent) / 100) return null;
  return (
    `the server's heap holds ${mb(used)} MB, past ${percent}% of its ${mb(limit)} MB (--max-heap-percent): ` +
    'delete or reset sandboxes (DELETE /__admin/sandboxes?prefix=…), start with --sandbox-idle-ttl, or lower ' +
    '--max-records and --sandbox-upload-mb'
  );
}
