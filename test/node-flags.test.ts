import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// The V8 flags the mock runs with (young generation, marking: see docs/performance.md) are given in three places;
// a run through any of them must behave and perform the same.
const root = join(import.meta.dirname, '..');
const read = (file: string) => readFileSync(join(root, file), 'utf8');

t.test('the bin, npm start and the image run node with the same flags', async (t) => {
  const shebang = /^#!\/usr\/bin\/env -S node (.*)$/m.exec(read('bin/portal-mock.js'))?.[1]?.split(' ') ?? [];
  const start = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts.start?.split(' ') ?? [];
  const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(read('Dockerfile'))?.[1] ?? '[]') as string[];
  for (const flag of ['--max-semi-space-size=8', '--no-concurrent-marking', '--no-memory-reducer']) t.ok(shebang.includes(flag), `the bin has ${flag}`);
  t.same(start.slice(1, -1), shebang, 'npm start');
  t.same(cmd.slice(1, -1), shebang, 'the image');
  t.equal(start.at(-1), 'dist/portal-mock.mjs');
  t.equal(cmd.at(-1), 'dist/portal-mock.mjs');
});
