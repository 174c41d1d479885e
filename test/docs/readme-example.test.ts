// The README's "Arranging data" example is a whole test a user copies: it runs here as written, with plain
// `node --test`, importing the package by its name (the built dist/, as an installed package would).
import t from 'tap';
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { withoutTapHooks } from '../support/process.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

t.test('README: the arrange, act, assert example passes', async (t) => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const block = /```js\n(\/\/ arrange\.test\.mjs[\s\S]*?)```/.exec(readme)?.[1];
  if (!block) throw new Error('README.md has no js block starting with // arrange.test.mjs');
  // inside the package, so `import ... from 'portal-mock'` resolves to this package as it would once installed
  const dir = join(root, 'test', '.readme-example', String(process.pid));
  mkdirSync(dir, { recursive: true });
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'arrange.test.mjs');
  writeFileSync(file, block);
  const run = await promisify(execFile)(...withoutTapHooks(process.execPath, ['--test', file]), { cwd: dir }).catch(
    (err: { stdout?: string; stderr?: string; code?: number }) => err,
  );
  const output = `${run.stdout ?? ''}${run.stderr ?? ''}`;
  t.match(output, /# pass 1\b/, output);
  t.match(output, /# fail 0\b/);
});
