import { readdirSync, readFileSync, watch, type FSWatcher } from 'node:fs';
import { basename, join } from 'node:path';
import { checkOrThrow, CheckError } from '../schemas/check.js';
import { ScenarioFile, type Scenario, type Stub } from '../schemas/scenario.js';
import { packageRoot } from '../paths.js';
import { findingCodes } from '../schemas/control.js';
import { matcherProblem } from '../shared/matchers.js';

export const bundledScenariosDir = join(packageRoot, 'scenarios');

export class ScenarioError extends Error {}

function readScenarioFile(file: string): ScenarioFile {
  let parsed: ScenarioFile;
  try {
    parsed = checkOrThrow(ScenarioFile, JSON.parse(readFileSync(file, 'utf8')), file);
  } catch (err) {
    // a CheckError's message is already "FILE: at PATH: expected"
    throw new ScenarioError(
      err instanceof CheckError ? err.message : `${file}: not valid JSON: ${(err as Error).message}`,
    );
  }
  if (`${parsed.name}.json` !== basename(file))
    throw new ScenarioError(
      `${file}: at /name: expected "${basename(file, '.json')}" (the file name), found "${parsed.name}"`,
    );
  return parsed;
}

/** Every operationId a scenario file names, with where it names it, for checking against the routes. */
function namedOperations(s: ScenarioFile): Array<{ path: string; id: string }> {
  const out: Array<{ path: string; id: string }> = [];
  s.stubs?.forEach((stub, i) => {
    if (stub.operationId !== undefined && stub.operationId !== '*')
      out.push({ path: `/stubs/${i}/operationId`, id: stub.operationId });
    for (const [j, id] of (stub.except ?? []).entries()) out.push({ path: `/stubs/${i}/except/${j}`, id });
  });
  for (const [i, l] of (s.latency ?? []).entries())
    for (const [j, id] of (l.operations ?? []).entries()) out.push({ path: `/latency/${i}/operations/${j}`, id });
  for (const [i, f] of (s.faults ?? []).entries())
    for (const [j, id] of (f.operations ?? []).entries()) out.push({ path: `/faults/${i}/operations/${j}`, id });
  for (const [j, id] of (s.forward ?? []).entries()) out.push({ path: `/forward/${j}`, id });
  for (const [j, id] of (s.compare ?? []).entries()) out.push({ path: `/compare/${j}`, id });
  return out;
}

const pointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** What is wrong with a stub's request matchers (a bad regex, an unknown matcher key), as "at PATH: …", or null. */
export function stubMatchProblem(stub: Stub, at: string): string | null {
  const { query, headers, body } = stub.match ?? {};
  for (const [name, m] of Object.entries(query ?? {})) {
    const problem = matcherProblem(m, `${at}/match/query/${pointer(name)}`, 'text');
    if (problem) return problem;
  }
  for (const [name, m] of Object.entries(headers ?? {})) {
    const problem = matcherProblem(m, `${at}/match/headers/${pointer(name)}`, 'text');
    if (problem) return problem;
  }
  return body === undefined ? null : matcherProblem(body, `${at}/match/body`, 'json');
}

/**
 * A stub matches by operationId, or by method and path together, never both, and its matchers are valid; a fault's
 * phase fits its kind.
 */
export function stubMatcherProblem(s: Pick<ScenarioFile, 'stubs' | 'faults'>): string | null {
  for (const [i, stub] of (s.stubs ?? []).entries()) {
    const problem = stubMatchProblem(stub, `/stubs/${i}`);
    if (problem) return problem;
    const byPath = stub.method !== undefined || stub.path !== undefined;
    if (byPath && stub.operationId !== undefined)
      return `at /stubs/${i}: give operationId, or method and path, not both`;
    if (byPath && (stub.method === undefined || stub.path === undefined))
      return `at /stubs/${i}: method and path go together`;
    if (!byPath && stub.operationId === undefined) return `at /stubs/${i}: give operationId, or method and path`;
  }
  const i =
    s.faults?.findIndex((f) => f.phase === 'before' && (f.kind === 'truncated' || f.kind === 'malformed')) ?? -1;
  if (i >= 0)
    return (
      `at /faults/${i}/phase: a ${s.faults![i]!.kind} answer is one the handler made, ` +
      'so it always comes after the commit: use "after-commit" or leave phase out'
    );
  return null;
}

