import type { Faker, Randomizer } from '@faker-js/faker';
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

const hexDigits = '0123456789abcdef';

/**
 * A new faker of `locale` whose string.uuid() (version 4, the one the seeders and factories call) makes the same
 * draws as faker's and returns the same text, without faker's two replaceAll passes and 31 number.hex calls: it was
 * a quarter of the default world's seeding (issue 47). Faker's: `xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx`, the 30 x
 * first, each `floor(next() * 16)`, then y, `floor(next() * 4 + 8)` (number.int with the uniform distributor).
 */
export function newFaker(locale: 'ru' | 'en'): Faker {
  const template = locale === 'ru' ? fakerRu : fakerEn;
  const faker = new (template.constructor as typeof Faker)({ locale: template.rawDefinitions });
  // the faker's own randomizer, through the public distributor hook: the call itself draws nothing
  let randomizer: Randomizer | undefined;
  faker.number.int({
    max: 1,
    distributor: (r) => {
      randomizer = r;
      return 0;
    },
  });
  const next = randomizer!.next;
  const fakerUuid = faker.string.uuid;
  const digits: string[] = [];
  faker.string.uuid = (options?: Parameters<Faker['string']['uuid']>[0]) => {
    if (options !== undefined) return fakerUuid(options);
    for (let i = 0; i < 30; i++) digits[i] = hexDigits[Math.floor(next() * 16)]!;
    const variant = hexDigits[Math.floor(next() * 4 + 8)]!;
    const d = digits.join('');
    return `${d.slice(0, 8)}-${d.slice(8, 12)}-4${d.slice(12, 15)}-${variant}${d.slice(15, 18)}-${d.slice(18)}`;
  };
  return faker;
}

export function fakerFor(
  seed: number,
  tenantId: string,
  locale: 'ru' | 'en',
  refDate: Date,
  collection: string,
): Faker {
  const faker = newFaker(locale);
  faker.seed(seedFrom(seed, tenantId, collection));
  faker.setDefaultRefDate(refDate);
  return faker;
}

export const isoDay = (d: Date) => d.toISOString().slice(0, 10);
export const dayMs = 86_400_000;
