// The only place that reads CLI flags and environment variables.
//
// Each option is described once, by its property in `Options` below: the TypeBox schema holds the type, the bounds,
// the default and, as `description`, the --help text (--help appends the default from `default`: never write it in
// the text). The rest follows from the key and the schema:
//   flag         --kebab-case of the key:          maxHeapPercent -> --max-heap-percent
//   environment  PORTAL_MOCK_ and its SNAKE_CASE:  maxHeapPercent -> PORTAL_MOCK_MAX_HEAP_PERCENT
//   kind         integer: a number; boolean: a switch (true/false, 1/0, yes/no, on/off in the environment); array:
//                repeatable, comma-separated in the environment; anything else: one string
//   "expects …"  of an error: from the bounds of an integer, the literals of a union, else the `expected` note
// Notes a schema may carry beside TypeBox's keywords (OptionNotes), each only where the above is not enough:
//   expected     the error's words for a string option ('a directory')
//   defaultText  what a null default means, for --help ('hostname:port')
//   flag, env    a name off the rule; today two: --proxy-header (one per flag), PORTAL_MOCK_INSTANCE
//   envSeparator how the environment variable separates a list, when not by commas
// Adding an option is one property here, plus its row in docs/cli.md (test/docs/cli-docs.test.ts holds the two
// together).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Type, type Static, type TObject, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import './schemas/check.js'; // registers the string formats TypeBox checks
import { clockRange, clockRangeText } from './schemas/control.js';

type OptionNotes = {
  description?: string;
  expected?: string;
  defaultText?: string;
  flag?: string;
  env?: string;
  envSeparator?: RegExp;
};

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const durationPattern = '^\\d+(ms|s|m|h|d)$';
const durationExpected = 'a duration: a whole number and a unit, ms, s, m, h or d (e.g. 500ms, 90s, 30m, 2h, 1d)';
const nonEmpty = { minLength: 1 };
/** An option without a default value: null unless given. */
const optional = <T extends TSchema>(schema: T, notes: OptionNotes) =>
  Type.Union([schema, Type.Null()], { default: null, ...notes });

