import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package's root (package.json, fixtures/, scenarios/, openapi.json), found upwards from this module: it runs
 * from src/ (tests), from dist/ (library) and from the single-file bundle dist/portal-mock.mjs, at different depths.
 */
function findPackageRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'fixtures'))) return dir;
    if (dirname(dir) === dir)
      throw new Error(`portal-mock: no package root (package.json beside fixtures/) above ${start}`);
  }
}

export const packageRoot: string = findPackageRoot(dirname(fileURLToPath(import.meta.url)));
