// Waiting for something a test can observe (a state, a file, a log line), never for a fixed time: on a busy machine
// anything may take many times longer than on an idle one.
import { Writable } from 'node:stream';

/** How long a wait may last before the test gives up: a guard against a hang, not a speed check. */
export const waitLimitMs = 90_000;

/**
 * Calls `check` until it returns a truthy value, and returns that value. Past `limitMs` it returns the last value
 * (falsy), so the test's own assertion fails with its own message rather than a timeout.
 * @example const done = await waitFor(() => readView().finished); t.ok(done, 'processing finished');
 */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  { everyMs = 20, limitMs = waitLimitMs } = {},
): Promise<T> {
  const giveUpAt = performance.now() + limitMs;
  for (;;) {
    const value = await check();
    if (value || performance.now() > giveUpAt) return value;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** A pino destination for buildApp's `logger` that keeps the lines and tells when one matches. */
export function logCapture(level = 'trace') {
  const lines: string[] = [];
  const waiting = new Set<{ test: RegExp; resolve: (line: string | undefined) => void }>();
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      const line = chunk.toString('utf8');
      lines.push(line);
      for (const w of waiting)
        if (w.test.test(line)) {
          waiting.delete(w);
          w.resolve(line);
        }
      cb();
    },
  });
  return {
    lines,
    logger: { level, stream },
    /** The first line matching `test` logged after this call, or undefined if none came within `limitMs`. */
    next(test: RegExp, limitMs = waitLimitMs): Promise<string | undefined> {
      return new Promise((resolve) => {
        const w = {
          test,
          resolve: (line: string | undefined) => {
            clearTimeout(timer);
            resolve(line);
          },
        };
        const timer = setTimeout(() => {
          waiting.delete(w);
          resolve(undefined);
        }, limitMs);
        waiting.add(w);
      });
    },
  };
}