// In the order --help lists them.
export const Options = Type.Object({
  port: Type.Integer({
    minimum: 0,
    maximum: 65535,
    default: 3000,
    description: 'port to listen on; 0 picks a free one',
  }),
  host: Type.String({
    ...nonEmpty,
    default: '0.0.0.0',
    description: 'address to bind; the default lets phones on the LAN reach it',
    expected: 'a host name or IP address',
  }),
  seed: Type.Integer({ minimum: 0, maximum: 2 ** 31 - 1, default: 42, description: 'seed of the generated data' }),
  scenario: Type.String({
    ...nonEmpty,
    default: 'default',
    description: 'scenario active at start in the default sandbox',
    expected: 'a scenario name',
  }),
  scenarios: Type.Array(Type.String(), {
    default: [],
    description: 'another directory of scenario files; repeatable (env: comma-separated)',
    expected: 'a directory',
  }),
  data: optional(Type.String(nonEmpty), {
    description: 'keep the data in JSON files in DIR, so it survives restarts',
    defaultText: 'in memory',
    expected: 'a directory',
  }),
  wiremock: optional(Type.String(nonEmpty), {
    description:
      'a WireMock root directory (mappings/*.json, __files/): every new sandbox starts with its stub mappings',
    expected: 'a directory',
  }),
  wiremockMaxMappings: Type.Integer({
    minimum: 1,
    maximum: 100_000,
    default: 500,
    description: 'most WireMock stub mappings one sandbox holds; a change past it is a 422 and changes nothing',
  }),
  wiremockSandboxKb: Type.Integer({
    minimum: 1,
    maximum: 1_048_576,
    default: 1024,
    description: "most KiB of JSON one sandbox's WireMock stub mappings take; a change past it is a 422",
  }),
  state: optional(Type.String(nonEmpty), {
    description: 'start the default sandbox from a snapshot exported by GET /__admin/state',
    expected: 'a file',
  }),
  now: optional(Type.String({ format: 'date-time' }), {
    description: 'freeze the clock at this ISO date-time, e.g. 2026-03-02T09:00:00Z',
    defaultText: 'real time',
    expected: 'an ISO 8601 date-time such as 2026-03-02T09:00:00Z',
  }),
  logLevel: Type.Union(
    logLevels.map((l) => Type.Literal(l)),
    { default: 'info', description: logLevels.join('|') },
  ),
  logFormat: Type.Union([Type.Literal('text'), Type.Literal('json')], {
    default: 'text',
    description:
      'text: readable lines, none per request (the console shows the journal); json: JSON lines with two per ' +
      'request, for pipelines',
  }),
  users: Type.Integer({ minimum: 10, maximum: 1_000_000, default: 200, description: 'generated users per tenant' }),
  adminToken: optional(Type.String(nonEmpty), {
    description: 'require "Authorization: Bearer TOKEN" on /__admin routes',
    expected: 'a token',
  }),
  journalLimit: Type.Integer({
    minimum: 0,
    maximum: 1_000_000,
    default: 1000,
    description: 'request journal entries kept per sandbox, oldest dropped first; 0 turns the journal off',
  }),
  journalSandboxMb: Type.Integer({
    minimum: 1,
    maximum: 1_000_000,
    default: 8,
    description: "MB one sandbox's journal entries may take, oldest dropped first",
  }),
  outboxSandboxKb: Type.Integer({
    minimum: 1,
    maximum: 1_000_000,
    default: 4096,
    description:
      "KB one sandbox's outbox (e-mails with codes, pushes) may take as JSON, oldest messages dropped first; the " +
      'newest is always kept',
  }),
  outboxMb: Type.Integer({
    minimum: 1,
    maximum: 1_000_000,
    default: 64,
    description:
      'MB the outboxes of every sandbox together may take; past it the outbox written to longest ago drops its ' +
      'oldest messages first',
  }),
  journalMb: Type.Integer({
    minimum: 1,
    maximum: 1_000_000,
    default: 256,
    description:
      'MB the journals of every sandbox together may take; past it the journal written to longest ago drops its ' +
      'oldest entries first',
  }),
  answerCacheMb: Type.Integer({
    minimum: 0,
    maximum: 1_000_000,
    default: 32,
    description:
      'MB of kept answers (calendar, dashboard, tickets, tenant info) for the whole server, least recently used ' +
      'dropped first; 0 keeps none',
  }),
  bodyLimit: Type.Integer({ minimum: 1024, default: 1_048_576, description: 'largest accepted JSON body in bytes' }),
  exportStallTimeout: Type.Integer({
    minimum: 100,
    maximum: 3_600_000,
    default: 60_000,
    description:
      'ms a streamed export (GET /__admin/state, a capture, the journal as HAR) waits for a client that reads ' +
      'nothing before it cuts the connection',
  }),
  proxy: optional(Type.String({ pattern: '^https?://' }), {
    description: 'forward operations the mock does not implement to this upstream URL (see docs/proxy.md)',
    expected: 'an http:// or https:// URL',
  }),
  proxyHeaders: Type.Array(Type.String({ pattern: "^[A-Za-z0-9!#$%&'*+.^_`|~-]+:" }), {
    default: [],
    description:
      '"Name: value" added to every forwarded request (the upstream\'s ' +
      'own credentials); repeatable (env: newline- or ;-separated)',
    expected: '"Name: value"',
    flag: 'proxy-header',
    envSeparator: /[\n;]/,
  }),
  proxyTimeout: Type.Integer({
    minimum: 1,
    maximum: 600_000,
    default: 10_000,
    description: 'ms to wait for the upstream before answering 504',
  }),
  record: optional(Type.String(nonEmpty), {
    description: 'write every forwarded exchange as a stub of a scenario file recorded-<time>.json in DIR',
    expected: 'a directory',
  }),
  recordLimit: Type.Integer({
    minimum: 1,
    maximum: 1_000_000,
    default: 1000,
    description: 'stubs a recording keeps; past it the stub answered longest ago is dropped',
  }),
  fixtures: optional(Type.String(nonEmpty), {
    description: 'fixtures file with tenants and demo accounts',
    defaultText: 'fixtures/tenants.json',
    expected: 'a file',
  }),
  https: Type.Boolean({
    default: false,
    description: 'serve HTTPS with a certificate signed by the local CA (created once in --ca-dir)',
  }),
  caDir: optional(Type.String(nonEmpty), {
    description: 'directory of the local certificate authority',
    defaultText: '~/.portal-mock/ca',
    expected: 'a directory',
  }),
  tlsCert: optional(Type.String(nonEmpty), {
    description: 'your own certificate (PEM) instead of the local CA; needs --tls-key; implies HTTPS',
    expected: 'a file',
  }),
  tlsKey: optional(Type.String(nonEmpty), { description: 'the private key (PEM) of --tls-cert', expected: 'a file' }),
  portFile: optional(Type.String(nonEmpty), {
    description: 'write the port to FILE (atomically) once listening; for --port 0 in pipelines',
    expected: 'a file',
  }),
  maxSandboxes: Type.Integer({
    minimum: 1,
    maximum: 10_000_000,
    default: 10_000,
    description: 'most sandboxes at once; a request that would create one more gets 429',
  }),
  maxHeapPercent: Type.Integer({
    minimum: 1,
    maximum: 100,
    default: 85,
    description:
      "share of the JavaScript heap's limit past which a new sandbox (429), records made through the records API " +
      '(422) and uploads (413) are refused; 100: never',
  }),
  maxMemoryMb: Type.Integer({
    minimum: 0,
    maximum: 10_000_000,
    default: 1536,
    description:
      'megabytes the whole process may hold (its resident memory, and what it has allocated outside the heap) past ' +
      'which a new sandbox (429), records made through the records API (422) and uploads (413) are refused; 0: never',
  }),
  sandboxUploadMb: Type.Integer({
    minimum: 1,
    maximum: 1_000_000,
    default: 64,
    description:
      "megabytes of uploaded files' bytes a sandbox keeps; an upload past it gets 413, and an .xlsx that inflates " +
      'past it fails its file processing',
  }),
  regexMaxProgram: Type.Integer({
    minimum: 10,
    maximum: 100_000,
    default: 300,
    description: 'most instructions a stub or journal-filter regex compiles to; a larger one is a 400',
  }),
  regexMaxText: Type.Integer({
    minimum: 1024,
    maximum: 16_777_216,
    default: 65_536,
    description: 'most characters a regex matcher reads; a longer value does not match',
  }),
  regexBudget: Type.Integer({
    minimum: 10_000,
    maximum: 10_000_000_000,
    default: 500_000,
    description:
      'regex work of one request, in characters x program instructions: past it a stub regex does not match ' +
      'and a journal read is a 422; the default is about 50 ms at worst',
  }),
  maxScenarios: Type.Integer({
    minimum: 1,
    maximum: 100_000,
    default: 200,
    description: 'most scenarios defined through PUT /__admin/scenarios/NAME; one more is a 409',
  }),
  maxScenarioBytes: Type.Integer({
    minimum: 1024,
    maximum: 67_108_864,
    default: 262_144,
    description: 'most bytes of one scenario defined through the admin API, as JSON; a larger one is a 413',
  }),
  maxRecords: Type.Integer({
    minimum: 1,
    maximum: 10_000_000,
    default: 10_000,
    description:
      'records the records API may add to a collection of a sandbox beyond its seeded ones; a create past it gets ' +
      '422',
  }),
  calendarMaxOccurrences: Type.Integer({
    minimum: 1,
    maximum: 1_000_000,
    default: 2000,
    description:
      'occurrences one calendar list answer may expand (recurring events times the days of the window); a window ' +
      'holding more gets 400 saying so',
  }),
  maxWorlds: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 4,
    description:
      'most base worlds kept at once (one per seed and reference date sandboxes use: a reset with another seed, ' +
      'a bug capture from another day); one more gets 429 while every kept one is in use',
  }),
  sandboxIdleTtl: Type.Union([Type.String({ pattern: durationPattern }), Type.Literal('off')], {
    default: '24h',
    description:
      'a sandbox (not default, not kept) no request has named for this long leaves memory: deleted, or under ' +
      '--data written out and read back on its next use; e.g. 30m, 2h, off',
    expected: `${durationExpected}, or off`,
  }),
  instanceName: optional(Type.String({ ...nonEmpty, maxLength: 200 }), {
    description: "this instance's name in x-mock-instance, health and listings",
    defaultText: 'hostname:port',
    expected: 'a name of 1 to 200 characters',
    env: 'PORTAL_MOCK_INSTANCE',
  }),
  peers: Type.Array(Type.String({ pattern: '^(https?://|dns:)' }), {
    default: [],
    description:
      'the other instances (URL, or dns:NAME:PORT for every address of NAME): ' +
      '/__admin/sandboxes lists theirs too; repeatable or comma-separated',
    expected: 'a URL (http:// or https://) or dns:NAME:PORT',
  }),
  mcpAllowedHosts: Type.Array(Type.String({ pattern: '^[^\\s/]+$', maxLength: 2000 }), {
    default: [],
    description:
      'more Host and Origin names /__admin/mcp accepts, beside localhost, --host, the LAN addresses and the ' +
      "peers' names (e.g. the balancer's name); repeatable or comma-separated",
    expected: 'host names, comma-separated, without scheme or port (an IPv6 address in brackets)',
  }),
  noBanner: Type.Boolean({
    default: false,
    description:
      'no address banner at start (printed to stdout, a redirected log too; its QR codes only on a terminal)',
  }),
});
export type Options = Static<typeof Options>;

