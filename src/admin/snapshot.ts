import { readFileSync } from 'node:fs';
import { Data } from '../store/data.js';
import { checkOrThrow } from '../store/check.js';
import { ClockState } from '../store/clock.js';
import type { Sandbox } from '../store/sandbox.js';
import { UsageError } from '../config.js';

/** --state FILE: starts a sandbox from an exported snapshot (GET /__admin/state), refusing an invalid one. */
export async function loadSnapshotFile(sandbox: Sandbox, file: string): Promise<void> {
  let raw: { format?: unknown; data?: unknown; scenario?: unknown; clock?: unknown };
  try {
    raw = JSON.parse(readFileSync(file, 'utf8')) as typeof raw;
  } catch (err) {
    throw new UsageError(`--state ${file}: cannot read a JSON snapshot: ${(err as Error).message}`);
  }
  if (raw.format !== 'portal-mock-state') throw new UsageError(`--state ${file}: not a portal-mock snapshot (export one with GET /__admin/state)`);
  sandbox.db.data = checkOrThrow(Data, raw.data, `--state ${file} (data)`);
  if (raw.clock !== undefined) sandbox.clock.state = checkOrThrow(ClockState, raw.clock, `--state ${file} (clock)`);
  await sandbox.save();
}
