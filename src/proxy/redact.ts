// What a recording keeps of an upstream answer: secrets and personal data replaced by placeholders (docs/proxy.md).
import { isSecretField } from '../shared/secrets.js';

/** Answer headers a recorded stub keeps; everything else (Set-Cookie, server names, tracing ids …) is dropped. */
export const recordedHeaderAllowList = new Set([
  'content-type',
  'cache-control',
  'etag',
  'last-modified',
  'content-language',
  'content-disposition',
  'location',
  'x-total-count',
]);

const emailKey = /e-?mail/i;
const phoneKey = /phone|mobile|^tel$|telephone/i;
const emailValue = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;
const phoneValue = /^\+\d[\d\s()-]{6,}$/;
const bearerValue = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/g;

const placeholders = { secret: '[redacted]', email: 'user@example.test', phone: '+10000000000' } as const;

function redactString(value: string): string {
  if (phoneValue.test(value)) return placeholders.phone;
  if (/^\s*[[{]/.test(value)) {
    try {
      return JSON.stringify(redactRecorded(JSON.parse(value))); // JSON inside a string (an echo, a payload field)
    } catch {
      /* not JSON */
    }
  }
  return value.replace(emailValue, placeholders.email).replace(bearerValue, `$1 ${placeholders.secret}`);
}

/** A copy of a JSON value for a recording: secret fields, e-mails and phone numbers replaced, at any depth. */
export function redactRecorded(value: unknown, key = ''): unknown {
  if (typeof value === 'string' || typeof value === 'number') {
    if (isSecretField(key)) return placeholders.secret;
    if (emailKey.test(key)) return placeholders.email;
    if (phoneKey.test(key)) return placeholders.phone;
    return typeof value === 'string' ? redactString(value) : value;
  }
  if (Array.isArray(value)) return value.map((v) => redactRecorded(v, key));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = redactRecorded(v, k);
    return out;
  }
  return value;
}

/** A text body (not JSON) for a recording: e-mails, phone-like lines and bearer tokens replaced. */
export function redactText(text: string): string {
  return text.split('\n').map(redactString).join('\n');
}
