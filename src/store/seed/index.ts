import { Data, TenantData } from '../../schemas/tenant-data.js';
import type { Fixtures } from '../fixtures.js';
import { checkOrThrow } from '../../schemas/check.js';
import { fakerFor, type Seeder, type SizeOptions } from './context.js';
import { seedPeople } from './people.js';
import { seedOrganisation } from './organisation.js';
import { seedWorkflow } from './workflow.js';
import { seedPeopleExtra } from './people-extra.js';
import { seedContent } from './content.js';
import { seedCalendar } from './calendar.js';
import { seedEngage } from './engage.js';
import { seedWallets } from './wallets.js';

/** Seeders in the order they run; each fills its own collections. */
export const seeders: Seeder[] = [
  seedPeople,
  seedOrganisation,
  seedPeopleExtra,
  seedWorkflow,
  seedContent,
  seedCalendar,
  seedEngage,
  seedWallets,
];

export type SeedOptions = { seed: number; refDate: Date; size: SizeOptions };

/**
 * A tenant with every collection empty (every field of TenantData
 * but the tenant is an array), in the schema's key order.
 */
function emptyTenantData(tenant: TenantData['tenant']): TenantData {
  const empty = Object.fromEntries(Object.keys(TenantData.properties).map((key) => [key, []]));
  return { ...empty, tenant } as TenantData;
}

/** Builds a whole store from fixtures and the seed; the same options give byte-identical data. */
export function seedData(fixtures: Fixtures, options: SeedOptions): Data {
  const data: Data = {
    meta: { schemaVersion: 1, seed: options.seed, refDate: options.refDate.toISOString(), sequence: 0 },
    tenants: {},
  };
  for (const fixture of fixtures.tenants) {
    const { accounts: _a, devices: _d, apiKeys: _k, bindLinks: _b, ...tenant } = fixture;
    const tenantData = emptyTenantData(tenant);
    const faker = (collection: string) =>
      fakerFor(options.seed, fixture.id, fixture.locale, options.refDate, collection);
    for (const seeder of seeders) seeder({ ...options, fixture, data: tenantData, faker });
    data.tenants[fixture.id] = tenantData;
  }
  // A drifting factory fails here, at start-up, not in a client. Above `checkAllUpTo` users a full check takes seconds,
  // so it reads a deterministic sample of each long collection, whose records all come from the same few code paths.
  if (options.size.users <= checkAllUpTo) return checkOrThrow(Data, data, 'seeded data');
  checkOrThrow(Data, sampled(data), 'seeded data (sampled)');
  return data;
}

/** Up to this many users per tenant the whole seeded store is checked. */
export const checkAllUpTo = 5000;
const sampleSize = 300;

/**
 * A shallow copy of the store whose long collections hold only a sample of their records, and whose records' long
 * lists (a rule group's members, a course's assignees) only a sample of their items.
 */
function sampled(data: Data): Data {
  const tenants: Data['tenants'] = {};
  for (const [id, tenant] of Object.entries(data.tenants)) {
    const copy: Record<string, unknown> = { ...tenant };
    for (const [key, value] of Object.entries(tenant)) {
      if (Array.isArray(value)) copy[key] = sampleOf(value as unknown[]).map(withListsSampled);
    }
    tenants[id] = copy as TenantData;
  }
  return { ...data, tenants };
}

/** The first `sampleSize` items and every step-th one after them, or all of a short list. */
function sampleOf<T>(list: readonly T[]): T[] {
  if (list.length <= 2 * sampleSize) return [...list];
  const step = Math.floor(list.length / sampleSize);
  return [...list.slice(0, sampleSize), ...list.filter((_, i) => i >= sampleSize && i % step === 0)];
}

/** A record with each of its long lists sampled (a copy only when it has one). */
function withListsSampled(record: unknown): unknown {
  if (record === null || typeof record !== 'object' || Array.isArray(record)) return record;
  const long = Object.entries(record).filter(([, v]) => Array.isArray(v) && v.length > 2 * sampleSize);
  if (long.length === 0) return record;
  const copy: Record<string, unknown> = { ...record };
  for (const [key, list] of long) copy[key] = sampleOf(list as unknown[]);
  return copy;
}
