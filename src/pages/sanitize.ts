// Stored rich text (article bodies) is HTML: an allow-list of tags and attributes through sanitize-html (kept,
// parser-based), everything else dropped. It is loaded when the first page is rendered: with its parser and postcss
// it is ~17 MB of memory that an instance serving only the JSON API never needs. The bundle holds it in a chunk of
// its own (a dynamic import), so a consumer install does not pull its 17 packages (issue 47).
import type sanitizeModule from 'sanitize-html';
import { Html } from './html.js';

type Sanitize = typeof sanitizeModule;
let loaded: Sanitize | undefined;

/** Loads sanitize-html once; a page's handler awaits it before rendering (rendering is synchronous). */
export async function loadSanitizer(): Promise<void> {
  loaded ??= (await import('sanitize-html')).default;
}

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
  const sanitize = loaded;
  if (!sanitize) throw new Error('sanitize-html is not loaded yet: await loadSanitizer() before rendering');
  return new Html(sanitize(input, optionsFor(sanitize)));
}
