import t from 'tap';
import {
  defaultRegexLimits,
  isMatcherOp,
  jsonMatches,
  matcherProblem,
  maxPatternChars,
  maxTextDepth,
  RegexBudget,
  regexProblem,
  textMatches,
} from '../../src/shared/matchers.js';

// The matcher language's bounds as plain functions, fast: the file `npm run mutate -- matchers` runs first. The edge
// of each bound (a pattern of exactly 1,000 characters, a program of exactly --regex-max-program instructions, a
// text of exactly --regex-max-text characters, a budget spent exactly, a value exactly 64 deep) is on the allowed
// side; one more is refused or a non-match. Over sockets: regex-bounds.test.ts and stub-matching.test.ts.

/** A value nested `depth` arrays and objects deep, alternating, holding "needle" at the bottom. */
function nested(depth: number): unknown {
  let value: unknown = 'needle';
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { a: value };
  return value;
}

t.test('RegexBudget: a regex costs (characters + 1) × program; exactly what is left still runs', async (t) => {
  const budget = new RegexBudget({ budget: 100, maxText: 10 });
  t.equal(budget.maxText, 10);
  t.equal(budget.left, 100);
  t.ok(budget.take(9, 5), '(9 + 1) × 5 = 50');
  t.equal(budget.left, 50);
  t.notOk(budget.exhausted);
  t.ok(budget.take(4, 10), '(4 + 1) × 10 = 50: exactly what is left');
  t.equal(budget.left, 0);
  t.notOk(budget.exhausted, 'spent exactly is not exhausted');
  t.ok(budget.take(0, 0), 'nothing costs nothing');
  t.notOk(budget.take(0, 1), '(0 + 1) × 1 = 1 more: refused');
  t.ok(budget.exhausted);
  t.equal(budget.left, 0, 'a refused take takes nothing');
  const fresh = new RegexBudget();
  t.equal(fresh.left, defaultRegexLimits.budget, 'the defaults');
  t.equal(fresh.maxText, defaultRegexLimits.maxText);
  t.same(defaultRegexLimits, { maxProgram: 300, maxText: 65_536, budget: 500_000 });
});

t.test('regexProblem: pattern length, RE2 syntax, program size, each at its edge', async (t) => {
  t.equal(regexProblem('a'.repeat(maxPatternChars), 10_000), null, 'exactly 1000 characters: read');
  t.equal(regexProblem('a'.repeat(maxPatternChars + 1), 10_000), 'a pattern of at most 1000 characters');
  t.match(regexProblem('(?=a)'), /^a valid RE2 pattern \(.+\)$/, 'a look-ahead: refused with RE2 saying why');
  t.match(regexProblem('(a)\\1'), /^a valid RE2 pattern/, 'a backreference: refused');
  const sized = (n: number) => `a{${n}}`; // a counted repetition copies its atom: a program grows with n
  let n = 1;
  while (regexProblem(sized(n + 1), 50) === null) n++;
  const { length } = `${n}`;
  t.ok(length > 0 && n > 10, `a{${n}} is the largest that fits 50 instructions`);
  const problem = regexProblem(sized(n + 1), 50);
  t.match(
    problem,
    /^a pattern that compiles to at most 50 instructions \(--regex-max-program\); this one compiles to 51:/,
  );
  t.match(problem, /nested or large counts multiply$/);
  t.equal(regexProblem(sized(n + 1), 51), null, 'a program of exactly the bound: read');
  t.equal(regexProblem('x'.repeat(200)), null, 'the default bound (300) holds a plain text of 200');
  t.match(regexProblem('x{400}'), /at most 300 instructions/, 'and refuses 400 copies');
});

