import t from 'tap';
import type { ApiError } from '../../src/errors.js';
import { matchesText, paginate, parseDayRange, sortBy } from '../../src/domain/lists.js';

const url = 'http://h/api/list?x=1';
const items = Array.from({ length: 23 }, (_, i) => i + 1);

t.test('paginate', async (t) => {
  const cases: Array<[string, Parameters<typeof paginate>[1], number[], object]> = [
    ['defaults', {}, items.slice(0, 10), { totalCount: 23, pageCount: 3, currentPage: 1, perPage: 10 }],
    ['page 3', { page: '3' }, [21, 22, 23], { currentPage: 3, pageCount: 3 }],
    ['past the end is empty', { page: 9 }, [], { currentPage: 9 }],
    ['clamped per-page', { perPage: '500' }, items, { perPage: 100, pageCount: 1 }],
    ['per-page below 1 clamps to 1', { perPage: '0' }, [1], { perPage: 1, pageCount: 23 }],
  ];
  for (const [name, req, data, meta] of cases) {
    const page = paginate(items, req, { defaultPerPage: 10, maxPerPage: 100 }, url);
    t.same(page.data, data, name);
    t.match(page._meta, meta, name);
  }
  const p = paginate(items, { page: 2 }, { defaultPerPage: 10, maxPerPage: 100 }, url);
  t.equal(p._links.self, 'http://h/api/list?x=1&page=2&per-page=10');
  t.equal(p._links.last, 'http://h/api/list?x=1&page=3&per-page=10');
  t.equal(p._links.next, 'http://h/api/list?x=1&page=3&per-page=10');
  t.throws(() => paginate(items, { perPage: '21' }, { defaultPerPage: 20, maxPerPage: 20, strict: true }, url), {
    statusCode: 400,
  } as unknown as Error);
  t.throws(() => paginate(items, { page: 'abc' }, { defaultPerPage: 20, maxPerPage: 20 }, url), {
    statusCode: 400,
  } as unknown as Error);
});

t.test('parseDayRange', async (t) => {
  t.same(parseDayRange('2026-01-01|2026-01-31', 'created_at'), { from: '2026-01-01', to: '2026-01-31' });
  t.same(parseDayRange('|2026-01-31', 'created_at'), { from: '0000-01-01', to: '2026-01-31' });
  t.equal(parseDayRange(undefined, 'x'), null);
  const timeOfDay = t.throws(() => parseDayRange('2026-01-01 10:00|2026-01-31', 'created_at')) as unknown as ApiError;
  t.equal(timeOfDay.statusCode, 422);
  for (const bad of ['2026-01-01', '2026-13-01|2026-01-02', 'a|b', '2026-02-01|2026-01-01']) {
    t.equal((t.throws(() => parseDayRange(bad, 'f')) as unknown as ApiError).statusCode, 400, bad);
  }
});

t.test('sortBy and matchesText', async (t) => {
  const people = [{ n: 'Ёлкин' }, { n: 'Абрамов' }, { n: 'Bob' }];
  t.same(
    sortBy(people, '+n', { n: (p) => p.n }).map((p) => p.n),
    ['Абрамов', 'Ёлкин', 'Bob'],
    'Cyrillic first, ё with е',
  );
  t.same(
    sortBy(people, '-n', { n: (p) => p.n }).map((p) => p.n),
    ['Bob', 'Ёлкин', 'Абрамов'],
  );
  t.equal((t.throws(() => sortBy(people, 'x', { n: (p) => p.n })) as unknown as ApiError).statusCode, 400);
  t.ok(matchesText('елкин', ['Ёлкин Пётр']));
  t.ok(matchesText('ПЁТР ёлкин', ['Ёлкин Пётр']));
  t.ok(matchesText('bob', ['Bob Stone']));
  t.notOk(matchesText('alice', ['Bob Stone']));
});
