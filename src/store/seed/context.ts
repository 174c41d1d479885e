import { Faker, base, en, ru } from '@faker-js/faker';
import type { TenantData } from '../data.js';
import type { FixtureTenant } from '../fixtures.js';
import { seedFrom } from '../ids.js';

/** How much data to generate per tenant. */
export type SizeOptions = { users: number };
export const defaultSize: SizeOptions = { users: 200 };

export type SeedContext = {
  seed: number;
  fixture: FixtureTenant;
  data: TenantData;
  refDate: Date;
  size: SizeOptions;
  /** A faker for one collection of one tenant: adding a collection never shifts another's data. */
  faker(collection: string): Faker;
};

/** Fills some collections of one tenant; seeders run in order, core first. */
export type Seeder = (ctx: SeedContext) => void;

export function fakerFor(seed: number, tenantId: string, locale: 'ru' | 'en', refDate: Date, collection: string): Faker {
  const faker = new Faker({ locale: locale === 'ru' ? [ru, en, base] : [en, base] });
  faker.seed(seedFrom(seed, tenantId, collection));
  faker.setDefaultRefDate(refDate);
  return faker;
}

export const isoDay = (d: Date) => d.toISOString().slice(0, 10);
