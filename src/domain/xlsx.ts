// The .xlsx files the mock writes (wallet and transaction exports) and reads (file processing), with node:zlib and
// no dependency: exceljs did this before and pulled 199 packages (33 MB) into every consumer install (issue 47).
// An .xlsx file is a ZIP archive of XML parts; only what a one-sheet table needs is written, and a reader takes the
// first worksheet's cell values the way exceljs gave them (shared and inline strings, numbers, booleans, formula
// results, numbers in a date format as dates).
import { crc32, deflateRaw, inflateRaw, type ZlibOptions } from 'node:zlib';
import { promisify } from 'node:util';

const deflate = promisify(deflateRaw);
const inflate = promisify<Buffer, ZlibOptions, Buffer>(inflateRaw);

// ---------------------------------------------------------------------------------------------------------------
// ZIP

type ZipEntry = { name: string; data: Buffer };

/**
 * A ZIP archive of `entries`, deflated. Every entry carries the same fixed time (1980-01-01), so the same table gives
 * the same bytes (exceljs stamped the time of the call).
 */
async function zip(entries: ZipEntry[]): Promise<Buffer> {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const { name, data } of entries) {
    const nameBytes = Buffer.from(name, 'utf8');
    const packed = await deflate(data);
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed: deflate
    local.writeUInt16LE(0x0800, 6); // names are UTF-8
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt16LE(0, 10); // time 00:00
    local.writeUInt16LE(0x21, 12); // date 1980-01-01
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4); // made by
    local.copy(central, 6, 4, 28); // version needed … name length: the local header's fields
    // extra, comment, disk, internal and external attributes: 0
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, packed);
    centrals.push(central, nameBytes);
    offset += local.length + nameBytes.length + packed.length;
  }
  const centralSize = centrals.reduce((sum, b) => sum + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, ...centrals, end]);
}

/** A file that is not a readable .xlsx: its message says why. */
export class SpreadsheetError extends Error {
  override name = 'SpreadsheetError';
}

/**
 * The entries of a ZIP archive, by name, inflated on demand; together they may inflate to at most `maxBytes` (a
 * small file can inflate to gigabytes).
 */
function unzip(bytes: Buffer, maxBytes: number): { names: string[]; read: (name: string) => Promise<Buffer | null> } {
  const endAt = bytes.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (endAt < 0 || endAt + 22 > bytes.length) throw new SpreadsheetError('not an .xlsx file (no ZIP directory)');
  const count = bytes.readUInt16LE(endAt + 10);
  let at = bytes.readUInt32LE(endAt + 16);
  const entries = new Map<string, { method: number; size: number; dataAt: number; packedSize: number }>();
  for (let i = 0; i < count; i++) {
    if (at + 46 > bytes.length || bytes.readUInt32LE(at) !== 0x02014b50)
      throw new SpreadsheetError('damaged ZIP directory');
    const method = bytes.readUInt16LE(at + 10);
    const packedSize = bytes.readUInt32LE(at + 20);
    const size = bytes.readUInt32LE(at + 24);
    const nameLength = bytes.readUInt16LE(at + 28);
    const skip = nameLength + bytes.readUInt16LE(at + 30) + bytes.readUInt16LE(at + 32);
    const localAt = bytes.readUInt32LE(at + 42);
    const name = bytes.toString('utf8', at + 46, at + 46 + nameLength);
    if (localAt + 30 > bytes.length || bytes.readUInt32LE(localAt) !== 0x04034b50)
      throw new SpreadsheetError(`damaged ZIP entry ${name.slice(0, 100)}`);
    const dataAt = localAt + 30 + bytes.readUInt16LE(localAt + 26) + bytes.readUInt16LE(localAt + 28);
    if (dataAt + packedSize > bytes.length) throw new SpreadsheetError(`truncated ZIP entry ${name.slice(0, 100)}`);
    entries.set(name, { method, size, dataAt, packedSize });
    at += 46 + skip;
  }
  let budget = maxBytes;
  const read = async (name: string): Promise<Buffer | null> => {
    const entry = entries.get(name);
    if (!entry) return null;
    const packed = bytes.subarray(entry.dataAt, entry.dataAt + entry.packedSize);
    let data: Buffer;
    if (entry.method === 0) data = packed;
    else if (entry.method === 8) {
      try {
        data = await inflate(packed, { maxOutputLength: Math.max(1, budget) });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
          throw new SpreadsheetError(`it inflates to more than ${maxBytes} bytes`);
        throw new SpreadsheetError(`damaged ZIP entry ${name.slice(0, 100)}: ${(err as Error).message}`);
      }
    } else throw new SpreadsheetError(`ZIP entry ${name.slice(0, 100)} uses compression method ${entry.method}`);
    budget -= data.length;
    if (budget < 0) throw new SpreadsheetError(`it inflates to more than ${maxBytes} bytes`);
    return data;
  };
  return { names: [...entries.keys()], read };
}

