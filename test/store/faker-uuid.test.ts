// newFaker (src/store/seed/context.ts): its string.uuid() replaces faker's for speed (a quarter of the default
// world's seeding, issue 47) and must draw and return exactly what faker's does, or every seeded id would change.
import t from 'tap';
import type { Faker } from '@faker-js/faker';
import { faker as fakerRu } from '@faker-js/faker/locale/ru';
import { faker as fakerEn } from '@faker-js/faker/locale/en';
import { newFaker } from '../../src/store/seed/context.js';

const plain = (template: Faker) => new (template.constructor as typeof Faker)({ locale: template.rawDefinitions });

t.test('the same uuids as faker, and the same draws after them', async (t) => {
  for (const [locale, template] of [
    ['ru', fakerRu],
    ['en', fakerEn],
  ] as const) {
    for (const seed of [0, 1, 42, 2 ** 31 - 1]) {
      const ours = newFaker(locale);
      const theirs = plain(template);
      ours.seed(seed);
      theirs.seed(seed);
      const drawn = (f: Faker) =>
        Array.from({ length: 200 }, (_, i) => (i % 3 === 0 ? f.person.firstName() : f.string.uuid()));
      t.same(drawn(ours), drawn(theirs), `${locale}, seed ${seed}`);
      t.equal(ours.number.int(1e9), theirs.number.int(1e9), 'the sequences stay in step');
    }
  }
  const withOptions = newFaker('en');
  withOptions.seed(5);
  t.match(withOptions.string.uuid({ version: 7 }), /^[0-9a-f]{8}-[0-9a-f]{4}-7/, 'other versions are faker’s own');
});
