// Mutation testing (StrykerJS, `npm run mutate`; docs/contributing.md, "Mutation testing"). Not part of `npm test`:
// each mutant reruns its module's test files, so a module takes minutes to hours. One module a run, picked by
// MUTATE_MODULE (scripts/mutate.mjs sets it); `modules` is the one list of what is mutated and which test files
// must catch it, the files one would run first for that module. A moved source file changes only its line here.

/**
 * name → the source files mutated, the test files run against each mutant, and (optional) the tests of those files
 * that cover the module (a tap --grep pattern, passed to node as --test-name-pattern) so a run skips the rest.
 */
export const modules = {
  'answer-cache': {
    mutate: ['src/http/answer-cache.ts'],
    tests: [
      'test/store/answer-cache.test.ts',
      'test/store/kept-answers-budget.test.ts',
      'test/store/kept-answers.test.ts',
      'test/store/kept-answers-compressed.test.ts',
    ],
  },
  matchers: {
    mutate: ['src/shared/matchers.ts'],
    tests: ['test/store/matchers.test.ts', 'test/store/stub-matching.test.ts', 'test/store/regex-bounds.test.ts'],
  },
  'record-draft': {
    mutate: ['src/domain/record-draft.ts', 'src/domain/records.ts'],
    tests: [
      'test/control/record-draft.test.ts',
      'test/control/records-factories.test.ts',
      'test/control/records-api.test.ts',
    ],
  },
  calendar: {
    mutate: ['src/domain/calendar.ts'],
    // in process, plain functions: the window, the bound, visibility; then the bound over a socket
    tests: ['test/portal/calendar-window.test.ts', 'test/portal/calendar-bounds.test.ts'],
  },
  log: {
    mutate: ['src/store/log.ts'],
    // plain functions over real files first; the other tests of store-truncation start the bundle (dist/), which
    // Stryker does not mutate, its last one builds the app in process
    tests: ['test/store/log-bounds.test.ts', 'test/store/store-truncation.test.ts'],
  },
  capture: {
    mutate: ['src/control/capture.ts'],
    // in process, no socket; capture-replay.test.ts (two servers on sockets, every GET) is left to npm test
    tests: ['test/control/capture-bounds.test.ts', 'test/control/capture-readable.test.ts'],
  },
  auth: {
    mutate: ['src/auth/plugin.ts'],
    // one app in process first; auth-wrong-secret: a wrong code of the right length after a right one (the code cache)
    tests: ['test/portal/auth-bounds.test.ts', 'test/portal/auth-wrong-secret.test.ts'],
  },
  'mcp-tools': {
    mutate: ['src/mcp/tools/*.ts', 'src/mcp/results.ts'],
    // the SDK client linked in memory, one app in process; mcp-tools.test.ts (over a socket) after it
    tests: ['test/control/mcp-tools-bounds.test.ts', 'test/control/mcp-tools.test.ts'],
  },
  xlsx: {
    mutate: ['src/domain/xlsx.ts'],
    // real .xlsx bytes rewritten, small and fast; then the large files (bomb, hostile sheets, the loop's turns)
    tests: ['test/portal/xlsx-bounds.test.ts', 'test/portal/xlsx.test.ts'],
  },
  'body-turns': {
    mutate: ['src/http/body-turns.ts'],
    // bodies as PassThrough streams, read in turns; the first test of the file uploads over a socket
    tests: ['test/portal/upload-bounds.test.ts'],
  },
  'request-turns': {
    mutate: ['src/http/request-turns.ts'],
    // a clock the test moves; the last test of the file reads over real sockets
    tests: ['test/portal/request-turns.test.ts'],
  },
  sorts: {
    mutate: ['src/domain/grouped.ts'],
    // MUTATE_GREP='compareId|byStampThenId' runs only the comparators' properties of the file
    tests: ['test/portal/people-index.test.ts'],
  },
  'json-depth': {
    mutate: ['src/shared/json-depth.ts', 'src/control/json-body.ts'],
    tests: ['test/reliability/json-depth.test.ts'],
  },
};

const name = process.env.MUTATE_MODULE ?? '';
const module = modules[name];
// scripts/mutate.mjs reads `modules` only (MUTATE_LIST): no module is needed for that
if (!module && !process.env.MUTATE_LIST)
  throw new Error(`MUTATE_MODULE=${name}: one of ${Object.keys(modules).join(', ')}`);
const grep = process.env.MUTATE_GREP;

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'tap',
  plugins: ['@stryker-mutator/tap-runner', '@stryker-mutator/typescript-checker'],
  checkers: ['typescript'],
  tsconfigFile: 'tsconfig.json',
  // only the module's own code: the checker compiles the project with each mutant, the runner runs its test files
  mutate: module?.mutate ?? [],
  tap: {
    testFiles: module?.tests ?? [],
    // as .taprc runs a test file: TypeScript through tsx, failures bounded
    nodeArgs: [
      '-r',
      '{{hookFile}}',
      '--import=tsx/esm',
      '--import=./test/support/bounded-failures.ts',
      ...(grep ? [`--test-name-pattern=${grep}`] : []),
      '{{testFile}}',
    ],
  },
  coverageAnalysis: 'perTest',
  // two shared cores: one mutant at a time
  concurrency: 1,
  // a test file that builds the app takes seconds; a mutant that hangs it is a timeout, counted as detected
  timeoutMS: 120_000,
  timeoutFactor: 2,
  reporters: ['clear-text', 'progress-append-only', 'json'],
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
  thresholds: { high: 90, low: 80, break: null },
};
