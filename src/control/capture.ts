// A bug capture (docs/data.md, "Bug capture"): one scenario file that gives another server, started on another day
// with other flags, the same sandbox: the base world it was made from (seed and reference date), its clock frozen
// at the capture's instant, its data changes (what the tester arranged apart from what the clock moved on), its
// WireMock stubs, and the behaviour of its scenario with what that extends, flattened; a summary for the reader first.
import type { Sandbox } from '../store/sandbox.js';
import type { SandboxStore } from '../store/store.js';
import { type DataEntry, pinnedCollectionNames, type Scenario, type ScenarioFile } from '../schemas/scenario.js';
import type { ClockState } from '../schemas/control.js';
import { capturedChanges } from '../domain/data-changes.js';
import { fail } from '../errors.js';
import fastJsonStringify from 'fast-json-stringify';
import { Type } from '@sinclair/typebox';
import { referencedSchemas } from '../http/serializers.js';
import { ScenarioFile as ScenarioFileSchema } from '../schemas/scenario.js';

/** Spaces per level of a capture's JSON: a file a person reads in a bug report. */
export const captureIndent = 2;

/** The scenario name of a capture of `sandbox`: a scenario name allows lower case, digits and "-" only. */
export function captureName(sandbox: string): string {
  return `capture-${sandbox.toLowerCase().replace(/[^a-z0-9-]/g, '-')}`.slice(0, 64);
}

type Pinned = NonNullable<NonNullable<ScenarioFile['pin']>['collections']>;

