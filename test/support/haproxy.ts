// The balancer of the cluster tests runs deploy/haproxy.cfg. Its guards listen on abstract sockets
// (abns@portal-mock-m1 …), whose names are one namespace for the whole machine (per network namespace: a pod has
// its own). Two test files running their balancers at once took each other's sockets, so each test gives its copy
// names of its own; nothing else in the shipped file changes.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const haproxy = '/usr/sbin/haproxy';
export const shippedConfig = fileURLToPath(new URL('../../deploy/haproxy.cfg', import.meta.url));

let copies = 0;

/**
 * Writes `config` (default: the shipped file) with its abstract socket names made unique to this process and copy;
 * answers the file and a function that removes it.
 */
export function balancerConfig(config = readFileSync(shippedConfig, 'utf8')): { file: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'pm-haproxy-'));
  const file = join(dir, 'haproxy.cfg');
  writeFileSync(file, config.replaceAll('abns@portal-mock-', `abns@portal-mock-${process.pid}-${++copies}-`));
  return { file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
