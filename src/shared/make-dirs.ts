import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * `mkdir -p`, one level at a time. Node 20's `mkdirSync(dir, { recursive: true })` never returns for a path below
 * /proc (the kernel answers ENOENT for a parent that exists, and Node tries again forever), which would hang the
 * whole server on one request; made one by one, each level fails with its own error instead.
 */
export function makeDirs(dir: string, mode?: number): void {
  const missing: string[] = [];
  let at = resolve(dir);
  while (!existsSync(at)) {
    missing.unshift(at);
    const up = dirname(at);
    if (up === at) break;
    at = up;
  }
  for (const level of missing) mkdirSync(level, mode === undefined ? {} : { mode });
}