/** Resolves `extends`: lists concatenated parents first, flags overridden by the child. */
function resolve(
  files: Map<string, { file: string; scenario: ScenarioFile }>,
  name: string,
  seen: string[] = [],
): Scenario {
  const entry = files.get(name)!; // a known name: parents are checked before they are resolved
  if (seen.includes(name))
    throw new ScenarioError(
      `${entry.file}: at /extends: scenarios extend each other in a cycle: ${[...seen, name].join(' → ')}`,
    );
  const { extends: parents, $schema: _s, ...own } = entry.scenario;
  const parentNames = parents === undefined ? [] : Array.isArray(parents) ? parents : [parents];
  let merged: Scenario = { name, description: own.description, file: entry.file, chain: [] };
  for (const parentName of parentNames) {
    if (!files.has(parentName)) throw new ScenarioError(`${entry.file}: at /extends: unknown scenario "${parentName}"`);
    merged = merge(merged, resolve(files, parentName, [...seen, name]));
  }
  return merge(merged, { ...own, file: entry.file, chain: [name] });
}

function merge(base: Scenario, over: Scenario): Scenario {
  return {
    ...base,
    ...over,
    sessions: base.sessions || over.sessions ? { ...base.sessions, ...over.sessions } : undefined,
    tenantOptions:
      base.tenantOptions || over.tenantOptions ? { ...base.tenantOptions, ...over.tenantOptions } : undefined,
    stubs: [...(base.stubs ?? []), ...(over.stubs ?? [])],
    latency: [...(base.latency ?? []), ...(over.latency ?? [])],
    faults: [...(base.faults ?? []), ...(over.faults ?? [])],
    forward: [...(base.forward ?? []), ...(over.forward ?? [])],
    compare: [...(base.compare ?? []), ...(over.compare ?? [])],
    findings:
      base.findings || over.findings
        ? { off: [...(base.findings?.off ?? []), ...(over.findings?.off ?? [])] }
        : undefined,
    chain: [...base.chain, ...over.chain],
  };
}

/** The names added, removed, or whose resolved scenario differs (a parent's change changes its children too). */
function changedNames(before: Map<string, Scenario>, after: Map<string, Scenario>): string[] {
  const names = new Set([...before.keys(), ...after.keys()]);
  return [...names].filter((n) => JSON.stringify(before.get(n)) !== JSON.stringify(after.get(n))).sort();
}

/**
 * The scenarios of the bundled directory and of every --scenarios directory (a later directory's file of the
 * same name wins). Loading is all-or-nothing: a bad file throws with its path and what was expected.
 */
export class ScenarioRegistry {
  private scenarios = new Map<string, Scenario>();
  private readonly dirs: string[];
  private readonly operationIds: ReadonlySet<string>;
  private watchers: FSWatcher[] = [];
  private reloadTimer: NodeJS.Timeout | null = null;
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(dirs: string[], operationIds: ReadonlySet<string>) {
    this.dirs = dirs;
    this.operationIds = operationIds;
    this.scenarios = this.loadAll();
  }

