// `engines` says what is tested and supported, and installing gives no EBADENGINE warning on any of those versions:
// every package in the lockfile (dev ones included: `npm ci` checks them all) accepts every Node our range accepts.
// The image is built on a supported LTS inside that range.
import t from 'tap';
import { readFileSync } from 'node:fs';

const root = new URL('../..', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
};

// The part of npm's range grammar `engines` use, as sets of versions: semver is not a dependency of this package.
// A range is a union of intervals [from, to) over versions written as one number (major, minor, patch: 1e6 apart);
// prereleases are left out, as npm leaves them out of engine checks.
type Interval = [from: number, to: number];
const step = 1e6;
const end = Number.MAX_SAFE_INTEGER; // past every version (majors up to 9006 fit)
const versionNumber = (major: number, minor: number, patch: number) => (major * step + minor) * step + patch;

/** "20", "20.19", "20.x", "*": the numbers given (null for a wildcard or a missing part). */
function partial(text: string): [major: number | null, minor: number | null, patch: number | null] {
  const parts = text
    .replace(/^v/, '')
    .split('.')
    .slice(0, 3)
    .map((p) => (/^\d+$/.test(p) ? Number(p) : null));
  const given = parts.indexOf(null);
  const numbers = given === -1 ? parts : parts.slice(0, given);
  const [major = null, minor = null, patch = null] = numbers;
  return [major, minor, patch];
}

/** The lowest version a partial names, and the first version past every version it names. */
function bounds(text: string): { low: number; next: number } {
  const [major, minor, patch] = partial(text);
  if (major === null) return { low: 0, next: end };
  if (minor === null) return { low: versionNumber(major, 0, 0), next: versionNumber(major + 1, 0, 0) };
  if (patch === null) return { low: versionNumber(major, minor, 0), next: versionNumber(major, minor + 1, 0) };
  return { low: versionNumber(major, minor, patch), next: versionNumber(major, minor, patch + 1) };
}

/** One comparator (">=20.19", "^20.19", "~1.2", "20.x") as an interval. */
function comparator(text: string): Interval {
  const m = /^(\^|~|>=|<=|>|<|=)?(.*)$/.exec(text)!;
  const { low, next } = bounds(m[2]!);
  const [major, minor] = partial(m[2]!);
  switch (m[1]) {
    case '>=':
      return [low, end];
    case '>':
      return [next, end];
    case '<':
      return [0, low];
    case '<=':
      return [0, next];
    case '~':
      return [low, minor === null ? next : versionNumber(major!, minor + 1, 0)];
    case '^': {
      // up to the next change of the first non-zero part that is given
      if (major === null) return [0, end];
      if (major > 0 || minor === null) return [low, versionNumber(major + 1, 0, 0)];
      if (minor > 0 || partial(m[2]!)[2] === null) return [low, versionNumber(0, minor + 1, 0)];
      return [low, next];
    }
    default:
      return [low, next];
  }
}

/** A range ("^20.19 || ^22.13 || ^24", ">= 10", "1.2 - 2", "14 >=14.17") as a union of intervals. */
function intervals(range: string): Interval[] {
  return range
    .split('||')
    .map((set) => {
      const text = set.trim().replace(/(>=|<=|>|<|=|\^|~)\s+/g, '$1');
      const hyphen = /^(\S+)\s+-\s+(\S+)$/.exec(text);
      const parts: Interval[] = hyphen
        ? [
            [bounds(hyphen[1]!).low, end],
            [0, bounds(hyphen[2]!).next],
          ]
        : text === ''
          ? [[0, end]]
          : text.split(/\s+/).map(comparator);
      return parts.reduce(([a, b], [c, d]) => [Math.max(a, c), Math.min(b, d)]);
    })
    .filter(([from, to]) => from < to);
}

/** Whether every version `ours` accepts is one `theirs` accepts. */
function subset(ours: string, theirs: string): boolean {
  const merged = intervals(theirs)
    .sort((a, b) => a[0] - b[0])
    .reduce<Interval[]>((out, [from, to]) => {
      const last = out.at(-1);
      if (last && from <= last[1]) last[1] = Math.max(last[1], to);
      else out.push([from, to]);
      return out;
    }, []);
  return intervals(ours).every(([from, to]) => merged.some(([a, b]) => a <= from && to <= b));
}

const satisfies = (version: string, range: string) => subset(version.replace(/-.*$/, ''), range);

t.test('the range arithmetic, on the forms the lockfile uses', async (t) => {
  const ours = '^20.19 || ^22.13 || ^24';
  const accepting = [
    '>=18',
    '>= 20.19.0',
    '^20.19.0 || ^22.12.0 || >=23',
    '18 || 20 || >=22',
    '>=0.8.x',
    '*',
    '>= 10.*',
    '^18.17.0 || >=20.5.0',
    '20 || >=22',
    '^20.17.0 || >=22.9.0',
    '6.* || 8.* || >= 10.*',
    '>=16 || 14 >=14.17',
    '20 - 24',
  ];
  for (const range of accepting) t.ok(subset(ours, range), `"${range}" accepts all of "${ours}"`);
  const refusing = [
    '>=22',
    '>=20.20',
    '^20.19.0 || >=22.14',
    '18 || 20',
    '<24',
    '^20 || ^22',
    '>=20.19 <24.5',
    '20 - 23',
  ];
  for (const range of refusing) t.notOk(subset(ours, range), `"${range}" refuses part of "${ours}"`);
  t.ok(satisfies('20.19.0', ours));
  t.ok(satisfies('24.99.0', ours));
  t.notOk(satisfies('20.18.3', ours));
  t.notOk(satisfies('23.1.0', ours));
  t.notOk(satisfies('25.0.0', ours));
  t.ok(satisfies('0.0.7', '^0.0.7'));
  t.notOk(satisfies('0.0.8', '^0.0.7'));
  t.ok(satisfies('1.2.9', '~1.2.3'));
  t.notOk(satisfies('1.3.0', '~1.2.3'));
  t.notOk(satisfies('1.2.3', '>1.2.3'));
  t.ok(satisfies('1.2.3', '<=1.2.3'));
});

t.test('every locked package accepts every Node version engines promises', async (t) => {
  const ours = pkg.engines.node;
  const refused = Object.entries(lock.packages)
    .filter(
      ([path, p]) =>
        path !== '' && p.engines && !Array.isArray(p.engines) && p.engines.node && !subset(ours, p.engines.node),
    )
    .map(
      ([path, p]) =>
        `${path.replace(/^.*node_modules\//, '')}@${p.version} wants node ${(p.engines as { node: string }).node}`,
    );
  t.same(refused, [], `packages that would warn EBADENGINE on part of "${ours}"`);
  t.ok(
    satisfies(process.versions.node, ours),
    `this machine's Node ${process.versions.node} is in the range (CI runs the suite on it)`,
  );
});

t.test('the image is built on a supported LTS (Node 22 or newer) inside the range', async (t) => {
  const images = [
    ...readFileSync(new URL('Dockerfile', root), 'utf8').matchAll(/^FROM node:(\d+)-bookworm-slim/gm),
  ].map((m) => Number(m[1]));
  t.equal(images.length, 2, 'both stages name a node image');
  for (const major of images) {
    t.ok(major >= 22, `node:${major}: Node 20 reached end of life in April 2026`);
    t.ok(satisfies(`${major}.99.0`, pkg.engines.node), `node:${major} is in engines`);
  }
});
