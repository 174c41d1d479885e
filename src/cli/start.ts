// What the CLI adds around buildApp: TLS material, a readable logger on a terminal, the start banner with a bind QR
// code, and the port file for pipelines. Kept apart from server.ts so each piece is tested directly.
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import { UsageError, type Options } from '../config.js';
import type { Fixtures } from '../store/fixtures.js';
import { bindLinkContent, bindUrl } from '../control/fixtures.js';
import { fsReason } from './inputs.js';
import { lanAddresses } from '../shared/lan.js';
import { writeAtomic } from '../shared/write-atomic.js';
import { defaultCaDir, ensureCa, issueServerCert, type TlsMaterial } from '../tls/ca.js';

export type TlsSetup = { tls: TlsMaterial; caCertificate: string | null; caDir: string | null };

/** One line of an error's message (OpenSSL's may span several). */
const firstLine = (err: unknown) => String((err as Error).message).split('\n')[0]!;

/** Reads a file a TLS flag names; a UsageError naming the flag when it cannot be read. */
function readTlsFile(flag: string, file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`${flag} ${file}: ${fsReason(err)}`);
  }
}

/**
 * Your own certificate and key, checked here so a wrong file is named (the HTTPS server would only say "no start
 * line" or "key values mismatch", from nine frames down): each is PEM, and the key is the certificate's.
 */
function ownTls(certFile: string, keyFile: string): TlsMaterial {
  const cert = readTlsFile('--tls-cert', certFile);
  const key = readTlsFile('--tls-key', keyFile);
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert);
  } catch (err) {
    throw new UsageError(`--tls-cert ${certFile}: not a PEM certificate (${firstLine(err)})`);
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(key);
  } catch (err) {
    throw new UsageError(`--tls-key ${keyFile}: not a PEM private key (${firstLine(err)})`);
  }
  if (privateKey.type !== 'private' || !x509.checkPrivateKey(privateKey)) {
    throw new UsageError(`--tls-key ${keyFile}: not the private key of the certificate in --tls-cert ${certFile}`);
  }
  try {
    createSecureContext({ cert, key }); // what the server does with them: anything else TLS refuses, named here
  } catch (err) {
    throw new UsageError(`--tls-cert ${certFile}: refused with --tls-key ${keyFile}: ${firstLine(err)}`);
  }
  return { cert, key };
}

/** --tls-cert/--tls-key (your own), or --https (the local CA, created once), or nothing (plain HTTP). */
export function resolveTls(options: Pick<Options, 'https' | 'caDir' | 'tlsCert' | 'tlsKey'>): TlsSetup | null {
  if (options.tlsCert && options.tlsKey) {
    return { tls: ownTls(options.tlsCert, options.tlsKey), caCertificate: null, caDir: null };
  }
  if (!options.https) return null;
  const dir = options.caDir ?? defaultCaDir(); // PORTAL_MOCK_CA_DIR is read by config.ts, into caDir
  try {
    const ca = ensureCa(dir);
    return { tls: issueServerCert(ca), caCertificate: ca.cert, caDir: dir };
  } catch (err) {
    // a CA file there that is not PEM fails only when the server certificate is signed with it
    throw new UsageError(`--ca-dir ${dir}: cannot use it: ${firstLine(err)}`);
  }
}

/** Log lines the journal already says: each request's two. */
const requestLines = /^(incoming request|request completed)$/;
/** Fastify's line per address: the banner says each, so it goes when the banner is printed. */
const listenLine = /^Server listening at /;

/**
 * --log-format json: pino's JSON lines on stdout, every request's two among them (pipelines parse them).
 * --log-format text (the default): what is worth a person's attention only, as readable lines, written in order with
 * the banner (a synchronous stream, not pino-pretty's worker); requests are seen in the journal (/__admin), not here,
 * and the address in the banner (with --no-banner, Fastify's "Server listening at" line says it).
 */