  private loadAll(): Map<string, Scenario> {
    const files = new Map<string, { file: string; scenario: ScenarioFile }>();
    for (const dir of this.dirs) {
      let names: string[];
      try {
        names = readdirSync(dir)
          .filter((f) => f.endsWith('.json'))
          .sort();
      } catch (err) {
        throw new ScenarioError(`${dir}: cannot read scenario directory: ${(err as Error).message}`);
      }
      for (const name of names) {
        const file = join(dir, name);
        const scenario = readScenarioFile(file);
        const problem = stubMatcherProblem(scenario);
        if (problem) throw new ScenarioError(`${file}: ${problem}`);
        for (const op of namedOperations(scenario)) {
          if (!this.operationIds.has(op.id))
            throw new ScenarioError(`${file}: at ${op.path}: unknown operationId "${op.id}"`);
        }
        scenario.findings?.off.forEach((code, j) => {
          if (!(findingCodes as readonly string[]).includes(code))
            throw new ScenarioError(
              `${file}: at /findings/off/${j}: unknown finding code "${code}"; known: ${findingCodes.join(', ')}`,
            );
        });
        files.set(scenario.name, { file, scenario });
      }
    }
    const resolved = new Map<string, Scenario>();
    for (const name of [...files.keys()].sort()) resolved.set(name, resolve(files, name));
    return resolved;
  }

  get(name: string): Scenario | undefined {
    return this.scenarios.get(name);
  }

  names(): string[] {
    return [...this.scenarios.keys()];
  }

  list(): Scenario[] {
    return [...this.scenarios.values()];
  }

  /**
   * Reloads every directory when a scenario file in it changes (written in place, or replaced by a rename as editors
   * do; changes within `debounceMs` are one reload). A bad edit is reported (one line: the file, the JSON path, what
   * was expected) and the last good set kept, whole; a good reload reports the names that changed (added, changed or
   * removed; none reported when nothing did). Never throws: it runs outside any request, on what is in the files.
   * A directory that cannot be watched (removed, say) is reported and watched again once it can be.
   */
  watch(
    onError: (message: string) => void,
    onReload: (names: string[]) => void,
    { debounceMs = 100, rewatchMs = 2000 } = {},
  ): void {
    this.closed = false;
    const report = (notify: () => void) => {
      try {
        notify();
      } catch {
        // a logger that throws must not take the process down
      }
    };
    const reload = () => {
      this.reloadTimer = null;
      if (this.closed) return;
      let next: Map<string, Scenario>;
      try {
        next = this.loadAll();
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        report(() =>
          onError(`scenario reload failed, keeping the last good scenarios: ${message.replace(/\s*\n\s*/g, ' ')}`),
        );
        return;
      }
      const changed = changedNames(this.scenarios, next);
      this.scenarios = next;
      if (changed.length > 0) report(() => onReload(changed));
    };
    const schedule = (file: string | Buffer | null) => {
      // editors' swap and backup files (.x.json.swp, x.json~) change nothing; no name: look anyway
      if (file !== null && !String(file).endsWith('.json')) return;
      if (this.reloadTimer) clearTimeout(this.reloadTimer);
      this.reloadTimer = setTimeout(reload, debounceMs);
      this.reloadTimer.unref();
    };
    const watchDir = (dir: string, again: boolean) => {
      if (this.closed) return;
      try {
        const watcher = watch(dir, { persistent: false }, (_event, file) => schedule(file));
        watcher.on('error', (err) => {
          watcher.close();
          this.watchers = this.watchers.filter((w) => w !== watcher);
          report(() => onError(`stopped watching ${dir} for scenario changes (${err.message}); trying again`));
          retry(dir);
        });
        this.watchers.push(watcher);
        if (again) schedule(null); // what changed while it was not watched
      } catch (err) {
        if (!again)
          report(() =>
            onError(
              `cannot watch ${dir} for scenario changes (${(err as NodeJS.ErrnoException).code ?? err}); trying again`,
            ),
          );
        retry(dir);
      }
    };
    const retry = (dir: string) => {
      if (this.closed) return;
      const timer = setTimeout(() => {
        this.retryTimers.delete(timer);
        watchDir(dir, true);
      }, rewatchMs);
      timer.unref();
      this.retryTimers.add(timer);
    };
    for (const dir of this.dirs) watchDir(dir, false);
  }

  close(): void {
    this.closed = true;
    for (const w of this.watchers) w.close();
    this.watchers = [];
    if (this.reloadTimer) clearTimeout(this.reloadTimer);
    this.reloadTimer = null;
    for (const t of this.retryTimers) clearTimeout(t);
    this.retryTimers.clear();
  }
}
