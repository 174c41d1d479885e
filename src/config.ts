// The only place that reads CLI flags and environment variables.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import './schemas/check.js'; // registers the string formats TypeBox checks
import { clockRange, clockRangeText } from './schemas/control.js';

const LogLevel = Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)));

const durationPattern = '^\\d+(ms|s|m|h|d)$';
const durationExpected = 'a duration: a whole number and a unit, ms, s, m, h or d (e.g. 500ms, 90s, 30m, 2h, 1d)';

export const Options = Type.Object({
  port: Type.Integer({ minimum: 0, maximum: 65535, default: 3000 }),
  host: Type.String({ minLength: 1, default: '0.0.0.0' }),
  seed: Type.Integer({ minimum: 0, maximum: 2 ** 31 - 1, default: 42 }),
  scenario: Type.String({ minLength: 1, default: 'default' }),
  scenarios: Type.Array(Type.String(), { default: [], description: 'extra scenario directories' }),
  data: Type.Union([Type.String({ minLength: 1 }), Type.Null()], { default: null }),
  state: Type.Union([Type.String({ minLength: 1 }), Type.Null()], { default: null }),
  now: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { default: null }),
  logLevel: Type.Union([LogLevel], { default: 'info' }),
  users: Type.Integer({ minimum: 10, maximum: 1_000_000, default: 200 }),
  adminToken: Type.Union([Type.String({ minLength: 1 }), Type.Null()], { default: null }),
  journalLimit: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 1000 }),
  answerCacheMb: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 32 }),
  bodyLimit: Type.Integer({ minimum: 1024, default: 1_048_576 }),
  fixtures: Type.Union([Type.String({ minLength: 1 }), Type.Null()], { default: null }),
  https: Type.Boolean({
    default: false,
    description: 'serve TLS with a certificate of the local CA (or --tls-cert/--tls-key)',
  }),
  caDir: Type.Union([Type.String({ minLength: 1 }), Type.Null()], {
    default: null,
    description: 'directory of the local CA (default ~/.portal-mock/ca)',
  }),
  tlsCert: Type.Union([Type.String({ minLength: 1 }), Type.Null()], { default: null }),
  tlsKey: Type.Union([Type.String({ minLength: 1 }), Type.Null()], { default: null }),
  portFile: Type.Union([Type.String({ minLength: 1 }), Type.Null()], { default: null }),
  noBanner: Type.Boolean({ default: false }),
  proxy: Type.Union([Type.String({ pattern: '^https?://' }), Type.Null()], { default: null }),
  proxyHeaders: Type.Array(Type.String({ pattern: "^[A-Za-z0-9!#$%&'*+.^_`|~-]+:" }), { default: [] }),
  proxyTimeout: Type.Integer({ minimum: 1, maximum: 600_000, default: 10_000 }),
  record: Type.Union([Type.String({ minLength: 1 }), Type.Null()], { default: null }),
  recordLimit: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1000 }),
  maxSandboxes: Type.Integer({ minimum: 1, maximum: 10_000_000, default: 10_000 }),
  maxHeapPercent: Type.Integer({ minimum: 1, maximum: 100, default: 85 }),
  maxMemoryMb: Type.Integer({ minimum: 0, maximum: 10_000_000, default: 1536 }),
  sandboxUploadMb: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 64 }),
  regexMaxProgram: Type.Integer({ minimum: 10, maximum: 100_000, default: 300 }),
  regexMaxText: Type.Integer({ minimum: 1024, maximum: 16_777_216, default: 65_536 }),
  regexBudget: Type.Integer({ minimum: 10_000, maximum: 10_000_000_000, default: 500_000 }),
  maxScenarios: Type.Integer({ minimum: 1, maximum: 100_000, default: 200 }),
  maxScenarioBytes: Type.Integer({ minimum: 1024, maximum: 67_108_864, default: 262_144 }),
  maxRecords: Type.Integer({ minimum: 1, maximum: 10_000_000, default: 10_000 }),
  calendarMaxOccurrences: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 2000 }),
  maxWorlds: Type.Integer({ minimum: 1, maximum: 1000, default: 4 }),
  sandboxIdleTtl: Type.Union([Type.String({ pattern: durationPattern }), Type.Null()], { default: null }),
  instanceName: Type.Union([Type.String({ minLength: 1, maxLength: 200 }), Type.Null()], { default: null }),
  peers: Type.Array(Type.String({ pattern: '^(https?://|dns:)' }), { default: [] }),
  mcpAllowedHosts: Type.Array(Type.String({ pattern: '^[^\\s/]+$', maxLength: 2000 }), { default: [] }),
});
export type Options = Static<typeof Options>;

