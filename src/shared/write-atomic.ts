import { renameSync, writeFileSync } from 'node:fs';

/** Writes a whole file under a temporary name, then renames it into place: a reader never sees half of it. */
export function writeAtomic(file: string, content: string, mode?: number): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, content, mode === undefined ? undefined : { mode });
  renameSync(tmp, file);
}