// ---------------------------------------------------------------------------------------------------------------
// Writing

const mainNs = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const relNs = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const pkgRelNs = 'http://schemas.openxmlformats.org/package/2006/relationships';
const xmlHead = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';

// characters XML 1.0 cannot hold (exceljs dropped them too)
// biome-ignore lint/suspicious/noControlCharactersInRegex: these control characters are what the pattern is about
const notXml = /[\x00-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]/g;
const escapeXml = (text: string) =>
  text.replace(notXml, '').replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]!);

/** Column 0 → A, 25 → Z, 26 → AA. */
function columnName(index: number): string {
  let name = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

export type Cell = string | number | null;

/**
 * One worksheet named `sheetName`: the header row in bold, then `rows`; columns `columnWidth` characters wide. Text
 * is in the shared-strings part (as Excel and exceljs write it), numbers as numbers, null leaves the cell empty.
 */
export async function writeXlsx(
  sheetName: string,
  headers: readonly string[],
  rows: readonly (readonly Cell[])[],
  { columnWidth = 22, creator = 'portal-mock' } = {},
): Promise<Buffer> {
  const strings = new Map<string, number>();
  const stringIndex = (text: string) => {
    let index = strings.get(text);
    if (index === undefined) {
      index = strings.size;
      strings.set(text, index);
    }
    return index;
  };
  const rowXml = (cells: readonly Cell[], rowNumber: number, style: string) => {
    let xml = `<row r="${rowNumber}">`;
    cells.forEach((value, i) => {
      const ref = `${columnName(i)}${rowNumber}`;
      if (typeof value === 'number' && Number.isFinite(value)) xml += `<c r="${ref}"${style}><v>${value}</v></c>`;
      else if (typeof value === 'string') xml += `<c r="${ref}"${style} t="s"><v>${stringIndex(value)}</v></c>`;
    });
    return `${xml}</row>`;
  };
  const width = Math.max(headers.length, ...rows.map((r) => r.length), 1);
  let sheetData = rowXml(headers, 1, ' s="1"');
  rows.forEach((r, i) => {
    sheetData += rowXml(r, i + 2, '');
  });
  const sheet =
    `${xmlHead}<worksheet xmlns="${mainNs}" xmlns:r="${relNs}">` +
    `<cols><col min="1" max="${width}" width="${columnWidth}" customWidth="1"/></cols>` +
    `<sheetData>${sheetData}</sheetData></worksheet>`;
  const shared =
    `${xmlHead}<sst xmlns="${mainNs}" count="${strings.size}" uniqueCount="${strings.size}">` +
    [...strings.keys()].map((s) => `<si><t xml:space="preserve">${escapeXml(s)}</t></si>`).join('') +
    '</sst>';
  const styles =
    `${xmlHead}<styleSheet xmlns="${mainNs}">` +
    '<fonts count="2"><font><sz val="11"/><name val="Calibri"/><family val="2"/></font>' +
    '<font><b/><sz val="11"/><name val="Calibri"/><family val="2"/></font></fonts>' +
    '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>' +
    '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
    '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
    '<cellXfs count="2"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>' +
    '<xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/></cellXfs>' +
    '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>';
  const part = (type: string) => `application/vnd.openxmlformats-officedocument.spreadsheetml.${type}+xml`;
  const parts: Array<[string, string]> = [
    [
      '[Content_Types].xml',
      `${xmlHead}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
        '<Default Extension="xml" ContentType="application/xml"/>' +
        `<Override PartName="/xl/workbook.xml" ContentType="${part('sheet.main')}"/>` +
        `<Override PartName="/xl/worksheets/sheet1.xml" ContentType="${part('worksheet')}"/>` +
        `<Override PartName="/xl/sharedStrings.xml" ContentType="${part('sharedStrings')}"/>` +
        `<Override PartName="/xl/styles.xml" ContentType="${part('styles')}"/>` +
        '<Override PartName="/docProps/core.xml" ' +
        'ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>' +
        '</Types>',
    ],
    [
      '_rels/.rels',
      `${xmlHead}<Relationships xmlns="${pkgRelNs}">` +
        `<Relationship Id="rId1" Type="${relNs}/officeDocument" Target="xl/workbook.xml"/>` +
        `<Relationship Id="rId2" Type="${pkgRelNs}/metadata/core-properties" Target="docProps/core.xml"/>` +
        '</Relationships>',
    ],
    [
      'docProps/core.xml',
      `${xmlHead}<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" ` +
        `xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator>${escapeXml(creator)}</dc:creator></cp:coreProperties>`,
    ],
    [
      'xl/workbook.xml',
      `${xmlHead}<workbook xmlns="${mainNs}" xmlns:r="${relNs}"><sheets>` +
        `<sheet name="${escapeXml(sheetName)}" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    ],
    [
      'xl/_rels/workbook.xml.rels',
      `${xmlHead}<Relationships xmlns="${pkgRelNs}">` +
        `<Relationship Id="rId1" Type="${relNs}/worksheet" Target="worksheets/sheet1.xml"/>` +
        `<Relationship Id="rId2" Type="${relNs}/sharedStrings" Target="sharedStrings.xml"/>` +
        `<Relationship Id="rId3" Type="${relNs}/styles" Target="styles.xml"/>` +
        '</Relationships>',
    ],
    ['xl/worksheets/sheet1.xml', sheet],
    ['xl/sharedStrings.xml', shared],
    ['xl/styles.xml', styles],
  ];
  return zip(parts.map(([name, text]) => ({ name, data: Buffer.from(text, 'utf8') })));
}

// ---------------------------------------------------------------------------------------------------------------
// Reading

const entities: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
/** XML character data with its entity and character references replaced. */
function unescapeXml(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (whole, ref: string) => {
    if (ref[0] !== '#') return entities[ref] ?? whole;
    const code = ref[1] === 'x' ? Number.parseInt(ref.slice(2), 16) : Number.parseInt(ref.slice(1), 10);
    return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

/** A tag of an XML text: its local name (prefix dropped), its attributes' text, and where it starts and ends. */
type Tag = { name: string; attributes: string; closing: boolean; empty: boolean; start: number; end: number };

/**
 * The tags of `xml` in order, in one pass: a match ends at the first `<` or `>` after its start, so each character is
 * read a bounded number of times whatever the text holds. The reader used to match whole elements with lazy
 * `[\s\S]*?` patterns, which scan to the end of the text for every start tag without an end tag: a 1.3 KB upload of
 * 20,000 `<row>` held the event loop for a quarter of a second, and ten times as many for 25 s.
 */
function* tagsOf(xml: string): Generator<Tag> {
  const tag = /<(\/?)(?:[\w.-]+:)?([\w.-]+)([^<>]*)>/g;
  for (let m = tag.exec(xml); m; m = tag.exec(xml)) {
    const rest = m[3]!;
    const empty = rest.endsWith('/');
    const attributes = empty ? rest.slice(0, -1) : rest;
    yield { name: m[2]!, attributes, closing: m[1] === '/', empty, start: m.index, end: m.index + m[0].length };
  }
}

/**
 * A start tag's attributes by local name (prefixes dropped), values unescaped, read left to right once (a pattern
 * retried at every position took quadratic time on an unclosed quote). What is not `name = "value"` ends the read.
 */
function attributesOf(text: string): Map<string, string> {
  const found = new Map<string, string>();
  const name = /\s*([\w.:-]+)\s*=\s*(["'])/y;
  let i = 0;
  while (i < text.length) {
    name.lastIndex = i;
    const m = name.exec(text);
    if (!m) break;
    const close = text.indexOf(m[2]!, name.lastIndex);
    if (close < 0) break;
    const local = m[1]!.slice(m[1]!.lastIndexOf(':') + 1);
    if (!found.has(local)) found.set(local, unescapeXml(text.slice(name.lastIndex, close)));
    i = close + 1;
  }
  return found;
}

/** Tags handled between two turns of the event loop, so that a large part does not hold other requests up. */
const tagsPerTurn = 20_000;

/**
 * Calls `visit` with every tag of `xml` in order, letting the event loop turn every `tagsPerTurn` tags; `visit`
 * answers false to stop there.
 */
async function eachTag(xml: string, visit: (tag: Tag) => boolean | undefined): Promise<void> {
  let count = 0;
  for (const tag of tagsOf(xml)) {
    if (++count % tagsPerTurn === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    if (visit(tag) === false) return;
  }
}

/**
 * The plain text of rich strings: the <t> elements' text but that of phonetic runs (<rPh>), joined. Fed the tags
 * of an element one by one; `take()` answers the text so far and starts again.
 */
function textCollector(xml: string) {
  let text = '';
  let phonetic = false;
  let from: number | undefined;
  return {
    feed(tag: Tag): void {
      if (tag.name === 'rPh' && !tag.empty) phonetic = !tag.closing;
      else if (tag.name === 't' && !tag.empty && !phonetic) {
        if (!tag.closing) from = tag.end;
        else if (from !== undefined) {
          text += unescapeXml(xml.slice(from, tag.start));
          from = undefined;
        }
      }
    },
    take(): string {
      const taken = text;
      text = '';
      phonetic = false;
      from = undefined;
      return taken;
    },
  };
}

/** The shared strings of a workbook: each <si> as its plain text. */
async function sharedStrings(xml: string | null): Promise<string[]> {
  const strings: string[] = [];
  if (xml === null) return strings;
  const text = textCollector(xml);
  let inItem = false;
  await eachTag(xml, (tag) => {
    if (tag.name === 'si') {
      if (tag.empty) strings.push('');
      else if (!tag.closing) {
        text.take();
        inItem = true;
      } else if (inItem) {
        strings.push(text.take());
        inItem = false;
      }
    } else if (inItem) text.feed(tag);
    return undefined;
  });
  return strings;
}

/** Built-in number formats that show a date or a time (ECMA-376 18.8.30, and the East Asian ones). */
const dateFormatIds = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 45, 46, 47]);
for (let id = 50; id <= 58; id++) dateFormatIds.add(id);
/** A custom format shows a date when, outside quotes and brackets, it has a date or time letter (as exceljs decides). */
const isDateFormat = (code: string) => /[ymdhMsb]+/.test(code.replace(/\[[^\]]*]/g, '').replace(/"[^"]*"/g, ''));

/** Which cell styles (by index, those of the first <cellXfs>) show numbers as dates. */
async function dateStyles(stylesXml: string | null): Promise<boolean[]> {
  if (!stylesXml) return [];
  const custom = new Map<number, string>();
  const formatIds: number[] = [];
  let inCellXfs = false;
  await eachTag(stylesXml, (tag) => {
    if (tag.name === 'numFmt' && !tag.closing) {
      const attributes = attributesOf(tag.attributes);
      custom.set(Number(attributes.get('numFmtId')), attributes.get('formatCode') ?? '');
    } else if (tag.name === 'cellXfs' && !tag.empty) {
      if (tag.closing && inCellXfs) return false; // only the first <cellXfs> counts
      inCellXfs = !tag.closing;
    } else if (tag.name === 'xf' && inCellXfs && !tag.closing) {
      formatIds.push(Number(attributesOf(tag.attributes).get('numFmtId') ?? 0));
    }
    return undefined;
  });
  return formatIds.map((id) => {
    const code = custom.get(id);
    return code !== undefined ? isDateFormat(code) : dateFormatIds.has(id);
  });
}

/** An Excel serial day number as a time (exceljs's conversion, to the millisecond). */
const serialToIso = (serial: number, date1904: boolean) =>
  new Date(Math.round((serial - 25569 + (date1904 ? 1462 : 0)) * 86_400_000)).toISOString();

/** Column letters of a cell reference (B12 → 1), or undefined. */
function columnOf(ref: string | undefined): number | undefined {
  const letters = ref ? /^([A-Z]{1,3})\d*$/i.exec(ref)?.[1] : undefined;
  if (!letters) return undefined;
  let n = 0;
  for (const ch of letters.toUpperCase()) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n - 1;
}

/** A part's path from a relationship target: relative to the part's folder, or absolute from the archive's root. */
const resolveTarget = (folder: string, target: string) =>
  target.startsWith('/') ? target.slice(1) : `${folder}${target}`.replace(/[^/]+\/\.\.\//g, '');

/** The targets of a relationships part, by id, with their types. */
async function relationships(xml: string | null, folder: string): Promise<Map<string, { type: string; path: string }>> {
  const rels = new Map<string, { type: string; path: string }>();
  await eachTag(xml ?? '', (tag) => {
    if (tag.name !== 'Relationship' || tag.closing) return undefined;
    const attributes = attributesOf(tag.attributes);
    const id = attributes.get('Id');
    const target = attributes.get('Target');
    if (id && target) rels.set(id, { type: attributes.get('Type') ?? '', path: resolveTarget(folder, target) });
    return undefined;
  });
  return rels;
}

/** What the reader needs of the workbook part: its first sheet's relationship id, and its date system. */
async function workbookOf(xml: string): Promise<{ firstSheetId: string | undefined; date1904: boolean }> {
  let firstSheetId: string | undefined;
  let date1904 = false;
  await eachTag(xml, (tag) => {
    if (tag.closing) return undefined;
    if (tag.name === 'workbookPr') date1904 = /^(1|true)$/.test(attributesOf(tag.attributes).get('date1904') ?? '');
    else if (tag.name === 'sheet' && firstSheetId === undefined)
      firstSheetId = attributesOf(tag.attributes).get('id') ?? '';
    return undefined;
  });
  return { firstSheetId, date1904 };
}

export type SheetRows = Array<{ row: number; cells: string[] }>;

/** A cell being read: its start tag's attributes, its first <v>, whether it holds an inline string (<is>). */
type OpenCell = { column: number; attributes: Map<string, string>; v?: string; vFrom?: number; inline: boolean };

/** A cell's value as exceljs gave it (undefined: the cell has none), from its type, value and text. */
function cellValue(
  cell: OpenCell,
  inlineText: string,
  shared: string[],
  dates: boolean[],
  date1904: boolean,
): string | undefined {
  const type = cell.attributes.get('t') ?? 'n';
  const v = cell.v;
  if (type === 'inlineStr') return cell.inline ? inlineText : undefined;
  if (v === undefined) return undefined;
  if (type === 's') return shared[Number(v)] ?? '';
  if (type === 'str') return unescapeXml(v);
  if (type === 'b') return v.trim() === '1' || v.trim() === 'true' ? 'true' : 'false';
  if (type === 'e') return '';
  if (type === 'd') {
    const time = Date.parse(unescapeXml(v));
    return Number.isNaN(time) ? unescapeXml(v) : new Date(time).toISOString();
  }
  const n = Number.parseFloat(v);
  if (Number.isNaN(n)) return '';
  return dates[Number(cell.attributes.get('s') ?? 0)] ? serialToIso(n, date1904) : String(n);
}

/**
 * Every row of the first worksheet that has a value, with 1-based row numbers and 0-based cells as text (numbers
 * as JavaScript prints them, dates as ISO times, booleans as true/false, formulas as their last result), untrimmed.
 * A file that is not an .xlsx, or inflates past `maxBytes`, is a SpreadsheetError. Every part is read tag by tag,
 * letting the event loop turn every `tagsPerTurn` tags.
 */
export async function readXlsx(bytes: Buffer, maxBytes: number): Promise<SheetRows> {
  const archive = unzip(bytes, maxBytes);
  const text = async (name: string) => (await archive.read(name))?.toString('utf8') ?? null;
  const root = await relationships(await text('_rels/.rels'), '');
  const workbookPath =
    [...root.values()].find((r) => r.type.endsWith('/officeDocument'))?.path ??
    (archive.names.includes('xl/workbook.xml') ? 'xl/workbook.xml' : undefined);
  const workbookXml = workbookPath ? await text(workbookPath) : null;
  if (!workbookPath || workbookXml === null) throw new SpreadsheetError('not an .xlsx file (no workbook)');
  const slash = workbookPath.lastIndexOf('/');
  const folder = workbookPath.slice(0, slash + 1);
  const rels = await relationships(await text(`${folder}_rels/${workbookPath.slice(slash + 1)}.rels`), folder);
  const workbook = await workbookOf(workbookXml);
  const sheetPath = workbook.firstSheetId !== undefined ? rels.get(workbook.firstSheetId)?.path : undefined;
  const sheet = sheetPath ? await text(sheetPath) : null;
  if (sheet === null) return [];
  const relOf = (type: string) => [...rels.values()].find((r) => r.type.endsWith(`/${type}`))?.path;
  const sharedPath = relOf('sharedStrings');
  const shared = await sharedStrings(sharedPath ? await text(sharedPath) : null);
  const stylesPath = relOf('styles');
  const dates = await dateStyles(stylesPath ? await text(stylesPath) : null);

  const rows: SheetRows = [];
  const inline = textCollector(sheet);
  let rowNumber = 0;
  let row: { cells: string[]; hasValue: boolean; column: number } | undefined;
  let cell: OpenCell | undefined;
  await eachTag(sheet, (tag) => {
    if (tag.name === 'row' && !tag.closing) {
      const r = Number(attributesOf(tag.attributes).get('r'));
      rowNumber = Number.isInteger(r) && r > 0 ? r : rowNumber + 1;
      row = tag.empty ? undefined : { cells: [], hasValue: false, column: -1 };
    } else if (tag.name === 'row') {
      if (row?.hasValue) rows.push({ row: rowNumber, cells: Array.from(row.cells, (c) => c ?? '') });
      row = undefined;
      cell = undefined;
    } else if (!row) {
      // a cell outside a row is not read
    } else if (tag.name === 'c' && !tag.closing) {
      const attributes = attributesOf(tag.attributes);
      row.column = columnOf(attributes.get('r')) ?? row.column + 1;
      row.cells[row.column] = '';
      inline.take();
      cell = tag.empty ? undefined : { column: row.column, attributes, inline: false };
    } else if (!cell) {
      // what is between cells is not read
    } else if (tag.name === 'c') {
      const value = cellValue(cell, inline.take(), shared, dates, workbook.date1904);
      row.cells[cell.column] = value ?? '';
      if (value !== undefined) row.hasValue = true;
      cell = undefined;
    } else if (tag.name === 'v' && !tag.empty && cell.v === undefined) {
      if (!tag.closing) cell.vFrom = tag.end;
      else if (cell.vFrom !== undefined) cell.v = sheet.slice(cell.vFrom, tag.start);
    } else if (tag.name === 'is' && !tag.closing) {
      cell.inline = true;
    } else {
      inline.feed(tag);
    }
    return undefined;
  });
  return rows;
}
