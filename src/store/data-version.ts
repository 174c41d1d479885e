import type { Data } from './data.js';

// A counter per store object (keyed by the object: nothing outlives a sandbox's data or leaks between apps).
const versions = new WeakMap<Data, number>();

/**
 * Marks a store as possibly changed: every request that is not a GET (before and after it runs), and work that
 * changes data outside a request (a finished background job). What is derived from the data and kept (people
 * indexes, kept answers) is checked against this version before use.
 */
export function dataChanged(data: Data): void {
  versions.set(data, (versions.get(data) ?? 0) + 1);
}

export const dataVersion = (data: Data): number => versions.get(data) ?? 0;
