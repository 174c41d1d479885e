// --state FILE restores the snapshot's seed and scenario (unless --seed/--scenario are given), and the start banner
// and GET /__admin/health say the same: the real process, as a tester replays a bug.
import t from 'tap';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { start } from '../support/process.js';

const health = async (base: string) =>
  (await fetch(`${base}/__admin/health`)).json() as Promise<{ seed: number; scenario: string }>;

t.test('a snapshot carries its seed and scenario; --state restores both unless given explicitly', async (t) => {
  const file = join(mkdtempSync(join(tmpdir(), 'pm-state-')), 'bug.json');
  const first = await start(['--seed', '7', '--scenario', 'flaky']);
  try {
    const snapshot = (await (await fetch(`${first.base}/__admin/state`)).json()) as { seed: number; scenario: string };
    t.match(snapshot, { format: 'portal-mock-state', seed: 7, scenario: 'flaky' });
    writeFileSync(file, JSON.stringify(snapshot));
  } finally {
    first.proc.kill('SIGTERM');
    await first.exited;
  }
  const cases: Array<[string[], { seed: number; scenario: string }]> = [
    [['--state', file], { seed: 7, scenario: 'flaky' }],
    [['--state', file, '--seed', '9', '--scenario', 'default'], { seed: 9, scenario: 'default' }],
  ];
  for (const [args, want] of cases) {
    const child = await start(args);
    try {
      t.match(child.out(), `scenario: ${want.scenario}   seed: ${want.seed}`, `banner of ${args.join(' ')}`);
      t.match(await health(child.base), want, `health of ${args.join(' ')}`);
    } finally {
      child.proc.kill('SIGTERM');
      await child.exited;
    }
  }
});