/** One option as the command line and the environment name it: everything here is derived from its schema. */
export type CliOption = {
  key: string;
  flag: string;
  env: string;
  kind: 'int' | 'string' | 'list' | 'bool';
  schema: TSchema & OptionNotes;
};

/** The kind of an option by its schema's type; any other type is one string. */
const kinds = { integer: 'int', boolean: 'bool', array: 'list' } as const;
const kebab = (key: string) => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

function cliOptionsOf(options: TObject, envPrefix: string): CliOption[] {
  return Object.entries(options.properties).map(([key, schema]: [string, TSchema & OptionNotes]) => ({
    key,
    flag: schema.flag ?? kebab(key),
    env: schema.env ?? `${envPrefix}${kebab(key).replaceAll('-', '_').toUpperCase()}`,
    kind: kinds[schema.type as keyof typeof kinds] ?? 'string',
    schema,
  }));
}

/** The server's options with their flag, environment variable and kind (docs/cli.md's table is checked against it). */
export const cliOptions: readonly CliOption[] = cliOptionsOf(Options, 'PORTAL_MOCK_');
const cliOption = (key: string) => cliOptions.find((o) => o.key === key);

/** A value as an error message quotes it: JSON, cut to a readable length. */
const shown = (value: unknown) => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
};

