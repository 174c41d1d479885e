// The one atomic file write (port file, CA, recordings, log compaction): whole file or nothing, no temporary left.
import t from 'tap';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeAtomic } from '../../src/shared/write-atomic.js';

t.test('writes the whole file and leaves no temporary file, also when the write fails', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pm-atomic-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'state.log');
  writeAtomic(file, 'first\n');
  writeAtomic(file, 'second\n');
  t.equal(readFileSync(file, 'utf8'), 'second\n');
  t.same(readdirSync(dir), ['state.log']);

  // a directory where the file should go: the rename fails after the temporary file was written
  const blocked = join(dir, 'blocked');
  mkdirSync(blocked);
  writeFileSync(join(blocked, 'inside'), 'x');
  t.throws(() => writeAtomic(blocked, 'never\n'));
  t.same(readdirSync(dir).sort(), ['blocked', 'state.log'], 'no temporary file left behind');
});
