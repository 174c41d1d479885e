// CLI entry: parse flags/env once, build, listen, print where to reach the mock, stop cleanly.
import { parseOptions, usage, UsageError } from './config.js';
import { DataError } from './store/log.js';
import { buildApp } from './app.js';
import { ScenarioError } from './scenarios/registry.js';
import { CheckError } from './store/check.js';
import { bannerText, cliLogger, resolveTls, writePortFile } from './cli/start.js';

/** Exit codes: 0 clean stop, 1 failure while running or listening, 2 bad flags, scenario files or data files. */
async function main(): Promise<void> {
  let options;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`portal-mock: ${err.message}\n\n${usage()}`);
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
    if (err instanceof UsageError || err instanceof ScenarioError || err instanceof CheckError || err instanceof DataError || (err as Error).message?.includes('move it away')) {
      process.stderr.write(`portal-mock: ${(err as Error).message}\n`);
      process.exit(2);
    }
    throw err;
  }

  const address = await app.listen({ port: options.port, host: options.host });
  const port = Number(new URL(address).port);
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
    const timer = setTimeout(() => {
      process.stderr.write('portal-mock: shutdown took longer than 10 s, exiting\n');
      process.exit(1);
    }, 10_000);
    timer.unref();
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