/** What a valid value looks like, for error messages; whole numbers take their range from the schema. */
const expected: Partial<Record<keyof Options, string>> = {
  host: 'a host name or IP address',
  scenario: 'a scenario name',
  scenarios: 'a directory',
  data: 'a directory',
  state: 'a file',
  now: 'an ISO 8601 date-time such as 2026-03-02T09:00:00Z',
  logLevel: `one of ${LogLevel.anyOf.map((l) => l.const as string).join(', ')}`,
  adminToken: 'a token',
  fixtures: 'a file',
  caDir: 'a directory',
  tlsCert: 'a file',
  tlsKey: 'a file',
  portFile: 'a file',
  proxy: 'an http:// or https:// URL',
  proxyHeaders: '"Name: value"',
  record: 'a directory',
  sandboxIdleTtl: durationExpected,
  instanceName: 'a name of 1 to 200 characters',
  peers: 'a URL (http:// or https://) or dns:NAME:PORT',
  mcpAllowedHosts: 'host names, comma-separated, without scheme or port (an IPv6 address in brackets)',
};

/** A value as an error message quotes it: JSON, cut to a readable length. */
const shown = (value: unknown) => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
};

/** "a whole number from 0 to 65535" for an integer option, else the table's words. */
function expectation(key: keyof Options): string {
  const schema = Options.properties[key] as { type?: unknown; minimum?: number; maximum?: number } | undefined;
  if (schema?.type !== 'integer') return expected[key] ?? 'a valid value';
  const { minimum: min, maximum: max } = schema;
  return `a whole number ${max === undefined ? `of at least ${min}` : `from ${min} to ${max}`}`;
}

/** Milliseconds of a duration such as 500ms, 90s, 30m, 2h or 1d. */
export function durationMs(text: string): number {
  const m = /^(\d+)(ms|s|m|h|d)$/.exec(text);
  if (!m) throw new UsageError(`not a duration: "${text}"; expected ${durationExpected}`);
  return (
    Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 'ms' | 's' | 'm' | 'h' | 'd']
  );
}

