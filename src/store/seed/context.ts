import type { Faker } from '@faker-js/faker';
// The two locale entry points load only their own definitions (ru, en and base), not every locale of the main
// entry (~0.2 s of start-up). Their merged definitions are what `new Faker({ locale: [ru, en, base] })` builds.
import { faker as fakerRu } from '@faker-js/faker/locale/ru';
import { faker as fakerEn } from '@faker-js/faker/locale/en';
import type { TenantData } from '../../schemas/tenant-data.js';
import type { FixtureTenant } from '../fixtures.js';
import { seedFrom } from '../ids.js';

/** How much data to generate per tenant. */
export type SizeOptions = { users: number };

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

export function fakerFor(
  seed: number,
  tenantId: string,
  locale: 'ru' | 'en',
  refDate: Date,
  collection: string,
): Faker {
  const template = locale === 'ru' ? fakerRu : fakerEn;
  const faker = new (template.constructor as typeof Faker)({ locale: template.rawDefinitions });
  faker.seed(seedFrom(seed, tenantId, collection));
  faker.setDefaultRefDate(refDate);
  return faker;
}

export const isoDay = (d: Date) => d.toISOString().slice(0, 10);
export const dayMs = 86_400_000;
