// A WireMock root directory (--wiremock DIR, as WireMock's --root-dir): the stub mappings of `mappings/**/*.json`,
// read once at start, and a reader of the body files of `__files/`, read when a stub names one (docs/wiremock.md,
// "Files"). Plain functions, no Fastify: the plugin (src/plugins/wiremock-root.ts) turns a problem into the exit 2.
import { createHash } from 'node:crypto';
import { closeSync, existsSync, fstatSync, openSync, readdirSync, readSync, realpathSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { parseMapping, type MappingLimits, type StubMapping } from './mapping.js';
import { WireMockStubs, type StubLimits } from './state.js';
import type { FileReader } from './response.js';

/**
 * A UUID made from `text` (SHA-256, shaped as a version-5 UUID): the id of a mapping that gives none, so the same
 * files give the same ids on every start and every server (WireMock draws a random one).
 */
export function derivedId(text: string): string {
  const h = createHash('sha256').update(text).digest('hex');
  const variant = ((Number.parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Where a list of mappings went wrong: the JSON pointer (from the list's own root) and WireMock's title and detail. */
export type MappingProblem = { pointer: string; title: string; detail: string };

/**
 * The mappings of a list, each parsed (`at(i)` the pointer of the i-th, `idOf(i)` its id when it gives none), in
 * order; a later one with the id of an earlier one is refused (two stubs of one id: one would silently vanish).
 */
export function parseMappings(
  values: readonly unknown[],
  at: (i: number) => string,
  idOf: (i: number) => string,
  limits: MappingLimits,
): { mappings: StubMapping[] } | MappingProblem {
  const mappings: StubMapping[] = [];
  const seen = new Map<string, number>();
  for (const [i, value] of values.entries()) {
    const parsed = parseMapping(value, () => idOf(i), limits);
    if (!('mapping' in parsed)) {
      const error = parsed.errors.errors[0]!;
      return { pointer: `${at(i)}${error.source.pointer}`, title: error.title, detail: error.detail };
    }
    const earlier = seen.get(parsed.mapping.id);
    if (earlier !== undefined)
      return { pointer: `${at(i)}/id`, title: 'Duplicate id', detail: `the id of the mapping at ${at(earlier)}` };
    seen.set(parsed.mapping.id, i);
    mappings.push(parsed.mapping);
  }
  return { mappings };
}

export type RootLimits = {
  mapping: MappingLimits;
  /** the bounds of one sandbox's mappings: every sandbox starts with all of them */
  stubs: StubLimits;
};

/** A root that cannot be used: the message names the file (from DIR) and the JSON pointer. */
export type RootProblem = { problem: string };

/** The JSON files under `dir`, every depth, as paths relative to it, sorted (a stable order on every system). */
function jsonFiles(dir: string, maxFiles: number): string[] | RootProblem {
  const found: string[] = [];
  const walk = (sub: string): RootProblem | null => {
    const entries = readdirSync(join(dir, sub), { withFileTypes: true });
    for (const entry of entries) {
      const name = sub === '' ? entry.name : `${sub}/${entry.name}`;
      // a linked directory is not followed (a link back up would loop); a linked file is read
      if (entry.isDirectory()) {
        const problem = walk(name);
        if (problem) return problem;
      } else if (entry.name.endsWith('.json') && (entry.isFile() || statSync(join(dir, name)).isFile())) {
        found.push(name);
        if (found.length > maxFiles)
          return {
            problem: `more than ${maxFiles} mapping files, more than a sandbox may hold (--wiremock-max-mappings)`,
          };
      }
    }
    return null;
  };
  const problem = walk('');
  if (problem) return problem;
  // code-unit order, not the locale's: the same on every machine
  return found.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** A file's bytes when it is a regular file of at most `max` bytes; else why not (one open: no race with a change). */
function readBounded(path: string, max: number): Buffer | { missing: true } | { tooLarge: number } {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return { missing: true };
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { missing: true };
    if (stat.size > max) return { tooLarge: stat.size };
    const buf = Buffer.alloc(stat.size);
    let at = 0;
    while (at < buf.length) {
      const n = readSync(fd, buf, at, buf.length - at, at);
      if (n === 0) break;
      at += n;
    }
    return buf.subarray(0, at);
  } finally {
    closeSync(fd);
  }
}

/**
 * The mappings of `DIR/mappings/**\/*.json` in sorted path order, each file one mapping or `{"mappings": [...]}`;
 * together within the bounds of one sandbox. The first problem names its file and JSON pointer.
 */
export function readRootMappings(dir: string, limits: RootLimits): WireMockStubs | RootProblem {
  try {
    return readMappingsDir(join(dir, 'mappings'), limits);
  } catch (err) {
    // a directory that cannot be listed, a link to nothing: the start stops with the reason, not a stack
    const { code, path } = err as NodeJS.ErrnoException;
    if (code === undefined) throw err;
    return { problem: `${path ?? join(dir, 'mappings')}: cannot read it (${code})` };
  }
}

function readMappingsDir(mappingsDir: string, limits: RootLimits): WireMockStubs | RootProblem {
  if (!existsSync(mappingsDir)) return WireMockStubs.empty;
  if (!statSync(mappingsDir).isDirectory()) return { problem: `${mappingsDir} is not a directory` };
  const files = jsonFiles(mappingsDir, limits.stubs.maxMappings);
  if ('problem' in files) return { problem: `${mappingsDir}: ${files.problem}` };
  // a file's text may be pretty-printed: up to 4 times the bound of the compact JSON the mappings are counted as
  const maxFileBytes = limits.stubs.maxBytes * 4;
  let stubs = WireMockStubs.empty;
  const from = new Map<string, string>(); // id → the file that gave it
  for (const name of files) {
    const file = join(mappingsDir, name);
    const bytes = readBounded(file, maxFileBytes);
    if ('missing' in bytes) return { problem: `${file}: cannot read it` };
    if ('tooLarge' in bytes)
      return {
        problem: `${file}: ${bytes.tooLarge} bytes, more than a sandbox's mappings may take (--wiremock-sandbox-kb)`,
      };
    let json: unknown;
    try {
      json = JSON.parse(bytes.toString('utf8'));
    } catch (err) {
      return { problem: `${file}: not valid JSON: ${(err as Error).message}` };
    }
    // WireMock's two shapes: one mapping, or {"mappings": [...]} (what GET /__admin/mappings answers, too)
    const many =
      json !== null && typeof json === 'object' && !Array.isArray(json) && 'mappings' in json && !('request' in json);
    const list = many ? (json as { mappings: unknown }).mappings : [json];
    if (!Array.isArray(list)) return { problem: `${file}: at /mappings: expected an array of stub mappings` };
    const parsed = parseMappings(
      list,
      (i) => (many ? `/mappings/${i}` : ''),
      (i) => derivedId(`wiremock-root:${name}#${i}`),
      limits.mapping,
    );
    if (!('mappings' in parsed))
      return { problem: `${file}: at ${parsed.pointer || '/'}: ${parsed.title}: ${parsed.detail}` };
    for (const [i, mapping] of parsed.mappings.entries()) {
      const other = from.get(mapping.id);
      if (other !== undefined)
        return {
          problem: `${file}: at ${many ? `/mappings/${i}` : ''}/id: ${mapping.id}, the id of a mapping of ${other}`,
        };
      from.set(mapping.id, file);
      stubs = stubs.with(mapping);
    }
    const over = WireMockStubs.overLimits(stubs, limits.stubs);
    if (over) return { problem: `${file}: with this file, ${over}` };
  }
  return stubs;
}

/**
 * The reader of `DIR/__files`: a relative name, never one that leaves it (`..`, an absolute path, a link that points
 * outside), read when a stub is served (a file changed meanwhile is served as it is now, as WireMock does); at most
 * `maxBytes`. A missing or larger file is undefined (the stub's answer says no body file); `warn` is told why.
 */
export function rootFileReader(dir: string, maxBytes: number, warn: (message: string) => void = () => {}): FileReader {
  const filesDir = join(dir, '__files');
  let realRoot: string | null = null;
  return (name) => {
    if (name === '' || name.includes('\0') || name.startsWith('/') || name.startsWith('\\')) return undefined;
    if (name.split(/[\\/]/).some((s) => s === '..' || s === '' || s === '.')) return undefined;
    const path = join(filesDir, name);
    let real: string;
    try {
      realRoot ??= realpathSync(filesDir);
      real = realpathSync(path);
    } catch {
      return undefined;
    }
    const inside = relative(realRoot, real);
    if (inside === '' || inside.startsWith('..') || inside.startsWith(sep)) return undefined;
    const bytes = readBounded(real, maxBytes);
    if ('missing' in bytes) return undefined;
    if ('tooLarge' in bytes) {
      warn(`${path}: ${bytes.tooLarge} bytes, more than a body file may have (${maxBytes}, --body-limit); not served`);
      return undefined;
    }
    return bytes;
  };
}