type Flag = {
  key: keyof Options;
  flag: string;
  env: string;
  kind: 'int' | 'string' | 'list' | 'bool';
  help: string;
  envSeparator?: RegExp;
};
const flags: Flag[] = [
  {
    key: 'port',
    flag: 'port',
    env: 'PORTAL_MOCK_PORT',
    kind: 'int',
    help: 'port to listen on; 0 picks a free one (default 3000)',
  },
  {
    key: 'host',
    flag: 'host',
    env: 'PORTAL_MOCK_HOST',
    kind: 'string',
    help: 'address to bind (default 0.0.0.0, so phones on the LAN reach it)',
  },
  { key: 'seed', flag: 'seed', env: 'PORTAL_MOCK_SEED', kind: 'int', help: 'seed of the generated data (default 42)' },
  {
    key: 'scenario',
    flag: 'scenario',
    env: 'PORTAL_MOCK_SCENARIO',
    kind: 'string',
    help: 'scenario active at start in the default sandbox (default "default")',
  },
  {
    key: 'scenarios',
    flag: 'scenarios',
    env: 'PORTAL_MOCK_SCENARIOS',
    kind: 'list',
    help: 'another directory of scenario files; repeatable (env: comma-separated)',
  },
  {
    key: 'data',
    flag: 'data',
    env: 'PORTAL_MOCK_DATA',
    kind: 'string',
    help: 'keep the data in JSON files in DIR (survives restarts); in memory otherwise',
  },
  {
    key: 'state',
    flag: 'state',
    env: 'PORTAL_MOCK_STATE',
    kind: 'string',
    help: 'start the default sandbox from a snapshot exported by GET /__admin/state',
  },
  {
    key: 'now',
    flag: 'now',
    env: 'PORTAL_MOCK_NOW',
    kind: 'string',
    help: 'freeze the clock at this ISO date-time (e.g. 2026-03-02T09:00:00Z)',
  },
  {
    key: 'logLevel',
    flag: 'log-level',
    env: 'PORTAL_MOCK_LOG_LEVEL',
    kind: 'string',
    help: 'fatal|error|warn|info|debug|trace|silent (default info)',
  },
  {
    key: 'users',
    flag: 'users',
    env: 'PORTAL_MOCK_USERS',
    kind: 'int',
    help: 'generated users per tenant (default 200)',
  },
  {
    key: 'adminToken',
    flag: 'admin-token',
    env: 'PORTAL_MOCK_ADMIN_TOKEN',
    kind: 'string',
    help: 'require "Authorization: Bearer TOKEN" on /__admin routes',
  },
  {
    key: 'journalLimit',
    flag: 'journal-limit',
    env: 'PORTAL_MOCK_JOURNAL_LIMIT',
    kind: 'int',
    help: 'request journal entries kept per sandbox, oldest dropped first (default 1000; 0 turns the journal off)',
  },
  {
    key: 'answerCacheMb',
    flag: 'answer-cache-mb',
    env: 'PORTAL_MOCK_ANSWER_CACHE_MB',
    kind: 'int',
    help:
      'MB of kept answers (calendar, dashboard, tickets, tenant info) for the whole server, least recently used ' +
      'dropped first (default 32; 0 keeps none)',
  },
  {
    key: 'bodyLimit',
    flag: 'body-limit',
    env: 'PORTAL_MOCK_BODY_LIMIT',
    kind: 'int',
    help: 'largest accepted JSON body in bytes (default 1048576)',
  },
  {
    key: 'proxy',
    flag: 'proxy',
    env: 'PORTAL_MOCK_PROXY',
    kind: 'string',
    help: 'forward operations the mock does not implement to this upstream URL (see docs/proxy.md)',
  },
  {
    key: 'proxyHeaders',
    flag: 'proxy-header',
    env: 'PORTAL_MOCK_PROXY_HEADERS',
    kind: 'list',
    envSeparator: /[\n;]/,
    help:
      '"Name: value" added to every forwarded request (the upstream\'s ' +
      'own credentials); repeatable (env: newline- or ;-separated)',
  },
  {
    key: 'proxyTimeout',
    flag: 'proxy-timeout',
    env: 'PORTAL_MOCK_PROXY_TIMEOUT',
    kind: 'int',
    help: 'ms to wait for the upstream before answering 504 (default 10000)',
  },
  {
    key: 'record',
    flag: 'record',
    env: 'PORTAL_MOCK_RECORD',
    kind: 'string',
    help: 'write every forwarded exchange as a stub of a scenario file recorded-<time>.json in DIR',
  },
  {
    key: 'recordLimit',
    flag: 'record-limit',
    env: 'PORTAL_MOCK_RECORD_LIMIT',
    kind: 'int',
    help: 'stubs a recording keeps; past it the stub answered longest ago is dropped (default 1000)',
  },
  {
    key: 'fixtures',
    flag: 'fixtures',
    env: 'PORTAL_MOCK_FIXTURES',
    kind: 'string',
    help: 'fixtures file with tenants and demo accounts (default fixtures/tenants.json)',
  },
  {
    key: 'https',
    flag: 'https',
    env: 'PORTAL_MOCK_HTTPS',
    kind: 'bool',
    help: 'serve HTTPS with a certificate signed by the local CA (created once in --ca-dir)',
  },
  {
    key: 'caDir',
    flag: 'ca-dir',
    env: 'PORTAL_MOCK_CA_DIR',
    kind: 'string',
    help: 'directory of the local certificate authority (default ~/.portal-mock/ca)',
  },
  {
    key: 'tlsCert',
    flag: 'tls-cert',
    env: 'PORTAL_MOCK_TLS_CERT',
    kind: 'string',
    help: 'your own certificate (PEM) instead of the local CA; needs --tls-key; implies HTTPS',
  },
  {
    key: 'tlsKey',
    flag: 'tls-key',
    env: 'PORTAL_MOCK_TLS_KEY',
    kind: 'string',
    help: 'the private key (PEM) of --tls-cert',
  },
  {
    key: 'portFile',
    flag: 'port-file',
    env: 'PORTAL_MOCK_PORT_FILE',
    kind: 'string',
    help: 'write the port to FILE (atomically) once listening; for --port 0 in pipelines',
  },
  {
    key: 'maxSandboxes',
    flag: 'max-sandboxes',
    env: 'PORTAL_MOCK_MAX_SANDBOXES',
    kind: 'int',
    help: 'most sandboxes at once; a request that would create one more gets 429 (default 10000)',
  },
  {
    key: 'maxHeapPercent',
    flag: 'max-heap-percent',
    env: 'PORTAL_MOCK_MAX_HEAP_PERCENT',
    kind: 'int',
    help:
      "share of the JavaScript heap's limit past which a new sandbox (429), records made through the records API " +
      '(422) and uploads (413) are refused; 100: never (default 85)',
  },
  {
    key: 'maxMemoryMb',
    flag: 'max-memory-mb',
    env: 'PORTAL_MOCK_MAX_MEMORY_MB',
    kind: 'int',
    help:
      'megabytes the whole process may hold (its resident memory, and what it has allocated outside the heap) past ' +
      'which a new sandbox (429), records made through the records API (422) and uploads (413) are refused; 0: ' +
      'never (default 1536)',
  },
  {
    key: 'sandboxUploadMb',
    flag: 'sandbox-upload-mb',
    env: 'PORTAL_MOCK_SANDBOX_UPLOAD_MB',
    kind: 'int',
    help:
      "megabytes of uploaded files' bytes a sandbox keeps; an upload past it gets 413, and an .xlsx that inflates " +
      'past it fails its file processing (default 64)',
  },
  {
    key: 'regexMaxProgram',
    flag: 'regex-max-program',
    env: 'PORTAL_MOCK_REGEX_MAX_PROGRAM',
    kind: 'int',
    help: 'most instructions a stub or journal-filter regex compiles to; a larger one is a 400 (default 300)',
  },
  {
    key: 'regexMaxText',
    flag: 'regex-max-text',
    env: 'PORTAL_MOCK_REGEX_MAX_TEXT',
    kind: 'int',
    help: 'most characters a regex matcher reads; a longer value does not match (default 65536)',
  },
  {
    key: 'regexBudget',
    flag: 'regex-budget',
    env: 'PORTAL_MOCK_REGEX_BUDGET',
    kind: 'int',
    help:
      'regex work of one request, in characters x program instructions: past it a stub regex does not match ' +
      'and a journal read is a 422 (default 500000, about 50 ms at worst)',
  },
  {
    key: 'maxScenarios',
    flag: 'max-scenarios',
    env: 'PORTAL_MOCK_MAX_SCENARIOS',
    kind: 'int',
    help: 'most scenarios defined through PUT /__admin/scenarios/NAME; one more is a 409 (default 200)',
  },
  {
    key: 'maxScenarioBytes',
    flag: 'max-scenario-bytes',
    env: 'PORTAL_MOCK_MAX_SCENARIO_BYTES',
    kind: 'int',
    help: 'most bytes of one scenario defined through the admin API, as JSON; a larger one is a 413 (default 262144)',
  },
  {
    key: 'maxRecords',
    flag: 'max-records',
    env: 'PORTAL_MOCK_MAX_RECORDS',
    kind: 'int',
    help:
      'records the records API may add to a collection of a sandbox beyond its seeded ones; a create past it gets ' +
      '422 (default 10000)',
  },
  {
    key: 'calendarMaxOccurrences',
    flag: 'calendar-max-occurrences',
    env: 'PORTAL_MOCK_CALENDAR_MAX_OCCURRENCES',
    kind: 'int',
    help:
      'occurrences one calendar list answer may expand (recurring events times the days of the window); a window ' +
      'holding more gets 400 saying so (default 2000)',
  },
  {
    key: 'maxWorlds',
    flag: 'max-worlds',
    env: 'PORTAL_MOCK_MAX_WORLDS',
    kind: 'int',
    help:
      'most base worlds kept at once (one per seed and reference date sandboxes use: a reset with another seed, ' +
      'a bug capture from another day); one more gets 429 while every kept one is in use (default 4)',
  },
  {
    key: 'sandboxIdleTtl',
    flag: 'sandbox-idle-ttl',
    env: 'PORTAL_MOCK_SANDBOX_IDLE_TTL',
    kind: 'string',
    help: 'delete a sandbox (not default) no request has named for this long, e.g. 30m, 2h (default: never)',
  },
  {
    key: 'instanceName',
    flag: 'instance-name',
    env: 'PORTAL_MOCK_INSTANCE',
    kind: 'string',
    help: "this instance's name in x-mock-instance, health and listings (default hostname:port)",
  },
  {
    key: 'peers',
    flag: 'peers',
    env: 'PORTAL_MOCK_PEERS',
    kind: 'list',
    help:
      'the other instances (URL, or dns:NAME:PORT for every address of NAME): ' +
      '/__admin/sandboxes lists theirs too; repeatable or comma-separated',
  },
  {
    key: 'mcpAllowedHosts',
    flag: 'mcp-allowed-hosts',
    env: 'PORTAL_MOCK_MCP_ALLOWED_HOSTS',
    kind: 'list',
    help:
      'more Host and Origin names /__admin/mcp accepts, beside localhost, --host, the LAN addresses and the ' +
      "peers' names (e.g. the balancer's name); repeatable or comma-separated",
  },
  {
    key: 'noBanner',
    flag: 'no-banner',
    env: 'PORTAL_MOCK_NO_BANNER',
    kind: 'bool',
    help: 'no address banner at start (printed to stdout, a redirected log too; its QR codes only on a terminal)',
  },
];

