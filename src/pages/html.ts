// The one escape helper of the web pages: html`` escapes every interpolated value unless it is already Html.

/** Markup that is already safe (built by html`` or by the sanitizer); anything else is escaped on the way in. */
export class Html {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  toString(): string {
    return this.value;
  }
}

export type HtmlPart = Html | string | number | boolean | null | undefined | readonly HtmlPart[];

const entities: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for element content and quoted attribute values. */
export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => entities[c] ?? c);

function render(part: HtmlPart): string {
  if (part === null || part === undefined || part === false || part === true) return '';
  if (part instanceof Html) return part.value;
  if (Array.isArray(part)) return part.map(render).join('');
  return escapeHtml(String(part));
}

/**
 * A tagged template that escapes its interpolations: html`<p>${title}</p>`.
 * Arrays are joined, null/undefined/booleans render nothing, Html values are inserted as they are.
 */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlPart[]): Html {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += render(values[i]) + (strings[i + 1] ?? '');
  return new Html(out);
}

/** Marks markup as safe: only for constants of this module group and sanitizer output. */
export const trusted = (markup: string): Html => new Html(markup);