export async function cliLogger(level: string, format: 'text' | 'json', isTty: boolean, banner = true) {
  if (level === 'silent') return false;
  if (format === 'json') return { level };
  const { default: pretty } = await import('pino-pretty');
  return {
    level,
    stream: pretty({
      sync: true,
      colorize: isTty,
      translateTime: 'SYS:HH:MM:ss',
      ignore: 'pid,hostname',
      singleLine: true,
    }),
    hooks: {
      logMethod(this: unknown, args: unknown[], method: (...a: unknown[]) => void) {
        const message = typeof args[0] === 'string' ? args[0] : args[1];
        if (typeof message === 'string' && (requestLines.test(message) || (banner && listenLine.test(message)))) return;
        method.apply(this, args);
      },
    },
  };
}

export type BannerInput = {
  protocol: 'http' | 'https';
  port: number;
  host: string;
  options: Pick<Options, 'scenario' | 'seed' | 'data' | 'now'>;
  fixtures: Fixtures;
  /** print the bind QR code (only on a terminal) */
  qr: boolean;
  caDir?: string | null;
  lan?: string[];
};

/** The bind link (service://bind/?url=…) of the first demo account at this address, and the account's e-mail. */
export function firstBindLink(fixtures: Fixtures, base: string): { email: string; link: string } | null {
  for (const tenant of fixtures.tenants) {
    for (const account of tenant.accounts) {
      const bind = tenant.bindLinks.find((b) => b.userId === account.userId);
      if (bind) return { email: account.email, link: bindLinkContent(bindUrl(base, bind.id, bind.token)) };
    }
  }
  return null;
}

/** Demo accounts shown in the banner; the rest are in /__admin/fixtures. */
const accountsShown = 6;

/** "    email / password  (note)" per demo account, the first few: who to sign in as, without opening anything. */
function demoAccounts(fixtures: Fixtures): string[] {
  const all = fixtures.tenants.flatMap((tenant) => tenant.accounts);
  const width = Math.max(...all.slice(0, accountsShown).map((a) => `${a.email} / ${a.password}`.length));
  const lines = all.slice(0, accountsShown).map((a) => `    ${`${a.email} / ${a.password}`.padEnd(width)}  ${a.note}`);
  if (all.length > accountsShown) lines.push(`    and ${all.length - accountsShown} more`);
  return lines;
}

/** What the CLI prints at start: every address, the scenario and, on a terminal, a QR code a phone scans to bind. */
export async function bannerText(input: BannerInput): Promise<string> {
  const { protocol, port, host, options } = input;
  const lan = input.lan ?? lanAddresses();
  const anyAddress = host === '0.0.0.0' || host === '::';
  const hosts = anyAddress ? ['localhost', ...lan] : [host];
  const phoneHost = (anyAddress ? lan[0] : host) ?? 'localhost';
  const lines = [
    '',
    'portal-mock is running',
    ...hosts.map((h) => `  ${protocol}://${h}:${port}`),
    `  scenario: ${options.scenario}   seed: ${options.seed}   data: ${options.data ?? 'in memory'}` +
      (options.now ? `   clock frozen at ${options.now}` : ''),
    `  console:        ${protocol}://localhost:${port}/__admin   (sandboxes, journal of requests, findings)`,
    `  demo accounts:  ${protocol}://localhost:${port}/__admin/fixtures (devices, API keys, bind links)`,
    ...demoAccounts(input.fixtures),
    `  API documents:  ${protocol}://localhost:${port}/docs (portal)   ${protocol}://localhost:${port}/__admin/docs ` +
      '(control plane)',
    `  MCP endpoint:   ${protocol}://localhost:${port}/__admin/mcp (agents; or: portal-mock mcp)`,
  ];
  if (input.caDir)
    lines.push(
      `  local CA:       ${input.caDir} (phones: ${protocol}://${phoneHost}:${port}/__admin/ca.pem, see the console)`,
    );
  const bind = input.qr ? firstBindLink(input.fixtures, `${protocol}://${phoneHost}:${port}`) : null;
  if (bind) {
    const qr = await (await import('qrcode')).default.toString(bind.link, { type: 'terminal', small: true });
    lines.push('', `  Scan with the app to bind as ${bind.email}:`, qr.replace(/\n$/, ''), `  ${bind.link}`);
  }
  lines.push('');
  return `${lines.join('\n')}\n`;
}

/** Writes the port so a pipeline reads it once the server listens: a temporary file renamed into place. */
export function writePortFile(file: string, port: number): void {
  writeAtomic(file, `${port}\n`);
}
