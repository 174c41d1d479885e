// A directory of a test's own under the system's temp folder, removed with everything in it when the test ends.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A new empty directory named `prefix` and six random characters; removed at the test's teardown. */
export function tempDir(t: { teardown(fn: () => void): void }, prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
