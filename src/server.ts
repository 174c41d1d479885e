// CLI entry: parse flags/env once, build, listen, print where to reach the mock, stop cleanly.
import { hostname } from 'node:os';
import { parseOptions, usage, UsageError } from './config.js';
import { DataError } from './store/log.js';
import { buildApp } from './app.js';
import { ScenarioError } from './scenarios/registry.js';
import { CheckError } from './schemas/check.js';
import { bannerText, cliLogger, resolveTls, writePortFile } from './cli/start.js';

/** Exit codes: 0 clean stop, 1 failure while running or listening, 2 bad flags, scenario files or data files. */
async function main(): Promise<void> {
  let options;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`portal-mock: ${err.message} (portal-mock --help lists the options)\n`);
      process.exit(2);
    }
    throw err;
  }
  if (options === 'help') {
    process.stdout.write(usage());
    return;
  }

  let app;
  let tls;
  try {
    tls = resolveTls(options);
    app = await buildApp({ ...options, logger: cliLogger(options.logLevel, process.stdout.isTTY === true), tls: tls?.tls ?? null, caCertificate: tls?.caCertificate ?? null });
  } catch (err) {
    if (err instanceof UsageError || err instanceof ScenarioError || err instanceof CheckError || err instanceof DataError) {
      process.stderr.write(`portal-mock: ${(err as Error).message}\n`);
      process.exit(2);
    }
    throw err;
  }

  let address: string;
  try {
    address = await app.listen({ port: options.port, host: options.host });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
      const why = code === 'EADDRINUSE' ? 'is in use' : code === 'EACCES' ? 'needs privileges this user does not have' : 'is not an address of this machine';
      const fix = code === 'EADDRNOTAVAIL' ? 'choose another with --host' : 'choose another with --port N, or --port 0 for any free port (with --port-file FILE to learn which)';
      process.stderr.write(`portal-mock: ${options.host}:${options.port} ${why}; ${fix}\n`);
      await app.close();
      process.exit(1);
    }
    throw err;
  }
  const port = Number(new URL(address).port);
  if (!options.instanceName) app.instance.name = `${hostname()}:${port}`;
  if (options.portFile) writePortFile(options.portFile, port);
  if (!options.noBanner) {
    process.stdout.write(await bannerText({
      protocol: tls ? 'https' : 'http', port, host: options.host, options, fixtures: app.fixtures,
      qr: process.stdout.isTTY === true, caDir: tls?.caDir ?? null,
    }));
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'stopping');
    setTimeout(() => {
      process.stderr.write('portal-mock: shutdown took longer than 10 s, exiting\n');
      process.exit(1);
    }, 10_000).unref();
    try {
      await app.close();
      process.exit(0);
    } catch (err) {
      process.stderr.write(`portal-mock: error while stopping: ${(err as Error).message}\n`);
      process.exit(1);
    }
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((err: unknown) => {
  process.stderr.write(`portal-mock: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
