import { renameSync, rmSync, writeFileSync } from 'node:fs';

/**
 * Writes a whole file under a temporary name, then renames it into place: a reader never sees half of it. A write
 * that fails (disk full) leaves no temporary file behind, so callers never need to know its name.
 */
export function writeAtomic(file: string, content: string, mode?: number): void {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, content, mode === undefined ? undefined : { mode });
    renameSync(tmp, file);
  } catch (err) {
    try {
      rmSync(tmp, { force: true });
    } catch {
      // nothing to remove where nothing could be written (its directory is missing or a file): keep the first error
    }
    throw err;
  }
}
