import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, watch, type FSWatcher } from 'node:fs';
import { basename, join } from 'node:path';
import { checkOrThrow, CheckError } from '../schemas/check.js';
import { dataCollections, dataEntryKinds, ScenarioFile, type Scenario, type Stub } from '../schemas/scenario.js';
import { packageRoot } from '../paths.js';
import { findingCodes } from '../schemas/control.js';
import { defaultRegexLimits, matcherProblem } from '../shared/matchers.js';
import { ApiError, fail } from '../errors.js';
import { writeAtomic } from '../shared/write-atomic.js';
import { stubAnswersProblem } from './stub-answer.js';
import { defaultMappingLimits, type MappingLimits, type StubMapping } from '../wiremock/mapping.js';
import { derivedId, parseMappings } from '../wiremock/root.js';
import { WireMockStubs, type StubLimits } from '../wiremock/state.js';

export const bundledScenariosDir = join(packageRoot, 'scenarios');

export class ScenarioError extends Error {}

/**
 * What is wrong with a definition's data block, as "at /data/N…: …", or null. Checked before the whole schema, whose
 * message for an entry (one of three shapes) would only say that none fits: this one names the field.
 */
function dataBlockProblem(value: unknown): string | null {
  const data = typeof value === 'object' && value !== null ? (value as { data?: unknown }).data : undefined;
  if (!Array.isArray(data)) return null; // absent, or not a list: the whole schema says so
  for (const [i, entry] of data.entries()) {
    const at = `/data/${i}`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
      return `at ${at}: expected an object: {"create"|"patch"|"remove": COLLECTION, …}`;
    const kinds = (Object.keys(dataEntryKinds) as Array<keyof typeof dataEntryKinds>).filter((k) => k in entry);
    if (kinds.length !== 1) {
      const found = kinds.length > 1 ? `, found ${kinds.join(' and ')}` : '';
      return `at ${at}: expected exactly one of "create", "patch" or "remove" (the collection)${found}`;
    }
    const kind = kinds[0]!;
    const collection: unknown = (entry as Record<string, unknown>)[kind];
    if (typeof collection !== 'string' || !dataCollections.includes(collection))
      return (
        `at ${at}/${kind}: unknown collection ${JSON.stringify(collection)?.slice(0, 80)}; ` +
        `known: ${dataCollections.join(', ')}`
      );
    try {
      checkOrThrow(dataEntryKinds[kind], entry, at);
    } catch (err) {
      if (err instanceof CheckError) return `at ${at}${err.path}: ${err.expected}`;
      throw err;
    }
  }
  return null;
}

/** The definition checked whole: its data block first (for the field's path), then the schema. */
function checkScenarioValue(value: unknown, where: string): ScenarioFile {
  const problem = dataBlockProblem(value);
  if (problem) throw new ScenarioError(`${where}: ${problem}`);
  return checkOrThrow(ScenarioFile, value, where);
}

/** Files in a scenario directory that are not scenarios: the JSON Schema of the files themselves. */
const isScenarioFileName = (name: string) => name.endsWith('.json') && !name.endsWith('.schema.json');

