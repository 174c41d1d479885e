// CLI entry: parse flags/env once, build, listen, print where to reach the mock, stop cleanly.
import { hostname } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { mcpUsage, parseMcpOptions, parseOptions, usage, UsageError, type Options } from './config.js';
import { DataError } from './store/log.js';
import { buildApp, type AppOptions } from './app.js';
import { ScenarioError } from './scenarios/registry.js';
import { CheckError } from './schemas/check.js';
import { bannerText, cliLogger, resolveTls, type TlsSetup, writePortFile } from './cli/start.js';
import { checkStartInputs, fsReason } from './cli/inputs.js';

/** The one line a failed start prints, and its exit code; a message may quote a file's text, newlines included. */
function exitWith(code: 1 | 2, message: string): never {
  process.stderr.write(`portal-mock: ${message.replace(/\s*\n\s*/g, ' ')}\n`);
  process.exit(code);
}

/** Errors that mean a bad start-up input: a flag, a file or directory it names, a scenario or data file. */
const isInputError = (err: unknown): err is Error =>
  err instanceof UsageError || err instanceof ScenarioError || err instanceof CheckError || err instanceof DataError;

/** The message with the flag in front when it names a file inside what a flag names (a data or scenario file). */
function withFlag(err: Error, options: Options): string {
  if (err instanceof DataError && options.data) return `--data ${options.data}: ${err.message}`;
  const inside = (dir: string) => err.message.startsWith(`${dir.replace(/\/$/, '')}/`);
  const dir = err instanceof ScenarioError ? options.scenarios.find(inside) : undefined;
  return dir ? `--scenarios ${dir}: ${err.message}` : err.message;
}

/** The TLS material of the options; a bad start-up input exits 2. */
async function startInputs(options: Options) {
  try {
    await checkStartInputs(options); // before buildApp, which would fail on them with a stack, or spin (see inputs.ts)
    return resolveTls(options);
  } catch (err) {
    if (isInputError(err)) exitWith(2, withFlag(err, options));
    throw err;
  }
}

async function buildOrExit(options: Options, tls: TlsSetup | null, logger: AppOptions['logger']) {
  try {
    return await buildApp({
      ...options,
      logger,
      tls: tls?.tls ?? null,
      caCertificate: tls?.caCertificate ?? null,
      watchScenarios: true, // scenario files are reloaded when they change (README "Writing one")
    });
  } catch (err) {
    if (isInputError(err)) exitWith(2, withFlag(err, options));
    throw err;
  }
}

/** Listens as the options say; an address that cannot be had exits 1 with what to do. */
async function listenOrExit(app: FastifyInstance, options: Options): Promise<string> {
  try {
    return await app.listen({ port: options.port, host: options.host });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
      const why =
        code === 'EADDRINUSE'
          ? 'is in use'
          : code === 'EACCES'
            ? 'needs privileges this user does not have'
            : 'is not an address of this machine';
      const fix =
        code === 'EADDRNOTAVAIL'
          ? 'choose another with --host'
          : 'choose another with --port N, or --port 0 for any free port (with --port-file FILE to learn which)';
      await app.close();
      exitWith(1, `${options.host}:${options.port} ${why}; ${fix}`);
    }
    throw err;
  }
}

/**
 * `portal-mock mcp`: MCP over stdio (src/cli/mcp.ts), bridged to a running instance (--url) or to one started here.
 * Stdout carries the protocol only: the instance's logs and the address go to stderr.
 */
async function mcpCommand(argv: string[]): Promise<void> {
  let parsed;
  try {
    parsed = parseMcpOptions(argv);
  } catch (err) {
    if (err instanceof UsageError) exitWith(2, `mcp: ${err.message} (portal-mock mcp --help lists the options)`);
    throw err;
  }
  if (parsed === 'help') {
    process.stdout.write(mcpUsage());
    return;
  }
  const { instance: options, url, maxInFlight } = parsed;
  // the MCP SDK's client and server load here only: the main command's start does not pay for them
  const { BridgeError, checkInstance, mcpEndpoint, serveBridge } = await import('./cli/mcp.js');
  let app: FastifyInstance | null = null;
  let endpoint: URL;
  if (url) {
    endpoint = mcpEndpoint(url);
    try {
      await checkInstance(endpoint, options.adminToken);
    } catch (err) {
      if (err instanceof BridgeError) exitWith(1, `mcp: ${err.message}`);
      throw err;
    }
  } else {
    const tls = await startInputs(options);
    const logger = options.logLevel === 'silent' ? false : { level: options.logLevel, stream: process.stderr };
    app = await buildOrExit(options, tls, logger);
    const address = await listenOrExit(app, options);
    if (!options.instanceName) app.instance.name = `${hostname()}:${new URL(address).port}`;
    endpoint = mcpEndpoint(address);
    process.stderr.write(
      `portal-mock mcp: serving the instance at ${address} (console ${address}/__admin, ` +
        `MCP over HTTP ${endpoint.href}); it stops when stdin closes\n`,
    );
  }
  const bridge = await serveBridge({
    endpoint,
    adminToken: options.adminToken,
    maxInFlight,
    warn: (line) => process.stderr.write(`portal-mock mcp: ${line}\n`),
  });
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => {
      process.stderr.write('portal-mock mcp: shutdown took longer than 10 s, exiting\n');
      process.exit(1);
    }, 10_000).unref();
    await bridge.close();
    await app?.close();
    process.exit(0);
  };
  // a failure while closing still ends the process, with its reason, rather than as an unhandled rejection
  const stopOrFail = () =>
    stop().catch((err: Error) => {
      process.stderr.write(`portal-mock mcp: stopping failed: ${err.message}\n`);
      process.exit(1);
    });
  void bridge.closed.then(stopOrFail);
  process.on('SIGINT', () => void stopOrFail());
  process.on('SIGTERM', () => void stopOrFail());
}

/**
 * Exit codes: 0 clean stop, 1 failure while running or listening, 2 bad start-up input (flags and what they name:
 * files, directories, scenario and data files), always as one line on stderr.
 */
async function main(): Promise<void> {
  if (process.argv[2] === 'mcp') return mcpCommand(process.argv.slice(3));
  let options;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (err) {
    if (err instanceof UsageError) exitWith(2, `${err.message} (portal-mock --help lists the options)`);
    throw err;
  }
  if (options === 'help') {
    process.stdout.write(usage());
    return;
  }

  const tls = await startInputs(options);
  const app = await buildOrExit(
    options,
    tls,
    await cliLogger(options.logLevel, options.logFormat, process.stdout.isTTY === true, !options.noBanner),
  );
  const address = await listenOrExit(app, options);
  const port = Number(new URL(address).port);
  if (!options.instanceName) app.instance.name = `${hostname()}:${port}`;
  if (options.portFile) {
    try {
      writePortFile(options.portFile, port);
    } catch (err) {
      // checked at start, so only a change since (the directory removed, the disk full) gets here
      await app.close();
      exitWith(1, `--port-file ${options.portFile}: cannot write it: ${fsReason(err)}`);
    }
  }
  if (!options.noBanner) {
    process.stdout.write(
      await bannerText({
        protocol: tls ? 'https' : 'http',
        port,
        host: options.host,
        options,
        fixtures: app.fixtures,
        qr: process.stdout.isTTY === true,
        caDir: tls?.caDir ?? null,
      }),
    );
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
