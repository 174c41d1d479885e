// CLI entry: parse flags/env once, build, listen, print where to reach the mock, stop cleanly.
import { parseOptions, usage, UsageError } from './config.js';
import { buildApp } from './app.js';
import { ScenarioError } from './scenarios/registry.js';
import { CheckError } from './store/check.js';
import { lanAddresses } from './admin/lan.js';

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
  try {
    app = await buildApp({ ...options, logger: options.logLevel === 'silent' ? false : { level: options.logLevel } });
  } catch (err) {
    if (err instanceof UsageError || err instanceof ScenarioError || err instanceof CheckError || (err as Error).message?.includes('move it away')) {
      process.stderr.write(`portal-mock: ${(err as Error).message}\n`);
      process.exit(2);
    }
    throw err;
  }

  const address = await app.listen({ port: options.port, host: options.host });
  const port = new URL(address).port;
  const hosts = options.host === '0.0.0.0' || options.host === '::' ? ['localhost', ...lanAddresses()] : [options.host];
  const lines = [
    '',
    'portal-mock is running',
    ...hosts.map((h) => `  http://${h}:${port}`),
    `  scenario: ${options.scenario}   seed: ${options.seed}   data: ${options.data ?? 'in memory'}${options.now ? `   clock frozen at ${options.now}` : ''}`,
    `  demo accounts:  http://localhost:${port}/__admin/fixtures`,
    `  API document:   http://localhost:${port}/docs`,
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');

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