export function usage(): string {
  const lines = flags.map((f) => {
    const name = `${f.flag}${f.kind === 'bool' ? '' : f.kind === 'int' ? ' N' : ' VALUE'}`;
    return `  --${name.padEnd(22)} ${f.help}\n  ${''.padEnd(24)} env ${f.env}`;
  });
  return [
    'Usage: portal-mock [options]',
    '       portal-mock mcp [--url URL] [options]   MCP over stdio for editors (portal-mock mcp --help)',
    '',
    'Options:',
    ...lines,
    `  --${'help'.padEnd(22)} show this help`,
    '',
  ].join('\n');
}

export class UsageError extends Error {}

/**
 * parseArgs takes "--port -1" for a missing value followed by the option -1: join a value that looks like a negative
 * number to its flag, so the range check names it, and say plainly which flag lacks its value otherwise.
 */
function joinDashValues(argv: string[]): string[] {
  const valueFlags = new Set(flags.filter((f) => f.kind !== 'bool').map((f) => `--${f.flag}`));
  const options = new Set([...flags.map((f) => `--${f.flag}`), '--help', '-h']);
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') return [...out, ...argv.slice(i)];
    const next = argv[i + 1];
    if (!valueFlags.has(arg) || (next !== undefined && !next.startsWith('-'))) out.push(arg);
    else if (next === undefined || options.has(next.split('=')[0]!)) throw new UsageError(`${arg} needs a value`);
    else if (/^-\d/.test(next)) out.push(`${arg}=${argv[++i]}`);
    else throw new UsageError(`${arg} needs a value (if "${next}" is it, write ${arg}=${next})`);
  }
  return out;
}

