// fs, with the globSync of Node 22 that only the conformance suite's tier-check command calls (see register.mjs).
import fs from 'node:fs';

export * from 'node:fs';
export default fs;
export function globSync() {
  throw new Error('fs.globSync needs Node 22 or later (the conformance tier-check command uses it)');
}
