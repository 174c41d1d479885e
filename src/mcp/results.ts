// What a tool answers: the admin API's answer as structured content and as text, or, when the admin API refused,
// a tool error carrying its status, code and message (never a JSON-RPC error: the agent reads and acts on it).
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { AdminAnswer } from './admin-call.js';

/** The admin API's error body, as far as it is one. */
type ErrorLike = { code?: unknown; message?: unknown; details?: unknown };

/** "404 SANDBOX_NOT_FOUND: sandbox "x" does not exist (...)": what the admin API said, on one line. */
export function refusal(answer: AdminAnswer): string {
  const body = (typeof answer.body === 'object' && answer.body !== null ? answer.body : {}) as ErrorLike;
  const code = typeof body.code === 'string' ? ` ${body.code}` : '';
  const message =
    typeof body.message === 'string'
      ? body.message
      : typeof answer.body === 'string' && answer.body !== ''
        ? answer.body.slice(0, 500)
        : 'no message';
  const details = Array.isArray(body.details) && body.details.length > 0 ? ` ${JSON.stringify(body.details)}` : '';
  return `${answer.status}${code}: ${message}${details}`;
}

/** A tool error: the text an agent reads. */
export function toolError(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

/** A structured answer: the object, and the same as JSON text for clients that read only text. */
export function structured(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}

/** Whether the admin API accepted the call. */
export const accepted = (answer: AdminAnswer) => answer.status >= 200 && answer.status < 300;

/** The admin answer as a tool result: `shape` makes the structured content of an accepted one. */
export function fromAnswer(answer: AdminAnswer, shape: (body: unknown) => Record<string, unknown>): CallToolResult {
  return accepted(answer) ? structured(shape(answer.body)) : toolError(refusal(answer));
}
