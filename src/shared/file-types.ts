// What a file is, from its name and declared type: used by the seeders and the upload flow alike.
import type { FileType } from '../schemas/records.js';

const mimeByExt: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  svg: 'image/svg+xml',
  webp: 'image/webp',
  bmp: 'image/bmp',
  heic: 'image/heic',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  avi: 'video/x-msvideo',
  mkv: 'video/x-matroska',
  webm: 'video/webm',
  pdf: 'application/pdf',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ppt: 'application/vnd.ms-powerpoint',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  odt: 'application/vnd.oasis.opendocument.text',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  rtf: 'application/rtf',
  txt: 'text/plain',
  csv: 'text/csv',
  md: 'text/markdown',
  json: 'application/json',
  xml: 'application/xml',
  html: 'text/html',
  zip: 'application/zip',
  rar: 'application/vnd.rar',
  '7z': 'application/x-7z-compressed',
  tar: 'application/x-tar',
  gz: 'application/gzip',
  tgz: 'application/gzip',
  gpg: 'application/pgp-encrypted',
  pgp: 'application/pgp-encrypted',
  asc: 'application/pgp-encrypted',
  p7m: 'application/pkcs7-mime',
  enc: 'application/octet-stream',
};
const encryptedExt = new Set(['gpg', 'pgp', 'asc', 'p7m', 'enc']);
const documentMime = /^(text\/|application\/(pdf|msword|rtf|json|xml|vnd\.(openxmlformats|ms-|oasis)))/;
const archiveMime = /^application\/(zip|gzip|x-tar|x-7z-compressed|vnd\.rar)$/;

export const extOf = (name: string) => {
  const m = /\.([A-Za-z0-9]{1,10})$/.exec(name);
  return m?.[1]?.toLowerCase() ?? '';
};

/** The mime type from the extension, else the one declared, else application/octet-stream. */
export const detectMime = (name: string, declared?: string | null) =>
  mimeByExt[extOf(name)] ??
  (declared && /^[\w.+-]+\/[\w.+-]+$/.test(declared) ? declared.toLowerCase() : 'application/octet-stream');

export function fileTypeOf(name: string, mime: string): FileType {
  if (encryptedExt.has(extOf(name))) return 'encrypted';
  if (mime.startsWith('image/')) return 'image';
  if (mime.startsWith('video/')) return 'video';
  if (archiveMime.test(mime)) return 'archive';
  if (documentMime.test(mime)) return 'document';
  return 'other';
}
