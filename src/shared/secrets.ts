// The one rule of what is a secret, for the journal, the recordings and the pass-through (docs/proxy.md).

/**
 * Headers that carry a credential: the journal shows them as "[redacted]" and the pass-through never sends a
 * client's copy upstream (the upstream's own credentials come from --proxy-header).
 */
export const secretHeaderNames: ReadonlySet<string> = new Set([
  'x-service-session-code',
  'authorization',
  'x-service-client-secret',
  'x-mock-admin-token',
  'cookie',
  'set-cookie',
  'proxy-authorization',
  'x-api-key',
  'x-auth-token',
]);

/** Whether a header (any case) carries a credential. */
export const isSecretHeader = (name: string): boolean => secretHeaderNames.has(name.toLowerCase());

/**
 * A JSON field whose value is a secret, by its name (any case): passwords, secrets, tokens, sessions, API keys,
 * authorizations, cookies, credentials, one-time passwords and PINs, and the exact names `code` and `value` (the
 * portal's confirmation codes and the clear values of tokens). Broad on purpose: a name that only looks secret
 * loses its value in a journal or a recording, a secret that is missed leaks into a bug report.
 */
export const secretFieldName =
  /pass(word)?|secret|token|session|api[-_]?key|authori[sz]ation|cookie|credential|otp|^pin$|^code$|^value$/i;

/** Whether a JSON field of this name holds a secret. */
export const isSecretField = (name: string): boolean => secretFieldName.test(name);

/** What an error body's code is: a constant such as UNAUTHORIZED or VALIDATION_FAILED. */
const errorCodeValue = /^[A-Z][A-Z0-9_]{0,63}$/;

/**
 * Whether `key` of `record` is the `code` of an error body ({statusCode, error, code, message}: the mock's, and the
 * portal's): a constant that says what went wrong, shown as it is. The portal's confirmation codes (digits) and any
 * `code` of another shape stay secret.
 */
export const isErrorBodyCode = (record: Readonly<Record<string, unknown>>, key: string): boolean =>
  key === 'code' &&
  typeof record.statusCode === 'number' &&
  typeof record.error === 'string' &&
  typeof record.code === 'string' &&
  errorCodeValue.test(record.code);

/** A field name and the colon after it in JSON text. */
const fieldThenColon = /"((?:[^"\\]|\\.)*)"\s*:\s*/g;
/** The value after a field's colon: a string (perhaps cut short), or anything up to `,`, `}`, `]` or a space. */
const valueAt = /"(?:[^"\\]|\\.)*(?:"|$)|[^,}\]\s]+/y;

/**
 * JSON-like text (cut short, malformed or too deep to parse) with the value of each secret field replaced by
 * "[redacted]": a scan of the text, so it holds where a parser gives up.
 */
export function redactSecretFieldsInText(text: string): string {
  const fields = new RegExp(fieldThenColon); // own lastIndex: calls never share a scan
  let out = '';
  let copied = 0;
  for (let m = fields.exec(text); m !== null; m = fields.exec(text)) {
    if (!isSecretField(m[1]!)) continue; // the scan goes on inside the value: a nested secret is found too
    valueAt.lastIndex = fields.lastIndex;
    if (valueAt.exec(text) === null) continue;
    out += `${text.slice(copied, m.index)}"${m[1]!}":"[redacted]"`;
    copied = fields.lastIndex = valueAt.lastIndex;
  }
  return out + text.slice(copied);
}