function readScenarioFile(file: string): ScenarioFile {
  let parsed: ScenarioFile;
  try {
    parsed = checkScenarioValue(JSON.parse(readFileSync(file, 'utf8')), file);
  } catch (err) {
    if (err instanceof ScenarioError) throw err;
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
export function stubMatchProblem(stub: Stub, at: string, maxProgram = defaultRegexLimits.maxProgram): string | null {
  const { query, headers, body } = stub.match ?? {};
  for (const [name, m] of Object.entries(query ?? {})) {
    const problem = matcherProblem(m, `${at}/match/query/${pointer(name)}`, 'text', maxProgram);
    if (problem) return problem;
  }
  for (const [name, m] of Object.entries(headers ?? {})) {
    const problem = matcherProblem(m, `${at}/match/headers/${pointer(name)}`, 'text', maxProgram);
    if (problem) return problem;
  }
  return body === undefined ? null : matcherProblem(body, `${at}/match/body`, 'json', maxProgram);
}

/**
 * A stub matches by operationId, or by method and path together, never both, and its matchers are valid; a fault's
 * phase fits its kind.
 */
export function stubMatcherProblem(
  s: Pick<ScenarioFile, 'stubs' | 'faults'>,
  maxProgram = defaultRegexLimits.maxProgram,
): string | null {
  for (const [i, stub] of (s.stubs ?? []).entries()) {
    const problem = stubMatchProblem(stub, `/stubs/${i}`, maxProgram);
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

type Definitions = Map<string, { file: string; scenario: ScenarioFile }>;

const definedSource = (name: string) => `admin API (PUT /__admin/scenarios/${name})`;

/**
 * The operations the routes declare: every operationId, and those that take a JSON body; and the most instructions
 * a stub's regex may compile to (--regex-max-program).
 */
export type KnownOperations = {
  operationIds: ReadonlySet<string>;
  jsonBodies: ReadonlySet<string> | null;
  regexMaxProgram: number;
};

/** What a scenario's WireMock mappings come after, and the bounds of a sandbox's mappings (src/wiremock/state.ts). */
export type ScenarioWireMock = { start: WireMockStubs; limits: StubLimits };

/** A definition's own WireMock mappings, parsed once when it is checked (keyed by the definition as read). */
const ownMappings = new WeakMap<ScenarioFile, readonly StubMapping[]>();

/**
 * A definition's `wiremock` mappings parsed (a mapping without an id gets one made from the scenario's name and its
 * place, the same on every start); the first that cannot be served refuses the definition, naming its pointer.
 */
function parseScenarioMappings(scenario: ScenarioFile, where: string, limits: MappingLimits): readonly StubMapping[] {
  const known = ownMappings.get(scenario);
  if (known) return known;
  const parsed = parseMappings(
    scenario.wiremock?.mappings ?? [],
    (i) => `/wiremock/mappings/${i}`,
    (i) => derivedId(`scenario:${scenario.name}#${i}`),
    limits,
  );
  if (!('mappings' in parsed))
    throw new ScenarioError(`${where}: at ${parsed.pointer}: ${parsed.title}: ${parsed.detail}`);
  ownMappings.set(scenario, parsed.mappings);
  return parsed.mappings;
}

/** A body matcher on a stub whose requests carry no JSON body would never match: refused, not silently inert. */
function bodyMatcherProblem(s: ScenarioFile, jsonBodies: ReadonlySet<string> | null): string | null {
  for (const [i, stub] of (s.stubs ?? []).entries()) {
    if (stub.match?.body === undefined) continue;
    const at = `at /stubs/${i}/match/body`;
    if (stub.method !== undefined && ['GET', 'HEAD', 'DELETE', 'OPTIONS'].includes(stub.method.toUpperCase()))
      return `${at}: a ${stub.method.toUpperCase()} request carries no body, so a body matcher never matches`;
    const op = stub.operationId;
    if (jsonBodies && op !== undefined && op !== '*' && !jsonBodies.has(op))
      return `${at}: operation "${op}" takes no JSON body, so a body matcher never matches`;
  }
  return null;
}

/** What every definition is checked for beyond its schema, wherever it comes from (a file, the admin API). */
function checkDefinition(scenario: ScenarioFile, where: string, known: KnownOperations): void {
  const { operationIds } = known;
  const problem =
    stubMatcherProblem(scenario, known.regexMaxProgram) ??
    stubAnswersProblem(scenario) ??
    bodyMatcherProblem(scenario, known.jsonBodies);
  if (problem) throw new ScenarioError(`${where}: ${problem}`);
  parseScenarioMappings(scenario, where, { ...defaultMappingLimits, maxProgram: known.regexMaxProgram });
  for (const op of namedOperations(scenario)) {
    if (!operationIds.has(op.id)) throw new ScenarioError(`${where}: at ${op.path}: unknown operationId "${op.id}"`);
  }
  scenario.findings?.off.forEach((code, j) => {
    if (!(findingCodes as readonly string[]).includes(code))
      throw new ScenarioError(
        `${where}: at /findings/off/${j}: unknown finding code "${code}"; known: ${findingCodes.join(', ')}`,
      );
  });
}

/** A definition given as a value (the admin API, the saved definitions): the schema, then checkDefinition. */
function checkDefinitionValue(value: unknown, where: string, known: KnownOperations): ScenarioFile {
  let scenario: ScenarioFile;
  try {
    scenario = checkScenarioValue(value, where);
  } catch (err) {
    if (err instanceof ScenarioError) throw err;
    throw new ScenarioError(err instanceof CheckError ? err.message : `${where}: ${(err as Error).message}`);
  }
  checkDefinition(scenario, where, known);
  return scenario;
}

/** Resolves `extends`: lists concatenated parents first, flags overridden by the child. */
function resolve(files: Definitions, name: string, seen: string[] = []): Scenario {
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
    data: [...(base.data ?? []), ...(over.data ?? [])],
    wiremock:
      base.wiremock || over.wiremock
        ? {
            mappings: [...(base.wiremock?.mappings ?? []), ...(over.wiremock?.mappings ?? [])],
            scenarios: { ...base.wiremock?.scenarios, ...over.wiremock?.scenarios },
          }
        : undefined,
    chain: [...base.chain, ...over.chain],
  };
}

/** The names added, removed, or whose resolved scenario differs (a parent's change changes its children too). */
function changedNames(before: Map<string, Scenario>, after: Map<string, Scenario>): string[] {
  const names = new Set([...before.keys(), ...after.keys()]);
  return [...names].filter((n) => JSON.stringify(before.get(n)) !== JSON.stringify(after.get(n))).sort();
}

/** Where and how many scenarios the admin API may define on this instance. */
export type DefinedOptions = {
  /** --data: one file per definition, DIR/NAME.json; null: they last as long as the process */
  definedDir?: string | null;
  /** the one file of every definition that earlier versions wrote under --data: moved into definedDir at start */
  legacyFile?: string | null;
  /** the operations that take a JSON body (a body matcher on another is refused); null: not checked */
  jsonBodies?: ReadonlySet<string> | null;
  /** --regex-max-program */
  regexMaxProgram?: number;
  /** --max-scenarios: most definitions at once; one more is a 409 */
  maxDefined?: number;
  /** --max-scenario-bytes: most bytes of one definition as compact JSON; a larger one is a 413 */
  maxDefinedBytes?: number;
  /** the mappings of --wiremock and the bounds of a sandbox's; default: none, and the flags' defaults */
  wiremock?: ScenarioWireMock;
};

/** A definition as its own file holds it. */
const definedText = (scenario: ScenarioFile) => `${JSON.stringify(scenario, null, 2)}\n`;

/**
 * The scenarios of the bundled directory and of every --scenarios directory (a later directory's file of the
 * same name wins). Loading is all-or-nothing: a bad file throws with its path and what was expected.
 */
export class ScenarioRegistry {
  private scenarios = new Map<string, Scenario>();
  /** each scenario's WireMock mappings as a sandbox gets them: --wiremock's, then its chain's (src/wiremock/state.ts) */
  private stubs = new Map<string, WireMockStubs>();
  private readonly wiremock: ScenarioWireMock;
  /** the last good read of the files, and the scenarios the admin API defined (over the files) */
  private files: Definitions;
  private defined: Map<string, ScenarioFile>;
  private readonly definedDir: string | null;
  private readonly legacyFile: string | null;
  private readonly maxDefined: number;
  private readonly maxDefinedBytes: number;
  private readonly dirs: string[];
  private readonly known: KnownOperations;
  private watchers: FSWatcher[] = [];
  private reloadTimer: NodeJS.Timeout | null = null;
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(dirs: string[], operationIds: ReadonlySet<string>, options: DefinedOptions = {}) {
    this.dirs = dirs;
    this.known = {
      operationIds,
      jsonBodies: options.jsonBodies ?? null,
      regexMaxProgram: options.regexMaxProgram ?? defaultRegexLimits.maxProgram,
    };
    this.definedDir = options.definedDir ?? null;
    this.legacyFile = options.legacyFile ?? null;
    this.maxDefined = options.maxDefined ?? 200;
    this.maxDefinedBytes = options.maxDefinedBytes ?? 262_144;
    this.wiremock = options.wiremock ?? {
      start: WireMockStubs.empty,
      limits: { maxMappings: 500, maxBytes: 1024 * 1024 },
    };
    this.files = this.readFiles();
    this.defined = this.readDefined();
    [this.scenarios, this.stubs] = this.resolveAll(this.files, this.defined);
  }

  /**
   * The scenarios an earlier run defined through the admin API (--data): one file each in the directory, and those
   * of an earlier version's single file, which are then written as files of their own and the single file removed
   * (all checked before anything is written, so a crash midway only repeats the move at the next start). A damaged
   * file stops the start.
   */
  private readDefined(): Map<string, ScenarioFile> {
    const defined = new Map<string, ScenarioFile>();
    const dir = this.definedDir;
    if (dir && existsSync(dir)) {
      // NAME.json only: a NAME.json.PID.tmp a crash left is no definition
      for (const fileName of readdirSync(dir)
        .filter((n) => n.endsWith('.json'))
        .sort()) {
        const file = join(dir, fileName);
        let value: unknown;
        try {
          value = JSON.parse(readFileSync(file, 'utf8'));
        } catch (err) {
          throw new ScenarioError(`${file}: not valid JSON: ${(err as Error).message}`);
        }
        const scenario = checkDefinitionValue(value, file, this.known);
        if (`${scenario.name}.json` !== fileName)
          throw new ScenarioError(`${file}: at /name: expected "${basename(fileName, '.json')}" (the file name)`);
        defined.set(scenario.name, scenario);
      }
    }
    const legacy = this.legacyFile;
    if (!legacy || !existsSync(legacy)) return defined;
    let saved: { scenarios?: unknown };
    try {
      saved = JSON.parse(readFileSync(legacy, 'utf8')) as typeof saved;
    } catch (err) {
      throw new ScenarioError(`${legacy}: not valid JSON: ${(err as Error).message}`);
    }
    if (!Array.isArray(saved.scenarios)) throw new ScenarioError(`${legacy}: at /scenarios: expected an array`);
    const moved: ScenarioFile[] = [];
    saved.scenarios.forEach((value, i) => {
      const scenario = checkDefinitionValue(value, `${legacy}: at /scenarios/${i}`, this.known);
      // a file of its own is newer: the move was cut short after writing it
      if (!defined.has(scenario.name)) moved.push(scenario);
    });
    if (dir) {
      mkdirSync(dir, { recursive: true });
      for (const scenario of moved) {
        writeAtomic(join(dir, `${scenario.name}.json`), definedText(scenario));
        defined.set(scenario.name, scenario);
      }
      rmSync(legacy, { force: true });
    } else for (const scenario of moved) defined.set(scenario.name, scenario);
    return defined;
  }

  /** Saves one definition (null: removes its file); the others are not touched, so a save costs what it saves. */
  private writeDefined(name: string, scenario: ScenarioFile | null): void {
    if (!this.definedDir) return;
    const file = join(this.definedDir, `${name}.json`);
    if (scenario === null) {
      rmSync(file, { force: true });
      return;
    }
    mkdirSync(this.definedDir, { recursive: true });
    writeAtomic(file, definedText(scenario));
  }

  /**
   * Defines (or replaces) a scenario of this instance, as a scenario file would, checked the same way; over a
   * file of the same name while it exists. Sandboxes set to it use the new version from their next request. With
   * --data it is written before this returns. Throws a ScenarioError (with the JSON path) and changes nothing when
   * the definition is not valid; a 413 when it is larger than --max-scenario-bytes, a 409 when it would be one more
   * than --max-scenarios.
   */
  define(name: string, value: unknown): { scenario: Scenario; created: boolean } {
    const bytes = Buffer.byteLength(JSON.stringify(value) ?? '');
    if (bytes > this.maxDefinedBytes)
      throw new ApiError(
        'payloadTooLarge',
        `scenario "${name}" is ${bytes} bytes as JSON; a scenario defined through the admin API may be at most ` +
          `${this.maxDefinedBytes} (--max-scenario-bytes): put large stub bodies in a scenario file (--scenarios DIR)`,
      );
    if (!this.defined.has(name) && this.defined.size >= this.maxDefined)
      throw fail.conflict(
        `scenario "${name}" cannot be defined: ${this.defined.size} scenarios are defined through the admin API, ` +
          `the limit is ${this.maxDefined} (--max-scenarios): delete one first (DELETE /__admin/scenarios/NAME)`,
      );
    const scenario = checkDefinitionValue(value, `scenario "${name}"`, this.known);
    if (scenario.name !== name)
      throw new ScenarioError(`scenario "${name}": at /name: expected "${name}" (the name in the URL)`);
    const defined = new Map(this.defined).set(name, scenario);
    const [next, stubs] = this.resolveAll(this.files, defined);
    this.writeDefined(name, scenario);
    const created = !this.scenarios.has(name);
    this.defined = defined;
    this.scenarios = next;
    this.stubs = stubs;
    return { scenario: next.get(name)!, created };
  }

  /** Whether the scenario of that name was defined through the admin API (else a file's, or unknown). */
  isDefined(name: string): boolean {
    return this.defined.has(name);
  }

  /** Whether a scenario file of that name was read (the admin API may define one over it). */
  hasFile(name: string): boolean {
    return this.files.has(name);
  }

  /** The definition of a scenario as given (a file's or the admin API's), before `extends` is resolved. */
  definition(name: string): ScenarioFile | undefined {
    return this.defined.get(name) ?? this.files.get(name)?.scenario;
  }

  /**
   * Deletes a scenario defined through the admin API; a file of the same name, if any, applies again. Throws a
   * ScenarioError when another scenario extends it and nothing else of that name remains.
   */
  undefine(name: string): void {
    const defined = new Map(this.defined);
    defined.delete(name);
    const [next, stubs] = this.resolveAll(this.files, defined);
    this.writeDefined(name, null);
    this.defined = defined;
    this.scenarios = next;
    this.stubs = stubs;
  }

  private readFiles(): Definitions {
    const files: Definitions = new Map();
    for (const dir of this.dirs) {
      let names: string[];
      try {
        names = readdirSync(dir).filter(isScenarioFileName).sort();
      } catch (err) {
        throw new ScenarioError(`${dir}: cannot read scenario directory: ${(err as Error).message}`);
      }
      for (const name of names) {
        const file = join(dir, name);
        const scenario = readScenarioFile(file);
        checkDefinition(scenario, file, this.known);
        files.set(scenario.name, { file, scenario });
      }
    }
    return files;
  }

  /**
   * Every scenario resolved: the files' and, over them, the ones defined through the admin API; and the WireMock
   * mappings each gives a sandbox, within a sandbox's bounds (else the scenario is refused).
   */
  private resolveAll(
    files: Definitions,
    defined: Map<string, ScenarioFile>,
  ): [Map<string, Scenario>, Map<string, WireMockStubs>] {
    const all: Definitions = new Map(files);
    for (const [name, scenario] of defined) all.set(name, { file: definedSource(name), scenario });
    const resolved = new Map<string, Scenario>();
    const stubs = new Map<string, WireMockStubs>();
    for (const name of [...all.keys()].sort()) {
      const scenario = resolve(all, name);
      resolved.set(name, scenario);
      stubs.set(name, this.stubsOf(all, scenario));
    }
    return [resolved, stubs];
  }

  /**
   * The mappings of --wiremock, then those of each scenario of the chain (parents first); one with the id of an
   * earlier one takes its place (a scenario overrides a --wiremock stub by giving its id); the WireMock scenarios in
   * the states the chain gives. A bug capture (`pin`) holds a sandbox's whole set: its own, without --wiremock's.
   * Past a sandbox's bounds, the scenario is refused.
   */
  private stubsOf(all: Definitions, scenario: Scenario): WireMockStubs {
    const { start, limits } = this.wiremock;
    let stubs = scenario.pin ? WireMockStubs.empty : start;
    const mappingLimits = { ...defaultMappingLimits, maxProgram: this.known.regexMaxProgram };
    for (const name of scenario.chain) {
      const entry = all.get(name)!;
      for (const mapping of parseScenarioMappings(entry.scenario, entry.file, mappingLimits))
        stubs = stubs.with(mapping);
    }
    for (const [name, state] of Object.entries(scenario.wiremock?.scenarios ?? {}))
      stubs = stubs.withState(name, state);
    const over = WireMockStubs.overLimits(stubs, limits);
    if (over)
      throw new ScenarioError(
        `${scenario.file}: at /wiremock: with the mappings of --wiremock and its parents, ${over}`,
      );
    return stubs;
  }

  get(name: string): Scenario | undefined {
    return this.scenarios.get(name);
  }

  /**
   * The WireMock mappings a sandbox gets when the scenario of that name is applied to it: those of --wiremock, then
   * the scenario's own (src/domain/scenario-activation.ts sets them); --wiremock's alone for an unknown name.
   */
  wiremockOf(name: string): WireMockStubs {
    return this.stubs.get(name) ?? this.wiremock.start;
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
      let files: Definitions;
      let next: Map<string, Scenario>;
      let stubs: Map<string, WireMockStubs>;
      try {
        files = this.readFiles();
        [next, stubs] = this.resolveAll(files, this.defined);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        report(() =>
          onError(`scenario reload failed, keeping the last good scenarios: ${message.replace(/\s*\n\s*/g, ' ')}`),
        );
        return;
      }
      const changed = changedNames(this.scenarios, next);
      this.files = files;
      this.scenarios = next;
      this.stubs = stubs;
      if (changed.length > 0) report(() => onReload(changed));
    };
    const schedule = (file: string | Buffer | null) => {
      // editors' swap and backup files (.x.json.swp, x.json~) change nothing; no name: look anyway
      if (file !== null && !isScenarioFileName(String(file))) return;
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
