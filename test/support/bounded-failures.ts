// Loaded into every test process by .taprc (node-arg --import): bounds what a failing assertion reports.
//
// Why: tap's terminal reporters (base, the default on a terminal, and terse) lay a failure out with Ink, whose cost
// grows much faster than the length of a line: a failure whose message was one 100 KB line took 120-140 s to print,
// one of 200 KB over 5 minutes, during which tap spins at 100% CPU after the test file has ended and does not even
// answer SIGTERM. A property test's counterexample is such a line (fast-check prints every generated value: the
// journal's model test printed 300 KB to 2 MB), so one failing property stalled the whole run instead of failing it.
// Every failure, an assertion's or a thrown error's, goes through TestBase.fail: its message and each text of its
// diagnostics are cut here to a size any reporter prints at once. What is kept is the start, where fast-check puts
// the seed and path that replay the failure, and where a diff shows its first difference.
import { TestBase } from '@tapjs/core';

/** The longest message, and the longest line of any diagnostic text, kept. */
export const maxLineChars = 2_000;
/** The most of any one diagnostic text (a diff, a stack, an error's field) kept, over all its lines. */
export const maxTextChars = 20_000;

const cutNote = (dropped: number) => ` … [${dropped} more characters cut by test/support/bounded-failures.ts]`;

function cutLine(line: string): string {
  return line.length > maxLineChars ? line.slice(0, maxLineChars) + cutNote(line.length - maxLineChars) : line;
}

/** A text of at most maxTextChars, each of its lines at most maxLineChars (plus the notes saying what was cut). */
export function boundText(text: string): string {
  if (text.length <= maxLineChars) return text;
  const kept = text.length > maxTextChars ? text.slice(0, maxTextChars) : text;
  const lines = kept.split('\n').map(cutLine).join('\n');
  return text.length > maxTextChars ? lines + cutNote(text.length - maxTextChars) : lines;
}

/** An error (a failure's `cause`) with its message and stack bounded, or the value itself when nothing is long. */
function boundCause(cause: unknown): unknown {
  if (!(cause instanceof Error)) return typeof cause === 'string' ? boundText(cause) : cause;
  const long = cause.message.length > maxLineChars || (cause.stack?.length ?? 0) > maxTextChars;
  if (!long) return cause;
  const copy = new Error(boundText(cause.message));
  copy.name = cause.name;
  copy.stack = boundText(cause.stack ?? '');
  return copy;
}

type Fail = (this: TestBase, ...args: unknown[]) => boolean;
const fail = TestBase.prototype.fail as unknown as Fail;

function boundExtra(extra: unknown): unknown {
  if (extra === null || typeof extra !== 'object') return extra;
  const bounded: Record<string, unknown> = { ...extra };
  for (const [key, value] of Object.entries(bounded)) {
    if (typeof value === 'string') bounded[key] = boundText(value);
    else if (key === 'cause') bounded[key] = boundCause(value);
  }
  return bounded;
}

// same arguments as tap's own fail (message and extra, either may be missing), bounded
TestBase.prototype.fail = function boundedFail(this: TestBase, ...args: unknown[]) {
  const [message, extra, ...rest] = args;
  const bounded = args.length === 0 ? [] : [typeof message === 'string' ? boundText(message) : boundExtra(message)];
  if (args.length > 1) bounded.push(boundExtra(extra), ...rest);
  return fail.apply(this, bounded);
} as unknown as TestBase['fail'];
