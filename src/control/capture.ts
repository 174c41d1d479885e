// A bug capture (docs/data.md, "Bug capture"): one scenario file that gives another server, started on another day
// with other flags, the same sandbox: the base world it was made from (seed and reference date), its clock frozen
// at the capture's instant, its data changes, and the behaviour of its scenario with what that extends, flattened.
import type { Sandbox } from '../store/sandbox.js';
import type { SandboxStore } from '../store/store.js';
import { type DataEntry, pinnedCollectionNames, type Scenario, type ScenarioFile } from '../schemas/scenario.js';
import { dataChanges } from '../domain/data-changes.js';
import { recordCollections } from '../domain/records.js';
import { fail } from '../errors.js';
import fastJsonStringify from 'fast-json-stringify';
import { Type } from '@sinclair/typebox';
import { referencedSchemas } from '../http/serializers.js';
import { ScenarioFile as ScenarioFileSchema } from '../schemas/scenario.js';

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
    const { patch, id, set, tenant } = entry;
    return { patch, id, set, tenant };
  }
  const { remove, id, tenant } = entry;
  return { remove, id, tenant };
}

const nonEmpty = <T>(list: T[] | undefined) => (list && list.length > 0 ? list : undefined);

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
  capture.data = dataChanges(store, recordCollections).map(inSchemaOrder);
  // absent, not undefined: the file is what a person would write. Not a JSON round trip: with tens of MB of uploads
  // that was seconds of a stalled event loop; the answer is streamed by JSON.stringify's rules (which leave
  // undefined out at every depth), and the records in it are the store's frozen ones
  for (const key of Object.keys(capture) as Array<keyof ScenarioFile>)
    if (capture[key] === undefined) delete capture[key];
  return capture;
}

/**
 * A capture as the route's schema serializer wrote it before the capture streamed: each object's keys in the schema's
 * order (required ones first), so JSON.stringify of the result, the streamed text, is the same bytes as then. The
 * scenario's behaviour and the pin's seed, date and clock go through that serializer (a few KB, bounded by
 * --max-scenario-bytes); `data`, the large part, comes last as the schema has it, its entries already in order.
 */
export function capturedAsServed(capture: ScenarioFile, schemas: Record<string, unknown>): ScenarioFile {
  // without pin and data, whose schemas name every record's: compiled in a few ms instead of a few hundred
  const headSchema = Type.Omit(ScenarioFileSchema, ['pin', 'data']);
  headSerializer ??= fastJsonStringify(headSchema as never, {
    schema: referencedSchemas(headSchema, schemas) as never,
  }) as (value: unknown) => string;
  const { pin, data, ...behaviour } = capture;
  const head = JSON.parse(headSerializer(behaviour)) as ScenarioFile;
  return { ...head, ...(pin ? { pin } : {}), ...(data ? { data } : {}) };
}
let headSerializer: ((value: unknown) => string) | undefined;