/** What a valid value looks like, for error messages: "a whole number from 0 to 65535", "one of …", or the note. */
function expectation(schema: TSchema & OptionNotes): string {
  if (schema.type === 'integer') {
    const { minimum: min, maximum: max } = schema as { minimum?: number; maximum?: number };
    return `a whole number ${max === undefined ? `of at least ${min}` : `from ${min} to ${max}`}`;
  }
  const literals = (schema.anyOf as TSchema[] | undefined)?.map((s) => s.const);
  if (literals?.every((l) => typeof l === 'string')) return `one of ${literals.join(', ')}`;
  return schema.expected ?? 'a valid value';
}

/** The default as --help prints it; nothing for an unset switch or an empty list. */
function defaultShown(schema: TSchema & OptionNotes): string | undefined {
  const value: unknown = schema.default;
  if (value === null) return schema.defaultText;
  if (value === false || (Array.isArray(value) && value.length === 0)) return undefined;
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

function helpLines(o: CliOption): string {
  const name = `${o.flag}${o.kind === 'bool' ? '' : o.kind === 'int' ? ' N' : ' VALUE'}`;
  const fallback = defaultShown(o.schema);
  const help = `${o.schema.description}${fallback === undefined ? '' : ` (default ${fallback})`}`;
  return `  --${name.padEnd(22)} ${help}\n  ${''.padEnd(24)} env ${o.env}`;
}

/** Milliseconds of a duration such as 500ms, 90s, 30m, 2h or 1d. */
export function durationMs(text: string): number {
  const m = /^(\d+)(ms|s|m|h|d)$/.exec(text);
  if (!m) throw new UsageError(`not a duration: "${text}"; expected ${durationExpected}`);
  return (
    Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 'ms' | 's' | 'm' | 'h' | 'd']
  );
}

