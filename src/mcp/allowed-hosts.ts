// Which Host and Origin names the MCP endpoint accepts (DNS-rebinding protection): a page on another site that
// points its own name at this machine must not reach the control plane through a browser.

export type AllowedHostsInput = {
  /** --host: the address listened on */
  host: string;
  /** --peers: URLs or dns:NAME:PORT */
  peers: string[];
  /** --mcp-allowed-hosts */
  extra: string[];
  /** this machine's LAN addresses (the banner's, src/shared/lan.ts) */
  lan: string[];
  /** this machine's name (os.hostname()) */
  machine: string;
};

/**
 * The SDK's localhostAllowedHostnames(), written out: importing the SDK for three names cost every start its load
 * (test/control/mcp-endpoint.test.ts checks they stay the same).
 */
export const localhostNames = ['localhost', '127.0.0.1', '[::1]'];

const anyAddress = (host: string) => host === '0.0.0.0' || host === '::';
/** IPv6 literals are compared in brackets, as they appear in Host and Origin. */
const bracketed = (name: string) => (name.includes(':') && !name.startsWith('[') ? `[${name}]` : name);

function peerHostname(peer: string): string | undefined {
  const dns = /^dns:(.+):\d+$/.exec(peer);
  if (dns) return dns[1];
  try {
    return new URL(peer).hostname;
  } catch {
    return undefined;
  }
}

/**
 * localhost-class names; the --host listened on (with 0.0.0.0 or ::, the LAN addresses the banner prints and the
 * machine's name instead); the peers' names (a cluster is addressed by them); and --mcp-allowed-hosts. Lower case.
 */
export function mcpAllowedHostnames(input: AllowedHostsInput): string[] {
  const names = [
    ...localhostNames,
    ...(anyAddress(input.host) ? [...input.lan, input.machine] : [input.host]),
    ...input.peers.flatMap((p) => p.split(',')).map((p) => peerHostname(p.trim())),
    ...input.extra.flatMap((e) => e.split(',')).map((e) => e.trim()),
  ];
  return [...new Set(names.filter((n): n is string => !!n && n !== '').map((n) => bracketed(n.toLowerCase())))];
}
