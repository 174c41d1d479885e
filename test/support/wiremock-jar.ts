// The real WireMock 3.13 (the jar of the `wiremock` devDependency) for the differential tests and the clients' test:
// where the jar is, and a WireMock started on a free port, killed with the test (and with this process).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export const javaInstalled = spawnSync('java', ['-version']).status === 0;
const jarDir = new URL('../../node_modules/wiremock/build/', import.meta.url).pathname;
/** The standalone jar's path, or undefined when npm ci has not installed it. */
export const wiremockJar: string | undefined = (() => {
  const name = existsSync(jarDir)
    ? readdirSync(jarDir).find((f) => /^wiremock-standalone-.*\.jar$/.test(f))
    : undefined;
  return name === undefined ? undefined : join(jarDir, name);
})();
export const noJarMessage = `no WireMock jar under ${jarDir}: npm ci installs the wiremock devDependency`;

/** Starts the jar with `root` as its --root-dir; resolves with the port once its banner says it listens. */
export async function startWireMockJar(
  t: { teardown(fn: () => void): void },
  jar: string,
  root: string,
): Promise<number> {
  const guard = existsSync('/usr/bin/setpriv') ? ['/usr/bin/setpriv', '--pdeathsig', 'KILL', '--'] : [];
  const [command, ...args] = [...guard, 'java', '-jar', jar, '--port', '0', '--root-dir', root];
  const proc = spawn(command!, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  t.teardown(() => proc.kill('SIGKILL'));
  let out = '';
  // WireMock prints its banner, with the port it took, once it listens
  return new Promise<number>((resolve, reject) => {
    const check = (d: Buffer) => {
      out += d.toString();
      const m = /port:\s+(\d+)\s/.exec(out);
      if (m) resolve(Number(m[1]));
    };
    proc.stdout!.on('data', check);
    proc.stderr!.on('data', check);
    proc.on('close', (code) => reject(new Error(`WireMock exited (${code}) before it listened: ${out}`)));
  });
}