export function usage(): string {
  return [
    'Usage: portal-mock [options]',
    '       portal-mock mcp [--url URL] [options]   MCP over stdio for editors (portal-mock mcp --help)',
    '',
    'Options:',
    ...cliOptions.map(helpLines),
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
  const valueFlags = new Set(cliOptions.filter((o) => o.kind !== 'bool').map((o) => `--${o.flag}`));
  const options = new Set([...cliOptions.map((o) => `--${o.flag}`), '--help', '-h']);
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

/** A non-empty environment value as the option takes it: a list split at its separator, else the text. */
function fromEnvironment(o: CliOption, value: string): string | string[] {
  if (o.kind !== 'list') return value;
  if (!o.schema.envSeparator) return value.split(',');
  return value
    .split(o.schema.envSeparator)
    .map((v) => v.trim())
    .filter((v) => v !== '');
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
          cliOptions.map((o) => [
            o.flag,
            o.kind === 'bool' ? { type: 'boolean' as const } : { type: 'string' as const, multiple: o.kind === 'list' },
          ]),
        ),
      },
    });
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError((err as Error).message.split('\n')[0] ?? 'bad arguments');
  }
  if (parsed.values.help) return 'help';
  const values: Record<string, string | boolean | string[] | undefined> = parsed.values;
  const raw: Record<string, unknown> = {};
  for (const o of cliOptions) {
    const fromFlag = values[o.flag];
    const fromEnv = env[o.env];
    const value = fromFlag ?? (fromEnv !== undefined && fromEnv !== '' ? fromEnvironment(o, fromEnv) : undefined);
    if (value === undefined) continue;
    const source = fromFlag !== undefined ? `--${o.flag}` : o.env;
    if (o.kind === 'bool') {
      if (typeof value === 'boolean') raw[o.key] = value;
      else if (/^(1|true|yes|on)$/i.test(String(value))) raw[o.key] = true;
      else if (/^(0|false|no|off)$/i.test(String(value))) raw[o.key] = false;
      else throw new UsageError(`${source} expects true or false, got "${String(value)}"`);
      continue;
    }
    raw[o.key] = o.kind === 'int' && typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
    // checked here, where the source is known, so the message names the environment variable when it came from there
    const bad = Value.Errors(o.schema, raw[o.key]).First();
    if (bad) throw new UsageError(`${source} expects ${expectation(o.schema)}, got ${shown(bad.value)}`);
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
    const key = first.path.split('/')[1] ?? '';
    const o = cliOption(key);
    throw new UsageError(
      `${o ? `--${o.flag}` : key} expects ${o ? expectation(o.schema) : 'a valid value'}, got ${shown(first.value)}`,
    );
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

/** The command's own options, described as the server's are (environment prefix PORTAL_MOCK_MCP_). */
const McpCommandOptions = Type.Object({
  url: optional(Type.String({ pattern: '^https?://[^/\\s]+' }), {
    description: 'talk to the running instance at this URL (http://host:port); without it the command starts one',
    expected: 'the http:// or https:// URL of a running instance',
  }),
  maxInFlight: Type.Integer({
    minimum: 1,
    maximum: 10_000,
    default: 32,
    description: 'messages sent to the instance and not answered yet; one more gets a JSON-RPC error',
  }),
});
export const mcpCliOptions: readonly CliOption[] = cliOptionsOf(McpCommandOptions, 'PORTAL_MOCK_MCP_');

/** Instance options the stdio command starts with unless given: loopback, a free port, warnings only (on stderr). */
const mcpInstanceDefaults: Partial<Options> = { port: 0, host: '127.0.0.1', logLevel: 'warn' };

export function mcpUsage(): string {
  const token = cliOption('adminToken')!;
  return [
    'Usage: portal-mock mcp [--url URL] [options]',
    '',
    'The Model Context Protocol over stdio, for editors that start a local process (docs/mcp.md): stdin and stdout',
    "carry the protocol only, messages on stderr. With --url it forwards every message to that instance's",
    '/__admin/mcp; without it, it starts an instance on 127.0.0.1 (a free port unless --port; logs at "warn" on',
    'stderr unless --log-level) with the options below, prints its address on stderr and serves that one.',
    '',
    'Options:',
    ...mcpCliOptions.map(helpLines),
    `  --${`${token.flag} VALUE`.padEnd(22)} the admin token: sent to --url, or required by the instance started`,
    `  ${''.padEnd(24)} env ${token.env}`,
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
  const given = new Map<CliOption, string>();
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg : arg.slice(0, eq);
    const own = mcpCliOptions.find((o) => `--${o.flag}` === name);
    if (!own) {
      rest.push(arg);
      continue;
    }
    const value = eq === -1 ? argv[++i] : arg.slice(eq + 1);
    if (value === undefined || value === '' || (eq === -1 && value.startsWith('-')))
      throw new UsageError(`${name} needs a value`);
    given.set(own, value);
  }
  if (rest.includes('--help') || rest.includes('-h')) return 'help';
  const values: Record<string, unknown> = {};
  for (const o of mcpCliOptions) {
    const text = given.get(o) ?? (env[o.env] === '' ? undefined : env[o.env]);
    // Number(), not the server's digits-only rule, and the error quotes the text as typed: as this command always did
    const value = text === undefined ? o.schema.default : o.kind === 'int' ? Number(text) : text;
    if (Value.Check(o.schema, value)) values[o.key] = value;
    else
      throw new UsageError(
        `${given.has(o) ? `--${o.flag}` : o.env} expects ${expectation(o.schema)}, got ${shown(text)}`,
      );
  }
  const { url, maxInFlight } = values as Static<typeof McpCommandOptions>;
  if (url !== null) {
    // with --url the instance runs already: its options are its own, only the token to send goes with the command
    const token = `--${cliOption('adminToken')!.flag}`;
    const instanceFlag = rest.find((a) => a.startsWith('--') && a.split('=')[0] !== token);
    if (instanceFlag)
      throw new UsageError(
        `${instanceFlag.split('=')[0]} is an option of an instance the command starts; with --url only ${token} applies`,
      );
  }
  const withDefaults = { ...env };
  for (const [key, value] of Object.entries(mcpInstanceDefaults)) {
    const name = cliOption(key)!.env;
    if (!withDefaults[name]) withDefaults[name] = String(value);
  }
  const instance = parseOptions(rest, withDefaults);
  if (instance === 'help') return 'help';
  if (url === null && (instance.https || instance.tlsCert))
    throw new UsageError(
      'the stdio command starts a plain HTTP instance on loopback: --https, --tls-cert and --tls-key do not apply',
    );
  return { url, maxInFlight, instance };
}