/**
 * Defaults, overridden by environment variables, overridden by flags; throws UsageError on anything unknown or invalid.
 */
export function parseOptions(argv: string[], env: NodeJS.ProcessEnv = process.env): Options | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: joinDashValues(argv), // strict, no positionals: parseArgs' defaults
      options: {
        help: { type: 'boolean', short: 'h' },
        ...Object.fromEntries(
          flags.map((f) => [
            f.flag,
            f.kind === 'bool' ? { type: 'boolean' as const } : { type: 'string' as const, multiple: f.kind === 'list' },
          ]),
        ),
      },
    });
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError((err as Error).message.split('\n')[0] ?? 'bad arguments');
  }
  if (parsed.values.help) return 'help';
  const raw: Record<string, unknown> = {};
  for (const f of flags) {
    const fromFlag = parsed.values[f.flag as keyof typeof parsed.values];
    const fromEnv = env[f.env];
    const value =
      fromFlag ??
      (fromEnv !== undefined && fromEnv !== ''
        ? f.kind === 'list'
          ? f.envSeparator
            ? fromEnv
                .split(f.envSeparator)
                .map((v) => v.trim())
                .filter((v) => v !== '')
            : fromEnv.split(',')
          : fromEnv
        : undefined);
    if (value === undefined) continue;
    const source = fromFlag !== undefined ? `--${f.flag}` : f.env;
    if (f.kind === 'bool') {
      if (typeof value === 'boolean') raw[f.key] = value;
      else if (/^(1|true|yes|on)$/i.test(String(value))) raw[f.key] = true;
      else if (/^(0|false|no|off)$/i.test(String(value))) raw[f.key] = false;
      else throw new UsageError(`${source} expects true or false, got "${String(value)}"`);
      continue;
    }
    raw[f.key] = f.kind === 'int' && typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
    // checked here, where the source is known, so the message names the environment variable when it came from there
    const bad = Value.Errors(Options.properties[f.key], raw[f.key]).First();
    if (bad) throw new UsageError(`${source} expects ${expectation(f.key)}, got ${shown(bad.value)}`);
  }
  return resolveOptions(raw);
}

