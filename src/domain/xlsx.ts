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

/** The value of attribute `name` in a start tag's attribute text (prefixes ignored), or undefined. */
function attribute(tag: string, name: string): string | undefined {
  const match = new RegExp(`(?:^|\\s)(?:[\\w.-]+:)?${name}\\s*=\\s*("([^"]*)"|'([^']*)')`).exec(tag);
  return match ? unescapeXml(match[2] ?? match[3] ?? '') : undefined;
}

/** The text of every <t> element in `xml` but those of phonetic runs (<rPh>), joined: a rich string's plain text. */
function texts(xml: string): string {
  let out = '';
  const withoutPhonetic = xml.replace(/<(\w+:)?rPh\b[\s\S]*?<\/(\w+:)?rPh>/g, '');
  for (const m of withoutPhonetic.matchAll(/<(?:\w+:)?t(?:\s[^>]*)?>([\s\S]*?)<\/(?:\w+:)?t>/g))
    out += unescapeXml(m[1]!);
  return out;
}

/** Built-in number formats that show a date or a time (ECMA-376 18.8.30, and the East Asian ones). */
const dateFormatIds = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 45, 46, 47]);
for (let id = 50; id <= 58; id++) dateFormatIds.add(id);
/** A custom format shows a date when, outside quotes and brackets, it has a date or time letter (as exceljs decides). */
const isDateFormat = (code: string) => /[ymdhMsb]+/.test(code.replace(/\[[^\]]*]/g, '').replace(/"[^"]*"/g, ''));

