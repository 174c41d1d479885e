// Stored rich text (article bodies) is HTML: keep an allow-list of tags and attributes, drop everything else.
import { escapeHtml, Html, trusted } from './html.js';

const allowedTags = new Set([
  'p', 'br', 'b', 'strong', 'i', 'em', 'u', 's', 'sub', 'sup', 'small', 'mark', 'ul', 'ol', 'li', 'h2', 'h3', 'h4', 'h5', 'h6',
  'blockquote', 'code', 'pre', 'hr', 'a', 'img', 'table', 'thead', 'tbody', 'tfoot', 'tr', 'td', 'th', 'caption', 'span', 'div',
  'figure', 'figcaption', 'dl', 'dt', 'dd',
]);
const voidTags = new Set(['br', 'hr', 'img']);
/** Elements whose content is dropped along with them. */
const droppedWithContent = new Set(['script', 'style', 'iframe', 'object', 'embed', 'template', 'noscript', 'textarea', 'title', 'svg', 'math', 'select', 'head']);
const allowedAttributes: Record<string, readonly string[]> = {
  a: ['href', 'title'], img: ['src', 'alt', 'title', 'width', 'height'], td: ['colspan', 'rowspan'], th: ['colspan', 'rowspan'],
};
/** A URL with a scheme must be http(s), mailto or tel; one without (relative, #fragment) is fine. */
const safeUrl = (url: string) => !/^[^/?#]*:/.test(url) || /^(https?|mailto|tel):/i.test(url);

const tagRe = /<!--[\s\S]*?(?:-->|$)|<(\/?)([a-zA-Z][a-zA-Z0-9-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>/g;
const attrRe = /([^\s"'=<>`/]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;

const decodeEntities = (s: string) => s
  .replace(/&#(\d+);?/g, (_, n: string) => String.fromCodePoint(Math.min(Number(n), 0x10ffff)))
  .replace(/&#x([0-9a-f]+);?/gi, (_, n: string) => String.fromCodePoint(Math.min(parseInt(n, 16), 0x10ffff)))
  .replace(/&(amp|lt|gt|quot|apos|nbsp);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' })[e] ?? '');

function attributes(tag: string, source: string): string {
  const allowed = allowedAttributes[tag] ?? [];
  let out = '';
  for (const m of source.matchAll(attrRe)) {
    const name = m[1]!.toLowerCase();
    if (!allowed.includes(name)) continue;
    const value = decodeEntities(m[2] ?? m[3] ?? m[4] ?? '');
    // Browsers ignore blanks and control characters inside a scheme ("java\tscript:"), so check without them.
    if ((name === 'href' || name === 'src') && !safeUrl(value.replace(/[\s\u0000-\u001f]/g, ''))) continue;
    out += ` ${name}="${escapeHtml(value)}"`;
  }
  if (tag === 'a') out += ' rel="noopener noreferrer nofollow"';
  return out;
}

/** Text between tags, decoded and escaped again so stray `<` or `&` cannot start markup. */
const text = (s: string) => escapeHtml(decodeEntities(s));

/**
 * Sanitizes stored HTML: allowed tags keep allowed attributes (href/src only with safe schemes), other tags are
 * dropped but their text kept, scripts and styles are dropped with their content; unclosed tags are closed.
 */
export function sanitizeHtml(input: string): Html {
  let out = '';
  let last = 0;
  const open: string[] = [];
  let skipUntil: string | null = null;
  for (const m of input.matchAll(tagRe)) {
    const at = m.index;
    if (skipUntil === null) out += text(input.slice(last, at));
    last = at + m[0].length;
    if (m[2] === undefined) continue; // comment
    const closing = m[1] === '/';
    const tag = m[2].toLowerCase();
    if (skipUntil !== null) {
      if (closing && tag === skipUntil) skipUntil = null;
      continue;
    }
    if (droppedWithContent.has(tag)) {
      if (!closing && !/\/\s*$/.test(m[3] ?? '')) skipUntil = tag;
      continue;
    }
    if (!allowedTags.has(tag)) continue;
    if (voidTags.has(tag)) {
      if (!closing) out += `<${tag}${attributes(tag, m[3] ?? '')}>`;
      continue;
    }
    if (!closing) {
      open.push(tag);
      out += `<${tag}${attributes(tag, m[3] ?? '')}>`;
    } else {
      const i = open.lastIndexOf(tag);
      if (i < 0) continue;
      while (open.length > i) out += `</${open.pop()!}>`;
    }
  }
  if (skipUntil === null) out += text(input.slice(last));
  while (open.length > 0) out += `</${open.pop()!}>`;
  return trusted(out);
}
