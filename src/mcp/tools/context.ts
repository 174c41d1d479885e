// What every tool takes: the one way to the control plane, the portal's operations by id, and the input pieces
// several tools share.
import { Type } from '@sinclair/typebox';
import { sandboxNamePattern } from '../../store/sandbox.js';
import type { AdminCall } from '../admin-call.js';

/** An operation of the portal's API, as its document names it. */
export type Operation = { method: string; path: string };
/** The portal's operations by operationId (from its API document, /docs/json). */
export type OperationIndex = ReadonlyMap<string, Operation>;

export type ToolContext = {
  call: AdminCall;
  operations: () => Promise<OperationIndex>;
};

export const SandboxName = Type.String({
  pattern: sandboxNamePattern,
  description: 'sandbox name: 1-64 letters, digits, - or _',
});

/** An admin path with a query of the given values (undefined ones left out). */
export function adminUrl(path: string, query: Record<string, string | number | boolean | undefined> = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.append(key, String(value));
  const text = params.toString();
  return text === '' ? path : `${path}?${text}`;
}

/** The operations of the portal's document, read once through `call` and kept for the server's life. */
export function operationsFromDocument(call: AdminCall): () => Promise<OperationIndex> {
  let index: Promise<OperationIndex> | undefined;
  return () => {
    index ??= call({ method: 'GET', url: '/docs/json' }).then((answer) => {
      const paths = ((answer.body as { paths?: unknown } | null)?.paths ?? {}) as Record<
        string,
        Record<string, { operationId?: string }>
      >;
      const found = new Map<string, Operation>();
      for (const [path, methods] of Object.entries(paths))
        for (const [method, op] of Object.entries(methods))
          if (op?.operationId) found.set(op.operationId, { method: method.toUpperCase(), path });
      if (found.size === 0) index = undefined; // not kept: the next call asks again
      return found;
    });
    return index;
  };
}