/** Which cell styles (by index) show numbers as dates. */
function dateStyles(stylesXml: string | null): boolean[] {
  if (!stylesXml) return [];
  const custom = new Map<number, string>();
  for (const m of stylesXml.matchAll(/<(?:\w+:)?numFmt\s([^>]*?)\/?>/g))
    custom.set(Number(attribute(m[1]!, 'numFmtId')), attribute(m[1]!, 'formatCode') ?? '');
  const cellXfs = /<(?:\w+:)?cellXfs\b[^>]*>([\s\S]*?)<\/(?:\w+:)?cellXfs>/.exec(stylesXml)?.[1] ?? '';
  return [...cellXfs.matchAll(/<(?:\w+:)?xf\s([^>]*?)\/?>/g)].map((m) => {
    const id = Number(attribute(m[1]!, 'numFmtId') ?? 0);
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
function relationships(xml: string | null, folder: string): Map<string, { type: string; path: string }> {
  const rels = new Map<string, { type: string; path: string }>();
  for (const m of (xml ?? '').matchAll(/<(?:\w+:)?Relationship\s([^>]*?)\/?>/g)) {
    const id = attribute(m[1]!, 'Id');
    const target = attribute(m[1]!, 'Target');
    if (id && target) rels.set(id, { type: attribute(m[1]!, 'Type') ?? '', path: resolveTarget(folder, target) });
  }
  return rels;
}

export type SheetRows = Array<{ row: number; cells: string[] }>;

/** Rows parsed between two turns of the event loop, so a large sheet does not hold other requests up. */
const rowsPerTurn = 2000;

/**
 * Every row of the first worksheet that has a value, with 1-based row numbers and 0-based cells as text (numbers
 * as JavaScript prints them, dates as ISO times, booleans as true/false, formulas as their last result), untrimmed.
 * A file that is not an .xlsx, or inflates past `maxBytes`, is a SpreadsheetError.
 */
export async function readXlsx(bytes: Buffer, maxBytes: number): Promise<SheetRows> {
  const archive = unzip(bytes, maxBytes);
  const text = async (name: string) => (await archive.read(name))?.toString('utf8') ?? null;
  const root = relationships(await text('_rels/.rels'), '');
  const workbookPath =
    [...root.values()].find((r) => r.type.endsWith('/officeDocument'))?.path ??
    (archive.names.includes('xl/workbook.xml') ? 'xl/workbook.xml' : undefined);
  const workbook = workbookPath ? await text(workbookPath) : null;
  if (!workbookPath || workbook === null) throw new SpreadsheetError('not an .xlsx file (no workbook)');
  const folder = workbookPath.slice(0, workbookPath.lastIndexOf('/') + 1);
  const slash = workbookPath.lastIndexOf('/');
  const rels = relationships(await text(`${folder}_rels/${workbookPath.slice(slash + 1)}.rels`), folder);
  const firstSheet = /<(?:\w+:)?sheet\s([^>]*?)\/?>/.exec(workbook)?.[1];
  const sheetPath = firstSheet ? rels.get(attribute(firstSheet, 'id') ?? '')?.path : undefined;
  const sheet = sheetPath ? await text(sheetPath) : null;
  if (sheet === null) return [];
  const date1904 = /<(?:\w+:)?workbookPr\s[^>]*date1904\s*=\s*["'](1|true)["']/.test(workbook);
  const relOf = (type: string) => [...rels.values()].find((r) => r.type.endsWith(`/${type}`))?.path;
  const sharedPath = relOf('sharedStrings');
  const sharedXml = sharedPath ? await text(sharedPath) : null;
  const shared = sharedXml
    ? [...sharedXml.matchAll(/<(?:\w+:)?si>([\s\S]*?)<\/(?:\w+:)?si>|<(?:\w+:)?si\/>/g)].map((m) => texts(m[1] ?? ''))
    : [];
  const stylesPath = relOf('styles');
  const dates = dateStyles(stylesPath ? await text(stylesPath) : null);

  const rows: SheetRows = [];
  let rowNumber = 0;
  let parsed = 0;
  for (const rowMatch of sheet.matchAll(/<(?:\w+:)?row\b([^>]*?)(?:\/>|>([\s\S]*?)<\/(?:\w+:)?row>)/g)) {
    if (++parsed % rowsPerTurn === 0) await new Promise((resolve) => setImmediate(resolve));
    const r = Number(attribute(rowMatch[1]!, 'r'));
    rowNumber = Number.isInteger(r) && r > 0 ? r : rowNumber + 1;
    const cells: string[] = [];
    let hasValue = false;
    let column = -1;
    for (const cellMatch of (rowMatch[2] ?? '').matchAll(/<(?:\w+:)?c\b([^>]*?)(?:\/>|>([\s\S]*?)<\/(?:\w+:)?c>)/g)) {
      const tag = cellMatch[1]!;
      column = columnOf(attribute(tag, 'r')) ?? column + 1;
      const body = cellMatch[2] ?? '';
      const type = attribute(tag, 't') ?? 'n';
      const v = /<(?:\w+:)?v(?:\s[^>]*)?>([\s\S]*?)<\/(?:\w+:)?v>/.exec(body)?.[1];
      let value: string | undefined;
      if (type === 'inlineStr') value = /<(?:\w+:)?is>/.test(body) ? texts(body) : undefined;
      else if (v === undefined) value = undefined;
      else if (type === 's') value = shared[Number(v)] ?? '';
      else if (type === 'str') value = unescapeXml(v);
      else if (type === 'b') value = v.trim() === '1' || v.trim() === 'true' ? 'true' : 'false';
      else if (type === 'e') value = '';
      else if (type === 'd') {
        const time = Date.parse(unescapeXml(v));
        value = Number.isNaN(time) ? unescapeXml(v) : new Date(time).toISOString();
      } else {
        const n = Number.parseFloat(v);
        value = Number.isNaN(n) ? '' : dates[Number(attribute(tag, 's') ?? 0)] ? serialToIso(n, date1904) : String(n);
      }
      cells[column] = value ?? '';
      if (value !== undefined) hasValue = true;
    }
    if (hasValue) rows.push({ row: rowNumber, cells: Array.from(cells, (c) => c ?? '') });
  }
  return rows;
}