t.test('matcherProblem: operators, their values, and a regex past the program bound', async (t) => {
  t.equal(matcherProblem({ present: true }, '/q', 'text'), null);
  t.equal(matcherProblem({ present: 'yes' }, '/q', 'text'), 'at /q/present: expected true or false, found yes');
  t.equal(matcherProblem({ contains: 3 }, '/q', 'text'), 'at /q/contains: expected a string, found 3');
  t.equal(matcherProblem({ regex: 'a{20}' }, '/q', 'text', 25), null);
  t.match(matcherProblem({ regex: 'a{20}' }, '/q', 'text', 10), /^at \/q\/regex: expected a pattern that compiles/);
  t.equal(matcherProblem({ contains: 'a{20}' }, '/q', 'text', 10), null, 'contains is no pattern');
  t.match(matcherProblem({ a: [{ b: { regex: '(?=x)' } }] }, '', 'json'), /^at \/a\/0\/b\/regex: expected a valid RE2/);
  t.match(matcherProblem({ 'a/b~': { present: 1 } }, '', 'json'), /^at \/a~1b~0\/present:/, 'JSON pointer escapes');
  const deep = nested(maxTextDepth + 1);
  t.equal(
    matcherProblem({ present: deep }, '/q', 'text'),
    'at /q/present: expected true or false, found (a value nested too deep to show)',
  );
  t.match(matcherProblem({ present: nested(maxTextDepth) }, '/q', 'text'), /found \{"a":\[\{"a":/, '64 deep is shown');
  t.match(matcherProblem({ present: 'x'.repeat(100) }, '/q', 'text'), /found x{80}…$/, 'cut at 80');
  t.match(matcherProblem({ present: 'x'.repeat(80) }, '/q', 'text'), /found x{80}$/, '80 is not cut');
});

t.test('a regex reads at most maxText characters: exactly that many match, one more does not', async (t) => {
  const limits = { budget: 1_000_000, maxText: 100 };
  const m = { regex: 'a$' };
  t.ok(textMatches(m, [`${'b'.repeat(99)}a`], new RegexBudget(limits)), '100 characters: read');
  t.notOk(textMatches(m, [`${'b'.repeat(100)}a`], new RegexBudget(limits)), '101: a non-match');
  t.ok(jsonMatches({ x: m }, { x: `${'b'.repeat(99)}a` }, new RegexBudget(limits)));
  t.notOk(jsonMatches({ x: m }, { x: `${'b'.repeat(100)}a` }, new RegexBudget(limits)));
  t.ok(textMatches({ contains: 'a' }, [`${'b'.repeat(500)}a`], new RegexBudget(limits)), 'contains reads any length');
});

t.test('a regex runs while the budget lasts: spent, it is a non-match and the budget says so', async (t) => {
  const m = { regex: 'a$' };
  const probe = new RegexBudget({ budget: 1_000_000, maxText: 1000 });
  t.ok(textMatches(m, ['xa'], probe));
  const cost = 1_000_000 - probe.left; // (2 + 1) × the program
  t.ok(cost > 3 && cost % 3 === 0, `a two-character text costs ${cost}`);
  const exact = new RegexBudget({ budget: cost, maxText: 1000 });
  t.ok(textMatches(m, ['xa'], exact), 'a budget of exactly its cost: it runs');
  t.notOk(exact.exhausted);
  const short = new RegexBudget({ budget: cost - 1, maxText: 1000 });
  t.notOk(textMatches(m, ['xa'], short), 'one unit short: a non-match');
  t.ok(short.exhausted, 'and the budget says it was spent');
  t.equal(short.left, cost - 1, 'nothing taken');
  const many = new RegexBudget({ budget: 2 * cost, maxText: 1000 });
  t.notOk(textMatches(m, ['xb', 'xb', 'xa'], many), 'each value of a repeated header takes its share');
  t.ok(many.exhausted);
});

t.test('values nested deeper than 64 have no text for regex and contains; present still sees them', async (t) => {
  const at = nested(maxTextDepth);
  const past = nested(maxTextDepth + 1);
  t.ok(jsonMatches({ contains: 'needle' }, at), '64 deep: read');
  t.ok(jsonMatches({ regex: 'needle' }, at));
  t.notOk(jsonMatches({ contains: 'needle' }, past), '65 deep: a non-match');
  t.notOk(jsonMatches({ regex: 'needle' }, past));
  t.ok(jsonMatches({ present: true }, past));
  t.notOk(jsonMatches({ present: false }, past));
  t.ok(jsonMatches({ present: false }, undefined), 'absent');
  t.notOk(jsonMatches({ contains: '' }, undefined), 'an absent value contains nothing');
  t.notOk(jsonMatches({ regex: '' }, undefined));
  // a deep value's sibling is still read
  t.ok(jsonMatches({ a: { contains: 'x' } }, { a: 'x', b: past }));
  // the deep value is the text of the body 20,000 deep too: a walk, not recursion
  let huge: unknown = 'needle';
  for (let i = 0; i < 20_000; i++) huge = { a: huge };
  t.notOk(jsonMatches({ contains: 'needle' }, huge), '20,000 deep: a non-match, no stack overflow');
  t.notOk(jsonMatches({ regex: 'needle' }, huge));
  // the same object read twice gives the same answer (its text is kept per object)
  t.ok(jsonMatches({ contains: 'needle' }, at));
  t.notOk(jsonMatches({ contains: 'needle' }, past));
});

t.test('text matchers: plain values by text, any value of a repeated one, present on the first', async (t) => {
  t.ok(textMatches(3, ['3']));
  t.notOk(textMatches(3, ['4']));
  t.notOk(textMatches('a', undefined));
  t.ok(textMatches('a', ['b', 'a']));
  t.ok(textMatches({ contains: 'b' }, ['a', 'ab']));
  t.notOk(textMatches({ contains: 'b' }, undefined));
  t.ok(textMatches({ present: false }, undefined));
  t.ok(textMatches({ present: true }, ['']));
  t.ok(textMatches({ regex: '^4[0-9]$' }, ['41']));
  t.notOk(textMatches({ regex: '^4[0-9]$' }, ['410']));
});

t.test('null, absent and primitive values: no matcher, no crash, read as their text', async (t) => {
  for (const value of [null, undefined, 'present', 1, true, ['present'], {}, { present: true, regex: 'a' }])
    t.equal(isMatcherOp(value), false, `${JSON.stringify(value)} is no matcher`);
  t.equal(isMatcherOp({ contains: 'a' }), true);
  t.ok(jsonMatches({ x: null }, { x: null }), 'a null in a body matcher equals null');
  t.notOk(jsonMatches({ x: null }, { x: 0 }));
  t.equal(matcherProblem({ present: null }, '/q', 'text'), 'at /q/present: expected true or false, found null');
  t.equal(matcherProblem({ present: undefined }, '/q', 'text'), 'at /q/present: expected true or false, found ');
  t.equal(matcherProblem({ present: 'abc' }, '/q', 'text'), 'at /q/present: expected true or false, found abc');
  t.ok(jsonMatches({ contains: 'nu' }, null), 'null reads as "null"');
  t.ok(jsonMatches({ regex: '^null$' }, null));
  t.ok(jsonMatches({ contains: '"b":"x"' }, { a: null, b: 'x' }), 'a value holding null is read whole');
  t.ok(jsonMatches({ contains: 'null' }, [null, [null]]));
});