/**
 * --state FILE starts with the snapshot's seed and scenario unless given, so banner, health and data agree. The file
 * is read only while one is missing: options resolved once (the CLI's) have both, and a snapshot can be large.
 */
function snapshotStart(partial: Record<string, unknown>): Record<string, unknown> {
  let snap: { seed?: unknown; scenario?: unknown; data?: { meta?: { seed?: unknown } } } = {};
  try {
    if (typeof partial.state === 'string' && (partial.seed === undefined || partial.scenario === undefined)) {
      snap = JSON.parse(readFileSync(partial.state, 'utf8')) as typeof snap;
    }
  } catch {
    // an unreadable snapshot is reported by the snapshot loader, with the file's name
  }
  return {
    ...(partial.seed === undefined && { seed: snap.seed ?? snap.data?.meta?.seed }),
    ...(partial.scenario === undefined && { scenario: snap.scenario }),
  };
}

/** Fills defaults and checks a partial options object (used by the CLI and by tests through buildApp). */
export function resolveOptions(partial: Partial<Options> | Record<string, unknown> = {}): Options {
  const withDefaults = Value.Default(Options, { ...Value.Clone(partial), ...snapshotStart(partial) }) as Record<
    string,
    unknown
  >;
  const first = Value.Errors(Options, withDefaults).First();
  if (first) {
    const key = (first.path.split('/')[1] ?? '') as keyof Options;
    const flag = flags.find((f) => f.key === key);
    throw new UsageError(`${flag ? `--${flag.flag}` : key} expects ${expectation(key)}, got ${shown(first.value)}`);
  }
  if ((withDefaults.tlsCert === null) !== (withDefaults.tlsKey === null))
    throw new UsageError('--tls-cert and --tls-key go together');
  const now = withDefaults.now === null ? null : Date.parse(String(withDefaults.now));
  // the frozen start clock must be one the clock route could set (src/schemas/control.ts says why the range)
  if (now !== null && !(now >= clockRange.minMs && now <= clockRange.maxMs))
    throw new UsageError(`--now expects an instant within ${clockRangeText}, got ${shown(withDefaults.now)}`);
  return withDefaults as Options;
}

/** The options of `portal-mock mcp` (src/cli/mcp.ts): its own flags, and the instance's when it starts one. */
export type McpOptions = {
  /** a running instance to talk to; null: the command starts one */
  url: string | null;
  /** messages sent to the instance and not yet answered; one more is answered with a JSON-RPC error */
  maxInFlight: number;
  /** the instance's options: the admin token to send (both modes), everything else for the one it starts */
  instance: Options;
};

const mcpFlags = [
  {
    flag: 'url',
    env: 'PORTAL_MOCK_MCP_URL',
    help: 'talk to the running instance at this URL (http://host:port); without it the command starts one',
  },
  {
    flag: 'max-in-flight',
    env: 'PORTAL_MOCK_MCP_MAX_IN_FLIGHT',
    help: 'messages sent to the instance and not answered yet; one more gets a JSON-RPC error (default 32)',
  },
] as const;
const maxInFlightRange = { min: 1, max: 10_000, default: 32 };

/** Instance options the stdio command starts with unless given: loopback, a free port, warnings only (on stderr). */
const mcpInstanceDefaults = { PORTAL_MOCK_PORT: '0', PORTAL_MOCK_HOST: '127.0.0.1', PORTAL_MOCK_LOG_LEVEL: 'warn' };

