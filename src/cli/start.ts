// What the CLI adds around buildApp: TLS material, a readable logger on a terminal, the start banner with a bind QR
// code, and the port file for pipelines. Kept apart from server.ts so each piece is tested directly.
import { readFileSync } from 'node:fs';
import { UsageError, type Options } from '../config.js';
import type { Fixtures } from '../store/fixtures.js';
import { bindLinkContent, bindUrl } from '../admin/fixtures.js';
import { lanAddresses } from '../shared/lan.js';
import { writeAtomic } from '../shared/write-atomic.js';
import { defaultCaDir, ensureCa, issueServerCert, type TlsMaterial } from '../tls/ca.js';

export type TlsSetup = { tls: TlsMaterial; caCertificate: string | null; caDir: string | null };

/** --tls-cert/--tls-key (your own), or --https (the local CA, created once), or nothing (plain HTTP). */
export function resolveTls(options: Pick<Options, 'https' | 'caDir' | 'tlsCert' | 'tlsKey'>): TlsSetup | null {
  if (options.tlsCert && options.tlsKey) {
    const read = (file: string, flag: string) => {
      try {
        return readFileSync(file, 'utf8');
      } catch (err) {
        throw new UsageError(`${flag}: cannot read ${file}: ${(err as Error).message}`);
      }
    };
    return { tls: { cert: read(options.tlsCert, '--tls-cert'), key: read(options.tlsKey, '--tls-key') }, caCertificate: null, caDir: null };
  }
  if (!options.https) return null;
  const dir = options.caDir ?? defaultCaDir(); // PORTAL_MOCK_CA_DIR is read by config.ts, into caDir
  let ca;
  try {
    ca = ensureCa(dir);
  } catch (err) {
    throw new UsageError(`--ca-dir: cannot use ${dir}: ${(err as Error).message}`);
  }
  return { tls: issueServerCert(ca), caCertificate: ca.cert, caDir: dir };
}

/** JSON lines when stdout is not a terminal (pipelines parse them); pino-pretty on a terminal. */
export function cliLogger(level: string, isTty: boolean) {
  if (level === 'silent') return false;
  if (!isTty) return { level };
  return { level, transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname', singleLine: true } } };
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
    `  scenario: ${options.scenario}   seed: ${options.seed}   data: ${options.data ?? 'in memory'}${options.now ? `   clock frozen at ${options.now}` : ''}`,
    `  demo accounts:  ${protocol}://localhost:${port}/__admin/fixtures`,
    `  API document:   ${protocol}://localhost:${port}/docs`,
  ];
  if (input.caDir) lines.push(`  local CA:       ${input.caDir} (phones: ${protocol}://${phoneHost}:${port}/__admin/ca.pem, see the console)`);
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
