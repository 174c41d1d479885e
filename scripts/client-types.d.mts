// Types of scripts/client-types.mjs, for the test that keeps src/client/types.gen.ts current.
export const generatedFile: string;
export function generateClientTypes(): string;
