// A test file that fails the way a property test does: run by test/process/runner-setup.test.ts, never by the suite
// itself (its name does not end in .test.ts). Each failure carries a text of hundreds of kilobytes on one line.
import fc from 'fast-check';
import t from 'tap';

t.pass('a passing assertion');

t.test('a thrown error whose message is one line of 1 MB', () => {
  throw new Error(`Property failed { seed: 1 } Counterexample: ${'ж0😀 '.repeat(200_000)}`);
});

t.test('two long one-line texts that differ at their end', (t) => {
  const long = 'a'.repeat(500_000);
  t.equal(`${long}b`, `${long}c`);
  t.end();
});

t.test('a property whose counterexample is a 500 KB text', (t) => {
  fc.assert(
    fc.property(fc.constant('Z'.repeat(500_000)), (text) => text.length === 0),
    { endOnFailure: true },
  );
  t.end();
});
