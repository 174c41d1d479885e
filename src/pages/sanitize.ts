// Stored rich text (article bodies) is HTML: an allow-list of tags and attributes through sanitize-html (kept,
// parser-based), everything else dropped. It is required on the first page rendered: with its parser and postcss
// it is ~17 MB of memory that an instance serving only the JSON API never needs.
import { createRequire } from 'node:module';
import type sanitizeModule from 'sanitize-html';
import { Html } from './html.js';

type Sanitize = typeof sanitizeModule;
const load = (): Sanitize => createRequire(import.meta.url)('sanitize-html') as Sanitize;

const optionsFor = (sanitize: Sanitize): sanitizeModule.IOptions => ({
  allowedTags: [
    'p',
    'br',
    'b',
    'strong',
    'i',
    'em',
    'u',
    's',
    'sub',
    'sup',
    'small',
    'mark',
    'ul',
    'ol',
    'li',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'blockquote',
    'code',
    'pre',
    'hr',
    'a',
    'img',
    'table',
    'thead',
    'tbody',
    'tfoot',
    'tr',
    'td',
    'th',
    'caption',
    'span',
    'div',
    'figure',
    'figcaption',
    'dl',
    'dt',
    'dd',
  ],
  allowedAttributes: {
    a: ['href', 'title', 'rel'],
    img: ['src', 'alt', 'title', 'width', 'height'],
    td: ['colspan', 'rowspan'],
    th: ['colspan', 'rowspan'],
  },
  // dropped with their content (the rest of what is not allowed keeps its text)
  nonTextTags: [
    'script',
    'style',
    'iframe',
    'object',
    'embed',
    'template',
    'noscript',
    'textarea',
    'title',
    'svg',
    'math',
    'select',
    'option',
    'head',
  ],
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  allowProtocolRelative: true,
  // links leave the page without handing it over to the target
  transformTags: { a: sanitize.simpleTransform('a', { rel: 'noopener noreferrer nofollow' }) },
});

/** Stored HTML through the allow-list above (href/src only with its schemes). */
export function sanitizeHtml(input: string): Html {
  const sanitize = load();
  return new Html(sanitize(input, optionsFor(sanitize)));
}
