// Small generated images: a rounded square (or circle for avatars) in a colour derived from the id, with initials.
import { createHash } from 'node:crypto';
import { escapeHtml } from './html.js';

const palette = [
  '#1f77b4',
  '#2a9d8f',
  '#e76f51',
  '#8e44ad',
  '#d35400',
  '#16a085',
  '#c0392b',
  '#2c3e50',
  '#7f8c8d',
  '#6d597a',
  '#b5838d',
  '#3d5a80',
];

/** A colour picked deterministically from the id (and the seed, so another seed gives other colours). */
function colourOf(id: string, seed: number): string {
  const digest = createHash('sha256').update(`${seed}:${id}`).digest();
  return palette[digest[0]! % palette.length]!;
}

/** Up to two letters: the first letters of the first two words. */
function initials(label: string): string {
  const words = label
    .trim()
    .split(/\s+/)
    .filter((w) => /[\p{L}\p{N}]/u.test(w));
  const letters = words
    .slice(0, 2)
    .map((w) => [...w.replace(/^[^\p{L}\p{N}]+/u, '')][0] ?? '')
    .join('');
  return letters.toUpperCase() || '?';
}

export function badgeSvg(o: {
  id: string;
  seed: number;
  label: string;
  shape: 'circle' | 'square';
  colour?: string;
}): string {
  const size = 128;
  const fill = o.colour ?? colourOf(o.id, o.seed);
  const shape =
    o.shape === 'circle'
      ? `<circle cx="${size / 2}" cy="${size / 2}" r="${size / 2}" fill="${fill}"/>`
      : `<rect width="${size}" height="${size}" rx="${size / 8}" fill="${fill}"/>`;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" ` +
    `viewBox="0 0 ${size} ${size}" role="img" aria-label="${escapeHtml(o.label)}">` +
    `<title>${escapeHtml(o.label)}</title>${shape}` +
    '<text x="50%" y="50%" dy=".35em" text-anchor="middle" font-family="Arial,Helvetica,sans-serif" ' +
    `font-size="${Math.round(size * 0.4)}" fill="#fff">${escapeHtml(initials(o.label))}</text></svg>`
  );
}

/** A wide cover (articles, postcards, processes): a band of colour with the title's initials. */
export function coverSvg(o: { id: string; seed: number; label: string }): string {
  const fill = colourOf(o.id, o.seed);
  const accent = colourOf(`${o.id}:accent`, o.seed);
  return (
    '<svg xmlns="http://www.w3.org/2000/svg" width="640" height="320" ' +
    `viewBox="0 0 640 320" role="img" aria-label="${escapeHtml(o.label)}">` +
    `<title>${escapeHtml(o.label)}</title><rect width="640" height="320" ` +
    `fill="${fill}"/><circle cx="540" cy="60" r="140" fill="${accent}" opacity=".55"/>` +
    '<text x="48" y="200" font-family="Arial,Helvetica,sans-serif" ' +
    `font-size="120" fill="#fff">${escapeHtml(initials(o.label))}</text></svg>`
  );
}

/** What an unknown id shows: a grey square with a question mark (answered with 404). */
export const missingSvg = (): string => badgeSvg({ id: '', seed: 0, label: '?', shape: 'square', colour: '#c7ccd4' });
