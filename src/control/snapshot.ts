import { readFileSync } from 'node:fs';
import { Data } from '../schemas/tenant-data.js';
import { checkOrThrow } from '../schemas/check.js';
import { ClockState } from '../schemas/control.js';
import type { Sandbox, SandboxRegistry } from '../store/sandbox.js';
import { UsageError } from '../config.js';
import { clockProblem } from '../store/clock.js';

/** --state FILE: starts a sandbox from an exported snapshot (GET /__admin/state), refusing an invalid one. */
export function loadSnapshotFile(sandboxes: SandboxRegistry, sandbox: Sandbox, file: string, seed: number): void {
  let raw: { format?: unknown; data?: unknown; scenario?: unknown; clock?: unknown };
  try {
    raw = JSON.parse(readFileSync(file, 'utf8')) as typeof raw;
  } catch (err) {
    throw new UsageError(`--state ${file}: cannot read a JSON snapshot: ${(err as Error).message}`);
  }
  if (raw.format !== 'portal-mock-state')
    throw new UsageError(`--state ${file}: not a portal-mock snapshot (export one with GET /__admin/state)`);
  const data = checkOrThrow(Data, raw.data, `--state ${file} (data)`);
  const clock = raw.clock === undefined ? undefined : checkOrThrow(ClockState, raw.clock, `--state ${file} (clock)`);
  const clockRefused = clock ? clockProblem(clock) : null;
  if (clockRefused) throw new UsageError(`--state ${file}: its clock cannot be kept: ${clockRefused}`);
  sandboxes.replaceData(sandbox, { ...data, meta: { ...data.meta, seed } }); // the snapshot's seed unless --seed was given
  if (clock) sandbox.clock.state = clock;
}
