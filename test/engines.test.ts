// `engines` says what is tested and supported, and installing gives no EBADENGINE warning on any of those versions:
// every package in the lockfile (dev ones included: `npm ci` checks them all) accepts every Node our range accepts.
// The image is built on a supported LTS inside that range.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const root = new URL('..', import.meta.url);
const semver = createRequire(import.meta.url)('semver') as { subset(a: string, b: string): boolean; satisfies(v: string, r: string): boolean };
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8')) as { packages: Record<string, { version?: string; engines?: { node?: string } | string[] }> };

t.test('every locked package accepts every Node version engines promises', async (t) => {
  const ours = pkg.engines.node;
  const refused = Object.entries(lock.packages)
    .filter(([path, p]) => path !== '' && p.engines && !Array.isArray(p.engines) && p.engines.node && !semver.subset(ours, p.engines.node))
    .map(([path, p]) => `${path.replace(/^.*node_modules\//, '')}@${p.version} wants node ${(p.engines as { node: string }).node}`);
  t.same(refused, [], `packages that would warn EBADENGINE on part of "${ours}"`);
  t.ok(semver.satisfies(process.versions.node, ours), `this machine's Node ${process.versions.node} is in the range (CI runs the suite on it)`);
});

t.test('the image is built on a supported LTS (Node 22 or newer) inside the range', async (t) => {
  const images = [...readFileSync(new URL('Dockerfile', root), 'utf8').matchAll(/^FROM node:(\d+)-bookworm-slim/gm)].map((m) => Number(m[1]));
  t.equal(images.length, 2, 'both stages name a node image');
  for (const major of images) {
    t.ok(major >= 22, `node:${major}: Node 20 reached end of life in April 2026`);
    t.ok(semver.satisfies(`${major}.99.0`, pkg.engines.node), `node:${major} is in engines`);
  }
});