/** The id-less collections the sandbox changed, whole, by tenant; a changed tenant record cannot be said: a 409. */
function pinnedCollections(store: SandboxStore): Pinned | undefined {
  const out: Pinned = {};
  for (const view of store.tenants()) {
    const id = view.tenant.id;
    const base = store.base.data.tenants[id];
    if (!base || view.tenant !== base.tenant)
      throw fail.conflict(
        `tenant ${id} of sandbox "${store.sandbox}" is not its base world's (a state import changed it): a capture ` +
          'cannot pin a tenant record; export the whole sandbox with GET /__admin/state instead',
      );
    const changed = pinnedCollectionNames.filter((name) => view[name] !== base[name]);
    if (changed.length > 0) out[id] = Object.fromEntries(changed.map((name) => [name, view[name]])) as Pinned[string];
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * An entry with its keys in the order the route's schema serializer wrote them before the capture streamed (its
 * required keys first, then the optional ones), so the streamed text, JSON.stringify's, is the same bytes as then.
 */
function inSchemaOrder(entry: DataEntry): DataEntry {
  if ('create' in entry) {
    const { create, record, tenant, dependents } = entry;
    return { create, record, tenant, dependents };
  }
  if ('patch' in entry) {
    const { patch, id, set, drop, add, tenant } = entry;
    return { patch, id, set, drop, add, tenant };
  }
  const { remove, id, tenant } = entry;
  return { remove, id, tenant };
}

const nonEmpty = <T>(list: T[] | undefined) => (list && list.length > 0 ? list : undefined);

/** A duration as a person reads it: "3 d 1 h", "45 min", "0 min". */
function span(ms: number): string {
  const minutes = Math.round(Math.abs(ms) / 60_000);
  const parts: string[] = [];
  const d = Math.floor(minutes / 1440);
  const h = Math.floor((minutes % 1440) / 60);
  const m = minutes % 60;
  if (d > 0) parts.push(`${d} d`);
  if (h > 0) parts.push(`${h} h`);
  if (m > 0 || parts.length === 0) parts.push(`${m} min`);
  return parts.join(' ');
}

/** What the clock was before the capture froze it, and how far it stood from the base world's reference date. */
function clockLine(state: ClockState, at: string, refDate: string): string {
  const was =
    state.mode === 'frozen'
      ? `frozen at ${at}`
      : state.mode === 'offset'
        ? `real time ${state.offsetMs < 0 ? '-' : '+'}${span(state.offsetMs)}, frozen at ${at} by the capture`
        : `real time, frozen at ${at} by the capture`;
  const from = Date.parse(at) - Date.parse(refDate);
  const where = from === 0 ? 'the' : `${span(from)} ${from > 0 ? 'after' : 'before'} the`;
  return `${was}: ${where} base world's reference date`;
}

/**
 * Entries counted by what they do and to which collection, with the items lists gained and lost: "created users ×1,
 * wfTickets ×2; patched users ×1, userGroups ×1 (memberIds +1)".
 */
function countLine(entries: readonly DataEntry[]): string {
  const kinds: Record<'created' | 'patched' | 'removed', Map<string, number>> = {
    created: new Map(),
    patched: new Map(),
    removed: new Map(),
  };
  const items = new Map<string, Map<string, { add: number; drop: number }>>();
  for (const e of entries) {
    const [kind, collection]: [keyof typeof kinds, string] =
      'create' in e ? ['created', e.create] : 'patch' in e ? ['patched', e.patch] : ['removed', e.remove];
    kinds[kind].set(collection, (kinds[kind].get(collection) ?? 0) + ('create' in e ? (e.count ?? 1) : 1));
    if (!('patch' in e)) continue;
    const fields = items.get(collection) ?? new Map<string, { add: number; drop: number }>();
    for (const [way, change] of [
      ['add', e.add],
      ['drop', e.drop],
    ] as const)
      for (const [field, list] of Object.entries(change ?? {})) {
        const n = fields.get(field) ?? { add: 0, drop: 0 };
        n[way] += list.length;
        fields.set(field, n);
      }
    if (fields.size > 0) items.set(collection, fields);
  }
  const listed = (collection: string) => {
    const fields = items.get(collection);
    if (!fields) return '';
    const said = [...fields].map(
      ([field, n]) => `${field}${n.add > 0 ? ` +${n.add}` : ''}${n.drop > 0 ? ` -${n.drop}` : ''}`,
    );
    return ` (${said.join(', ')})`;
  };
  const line = Object.entries(kinds)
    .filter(([, counts]) => counts.size > 0)
    .map(([kind, counts]) => {
      const each = [...counts].map(([c, n]) => `${c} ×${n}${kind === 'patched' ? listed(c) : ''}`);
      return `${kind} ${each.join(', ')}`;
    })
    .join('; ');
  return line || 'nothing';
}

/** The few lines at the top of a capture, for the person who opens it: never applied. */
function summaryOf(
  sandbox: Sandbox,
  scenario: Scenario | undefined,
  capture: ScenarioFile,
  instance: string,
): Record<string, string> {
  const pin = capture.pin!;
  const data = capture.data ?? [];
  const followed = capture.followed ?? [];
  const summary: Record<string, string> = {
    sandbox: `${sandbox.name} on ${instance}, captured at ${pin.clock.at}`,
    clock: clockLine(sandbox.clock.state, pin.clock.at, pin.refDate),
    scenario: scenario
      ? `${scenario.chain.join(' > ') || scenario.name}: its behaviour flattened into this file`
      : `${sandbox.scenario} (no longer defined on ${instance}: no behaviour captured)`,
    world: `seed ${pin.seed}, seeded for ${pin.refDate}; applied, the sandbox goes back to it, then data and followed`,
    arranged: `${data.length} entries in data: ${countLine(data)}`,
    followed:
      followed.length === 0
        ? 'nothing: no record of the base world moved on with the clock'
        : `${followed.length} entries in followed: ${countLine(followed)}, ` +
          "the base world's tickets moved on by the clock alone",
  };
  const pinned = Object.entries(pin.collections ?? {}).map(([tenant, c]) => `${Object.keys(c).join(', ')} (${tenant})`);
  if (pinned.length > 0) summary.pinned = `kept whole in pin.collections: ${pinned.join('; ')}`;
  if (capture.wiremock) {
    const states = Object.keys(capture.wiremock.scenarios ?? {}).length;
    summary.wiremock = `${capture.wiremock.mappings.length} stub mappings, ${states} WireMock scenarios out of Started`;
  }
  return summary;
}

/**
 * The sandbox as a scenario file. Its scenario's behaviour comes flattened (what it extends included, lists parents
 * first), so the file needs no other definition; what that scenario did to the data when it was applied (an empty
 * employee, expired sessions, its own data block) is in the captured data instead, so those are left out. A real or
 * offset clock is captured frozen at this instant: only a frozen clock answers the same bytes twice.
 */
export function bugCapture(
  sandbox: Sandbox,
  scenario: Scenario | undefined,
  opts: { name: string; instance: string },
): ScenarioFile {
  const { store } = sandbox;
  const at = sandbox.clock.iso();
  const from = scenario ? ` (scenario ${scenario.chain.join(' > ') || scenario.name})` : '';
  const capture: ScenarioFile = {
    name: opts.name,
    description: `Bug capture of sandbox ${sandbox.name} on ${opts.instance} at ${at}${from}`,
  };
  if (scenario) {
    const { twoFactor, sessions, revokeRights, tenantOptions, holdTickets, bandwidth, findings } = scenario;
    Object.assign(capture, {
      twoFactor,
      sessions: sessions?.lifetimeSeconds === undefined ? undefined : { lifetimeSeconds: sessions.lifetimeSeconds },
      revokeRights,
      tenantOptions,
      holdTickets,
      stubs: nonEmpty(scenario.stubs),
      latency: nonEmpty(scenario.latency),
      faults: nonEmpty(scenario.faults),
      bandwidth,
      forward: nonEmpty(scenario.forward),
      compare: nonEmpty(scenario.compare),
      findings: findings && findings.off.length > 0 ? findings : undefined,
    });
  }
  const collections = pinnedCollections(store);
  capture.pin = {
    seed: store.meta.seed,
    refDate: store.meta.refDate,
    clock: { mode: 'frozen', at },
    ...(collections ? { collections } : {}),
  };
  const changes = capturedChanges(store);
  capture.data = changes.data.map(inSchemaOrder);
  if (changes.followed.length > 0) capture.followed = changes.followed.map(inSchemaOrder);
  // the stored mappings are the parsed ones, whose JSON a replay parses again (WireMockStubs.fromStored)
  if (!sandbox.wiremock.isEmpty) capture.wiremock = sandbox.wiremock.toStored();
  capture.summary = summaryOf(sandbox, scenario, capture, opts.instance);
  // absent, not undefined: the file is what a person would write. Not a JSON round trip: with tens of MB of uploads
  // that was seconds of a stalled event loop; the answer is streamed by JSON.stringify's rules (which leave
  // undefined out at every depth), and the records in it are the store's frozen ones
  for (const key of Object.keys(capture) as Array<keyof ScenarioFile>)
    if (capture[key] === undefined) delete capture[key];
  return capture;
}

/**
 * A capture in the order a person reads it: the summary first; then the name, description and the scenario's
 * behaviour through the route's schema serializer (each object's keys in the schema's order, required ones first;
 * a few KB, bounded by --max-scenario-bytes); then `pin`, `data` (the large part, its entries already in order),
 * `followed` and `wiremock`. The answer is JSON.stringify of the result, indented (the streamed text).
 */
export function capturedAsServed(capture: ScenarioFile, schemas: Record<string, unknown>): ScenarioFile {
  // without pin, data and followed, whose schemas name every record's: compiled in a few ms instead of a few hundred
  const headSchema = Type.Omit(ScenarioFileSchema, ['summary', 'pin', 'data', 'followed', 'wiremock']);
  headSerializer ??= fastJsonStringify(headSchema as never, {
    schema: referencedSchemas(headSchema, schemas) as never,
  }) as (value: unknown) => string;
  const { summary, pin, data, followed, wiremock, ...behaviour } = capture;
  const head = JSON.parse(headSerializer(behaviour)) as ScenarioFile;
  return {
    ...(summary ? { summary } : {}),
    ...head,
    ...(pin ? { pin } : {}),
    ...(data ? { data } : {}),
    ...(followed ? { followed } : {}),
    ...(wiremock ? { wiremock } : {}),
  };
}
let headSerializer: ((value: unknown) => string) | undefined;