export function mcpUsage(): string {
  const own = mcpFlags.map((f) => `  --${`${f.flag} VALUE`.padEnd(22)} ${f.help}\n  ${''.padEnd(24)} env ${f.env}`);
  return [
    'Usage: portal-mock mcp [--url URL] [options]',
    '',
    'The Model Context Protocol over stdio, for editors that start a local process (docs/mcp.md): stdin and stdout',
    "carry the protocol only, messages on stderr. With --url it forwards every message to that instance's",
    '/__admin/mcp; without it, it starts an instance on 127.0.0.1 (a free port unless --port; logs at "warn" on',
    'stderr unless --log-level) with the options below, prints its address on stderr and serves that one.',
    '',
    'Options:',
    ...own,
    `  --${'admin-token VALUE'.padEnd(22)} the admin token: sent to --url, or required by the instance started`,
    `  ${''.padEnd(24)} env PORTAL_MOCK_ADMIN_TOKEN`,
    `  --${'help'.padEnd(22)} show this help`,
    '',
    'Without --url, the options of `portal-mock --help` (except --https, --tls-cert, --tls-key) apply to the',
    'instance started. The command ends when stdin closes, with the instance it started.',
    '',
  ].join('\n');
}

/**
 * `portal-mock mcp ARGS`: --url and --max-in-flight are the command's own; the rest are the instance's options,
 * parsed as the main command parses them. Throws UsageError on anything unknown or invalid.
 */
export function parseMcpOptions(argv: string[], env: NodeJS.ProcessEnv = process.env): McpOptions | 'help' {
  const own: Record<string, string> = {};
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg : arg.slice(0, eq);
    const flag = mcpFlags.find((f) => `--${f.flag}` === name);
    if (!flag) {
      rest.push(arg);
      continue;
    }
    const value = eq === -1 ? argv[++i] : arg.slice(eq + 1);
    if (value === undefined || value === '' || (eq === -1 && value.startsWith('-')))
      throw new UsageError(`${name} needs a value`);
    own[flag.flag] = value;
  }
  if (rest.includes('--help') || rest.includes('-h')) return 'help';
  const fromEnv = (f: (typeof mcpFlags)[number]) => (env[f.env] === '' ? undefined : env[f.env]);
  const url = own.url ?? fromEnv(mcpFlags[0]) ?? null;
  const urlSource = own.url !== undefined ? '--url' : mcpFlags[0].env;
  if (url !== null && !/^https?:\/\/[^/\s]+/.test(url))
    throw new UsageError(`${urlSource} expects the http:// or https:// URL of a running instance, got ${shown(url)}`);
  const inFlightText = own['max-in-flight'] ?? fromEnv(mcpFlags[1]);
  const inFlightSource = own['max-in-flight'] !== undefined ? '--max-in-flight' : mcpFlags[1].env;
  const maxInFlight = inFlightText === undefined ? maxInFlightRange.default : Number(inFlightText);
  if (!Number.isInteger(maxInFlight) || maxInFlight < maxInFlightRange.min || maxInFlight > maxInFlightRange.max)
    throw new UsageError(
      `${inFlightSource} expects a whole number from ${maxInFlightRange.min} to ${maxInFlightRange.max}, ` +
        `got ${shown(inFlightText)}`,
    );
  if (url !== null) {
    // with --url the instance runs already: its options are its own, only the token to send goes with the command
    const instanceFlag = rest.find((a) => a.startsWith('--') && a.split('=')[0] !== '--admin-token');
    if (instanceFlag)
      throw new UsageError(
        `${instanceFlag.split('=')[0]} is an option of an instance the command starts; with --url only --admin-token applies`,
      );
  }
  const withDefaults = { ...env };
  for (const [name, value] of Object.entries(mcpInstanceDefaults)) if (!withDefaults[name]) withDefaults[name] = value;
  const instance = parseOptions(rest, withDefaults);
  if (instance === 'help') return 'help';
  if (url === null && (instance.https || instance.tlsCert))
    throw new UsageError(
      'the stdio command starts a plain HTTP instance on loopback: --https, --tls-cert and --tls-key do not apply',
    );
  return { url, maxInFlight, instance };
}
