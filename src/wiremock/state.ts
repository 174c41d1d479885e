// One sandbox's WireMock world: its stub mappings and its scenarios' states (docs/wiremock.md). A value, never
// changed in place: every change makes a new one, so a unit of work undoes a change by putting the old value back,
// and a request that matched against one value is not disturbed by a change that lands meanwhile.
import { Type, type Static } from '@sinclair/typebox';
import { servingOrder, startedState, type ScenarioStates } from './match.js';
import { defaultMappingLimits, parseMapping, type StubMapping } from './mapping.js';

/**
 * How the mappings and states are written: under --data (the sandbox's settings), in a capture. Each mapping is
 * parsed again when read back (fromStored): parsing is also what prepares a mapping for matching.
 */
export const StoredWireMock = Type.Object(
  {
    mappings: Type.Array(Type.Unknown()),
    /** scenario name → state, for the scenarios not in "Started" */
    scenarios: Type.Record(Type.String(), Type.String()),
  },
  { additionalProperties: false },
);
export type StoredWireMock = Static<typeof StoredWireMock>;

/** The bounds of one sandbox's mappings (--wiremock-max-mappings, --wiremock-sandbox-kb). */
export type StubLimits = { maxMappings: number; maxBytes: number };

/** What one mapping costs, as the bound counts it: its JSON text (a mapping is kept as parsed JSON of that size). */
export const mappingBytes = (mapping: StubMapping): number => JSON.stringify(mapping).length;

export class WireMockStubs {
  static readonly empty = new WireMockStubs([], new Map());
  /** the mappings in the order they were added (oldest first); a replaced one keeps its place */
  readonly mappings: readonly StubMapping[];
  /** the scenarios moved out of "Started" */
  readonly states: ReadonlyMap<string, string>;
  /** the sum of mappingBytes */
  readonly bytes: number;
  private order: StubMapping[] | null = null;
  private byId: Map<string, StubMapping> | null = null;

  private constructor(mappings: readonly StubMapping[], states: ReadonlyMap<string, string>, bytes?: number) {
    this.mappings = mappings;
    this.states = states;
    this.bytes = bytes ?? mappings.reduce((sum, m) => sum + mappingBytes(m), 0);
  }

  static of(mappings: readonly StubMapping[], states: ReadonlyMap<string, string> = new Map()): WireMockStubs {
    return mappings.length === 0 && states.size === 0 ? WireMockStubs.empty : new WireMockStubs(mappings, states);
  }
  /** Written mappings and states read back; a mapping that does not parse is a problem naming its place. */
  static fromStored(stored: StoredWireMock): WireMockStubs | { problem: string } {
    const mappings: StubMapping[] = [];
    for (const [i, json] of stored.mappings.entries()) {
      const parsed = parseMapping(json, () => 'no id', defaultMappingLimits);
      if (!('mapping' in parsed)) {
        const [error] = parsed.errors.errors;
        return { problem: `wiremock mapping ${i}: ${error?.source.pointer} ${error?.detail}` };
      }
      mappings.push(parsed.mapping);
    }
    return WireMockStubs.of(mappings, new Map(Object.entries(stored.scenarios)));
  }

  get isEmpty(): boolean {
    return this.mappings.length === 0 && this.states.size === 0;
  }
  /** The mappings in the order WireMock tries them (priority, then newest first), worked out once. */
  get servingOrder(): readonly StubMapping[] {
    this.order ??= servingOrder(this.mappings);
    return this.order;
  }
  get(id: string): StubMapping | undefined {
    this.byId ??= new Map(this.mappings.map((m) => [m.id, m]));
    return this.byId.get(id.toLowerCase());
  }
  /** A scenario's state ("Started" until a served stub moves it). */
  stateOf(scenario: string): string {
    return this.states.get(scenario) ?? startedState;
  }
  /** A copy of the states, for the matcher (match.ts reads and advanceScenario writes a Map). */
  statesCopy(): ScenarioStates {
    return new Map(this.states);
  }
  /** Every scenario a mapping names, with its state and the states its mappings mention, as WireMock lists them. */
  scenarios(): Array<{ id: string; name: string; state: string; possibleStates: string[] }> {
    const possible = new Map<string, Set<string>>();
    for (const m of this.mappings) {
      if (m.scenarioName === undefined) continue;
      const states = possible.get(m.scenarioName) ?? new Set([startedState]);
      for (const s of [m.requiredScenarioState, m.newScenarioState]) if (s !== undefined) states.add(s);
      possible.set(m.scenarioName, states);
    }
    return [...possible].map(([name, states]) => ({
      id: name,
      name,
      state: this.stateOf(name),
      possibleStates: [...states],
    }));
  }

  /** With `mapping` added, or put in the place of the one with its id. */
  with(mapping: StubMapping): WireMockStubs {
    const at = this.mappings.findIndex((m) => m.id === mapping.id);
    const next = at < 0 ? [...this.mappings, mapping] : this.mappings.map((m, i) => (i === at ? mapping : m));
    return new WireMockStubs(next, this.states);
  }
  /** With the mappings `keep` says yes to. */
  filter(keep: (mapping: StubMapping) => boolean): WireMockStubs {
    const next = this.mappings.filter(keep);
    return next.length === this.mappings.length ? this : WireMockStubs.of(next, this.states);
  }
  /** With `scenario` in `state` ("Started" takes it out of the states kept). */
  withState(scenario: string, state: string): WireMockStubs {
    if (this.stateOf(scenario) === state) return this;
    const states = new Map(this.states);
    if (state === startedState) states.delete(scenario);
    else states.set(scenario, state);
    return WireMockStubs.of(this.mappings, states);
  }
  /** With every scenario back in "Started". */
  withStatesReset(): WireMockStubs {
    return this.states.size === 0 ? this : WireMockStubs.of(this.mappings, new Map());
  }

  /**
   * Why `next` would hold more than the bounds allow, or null. Checked before a change, so a refused one leaves the
   * mappings as they were.
   */
  static overLimits(next: WireMockStubs, limits: StubLimits): string | null {
    const free = 'Delete some (DELETE /__admin/mappings/{id}) or reset (POST /__admin/reset)';
    if (next.mappings.length > limits.maxMappings)
      return (
        `a sandbox holds at most ${limits.maxMappings} stub mappings (--wiremock-max-mappings); ` +
        `it would hold ${next.mappings.length}. ${free}`
      );
    if (next.bytes > limits.maxBytes)
      return (
        `a sandbox's stub mappings take at most ${Math.floor(limits.maxBytes / 1024)} KiB of JSON ` +
        `(--wiremock-sandbox-kb); they would take ${Math.ceil(next.bytes / 1024)} KiB. ${free}`
      );
    return null;
  }

  toStored(): StoredWireMock {
    return { mappings: [...this.mappings], scenarios: Object.fromEntries(this.states) };
  }
}
