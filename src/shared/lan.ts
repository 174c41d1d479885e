import { networkInterfaces } from 'node:os';

/** IPv4 addresses of this machine that other devices on the network can reach. */
export function lanAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .filter((i) => i.family === 'IPv4' && !i.internal)
    .map((i) => i.address);
}

export const isLoopbackHost = (hostname: string) => /^(localhost|127\.\d+\.\d+\.\d+|\[::1\]|::1)$/i.test(hostname);
