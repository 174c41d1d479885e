// The .xlsx reader's bounds and refusals (src/domain/xlsx.ts), fast: the file `npm run mutate -- xlsx` runs first.
// Every file here is a real .xlsx that writeXlsx made, its ZIP entries rewritten (a byte budget met exactly and
// missed by one, a damaged directory, a truncated entry, an unknown compression, damaged deflate data), and each
// refusal is a SpreadsheetError whose message says what is wrong. Tags: prefixes, quotes, a repeated attribute,
// only the first <cellXfs>. The large files (a 64 MB bomb, hostile sheets, the event loop's turns): xlsx.test.ts.
import t from 'tap';
import { constants, deflateRawSync, inflateRawSync } from 'node:zlib';
import { readXlsx, writeXlsx } from '../../src/domain/xlsx.js';
import { type ZipEntry, zipEntries, zipOf } from '../support/zip.js';

type Entry = ZipEntry;
const mb = 1024 * 1024;

/** The entries of a file writeXlsx made, inflated. */
const entriesOf = (xlsx: Buffer): Entry[] =>
  zipEntries(xlsx).map(({ name, data }) => {
    const inflated = inflateRawSync(data);
    return { name, data: inflated, method: 0, size: inflated.length };
  });

const deflated = (entries: Entry[]) =>
  entries.map((e) => ({ ...e, data: deflateRawSync(e.data), method: 8, size: e.data.length }));
/** The parts readXlsx reads of a one-sheet file: all but [Content_Types].xml and docProps/core.xml. */
const readParts = [
  '_rels/.rels',
  'xl/workbook.xml',
  'xl/_rels/workbook.xml.rels',
  'xl/worksheets/sheet1.xml',
  'xl/sharedStrings.xml',
  'xl/styles.xml',
];

t.test('the parts read may inflate to maxBytes together: exactly that reads, a byte less is refused', async (t) => {
  const plain = entriesOf(await writeXlsx('S', ['Name', 'Sum'], [['Anna', 12.5]]));
  const total = plain.filter((e) => readParts.includes(e.name)).reduce((sum, e) => sum + e.size, 0);
  const expected = [
    { row: 1, cells: ['Name', 'Sum'] },
    { row: 2, cells: ['Anna', '12.5'] },
  ];
  for (const [how, file] of [
    ['stored', zipOf(plain)],
    ['deflated', zipOf(deflated(plain))],
  ] as const) {
    t.same(await readXlsx(file, total), expected, `${how}: ${total} bytes, the bound`);
    await t.rejects(
      readXlsx(file, total - 1),
      { name: 'SpreadsheetError', message: `it inflates to more than ${total - 1} bytes` },
      `${how}: one byte past the bound`,
    );
    const sheet = plain.find((e) => e.name === 'xl/worksheets/sheet1.xml')!.size;
    await t.rejects(readXlsx(file, sheet), { message: `it inflates to more than ${sheet} bytes` }, `${how}: the sheet`);
  }
});

t.test('a part is refused as it inflates past the bound, before the rest of it is read', async (t) => {
  // 2 MB of spaces, the deflate stream never finished: inflated whole it is damaged; cut at the bound it is too large
  const plain = entriesOf(await writeXlsx('S', ['a'], [['b']]));
  const unfinished = deflateRawSync(Buffer.alloc(2 * mb, ' '), { finishFlush: constants.Z_SYNC_FLUSH });
  const file = zipOf(
    deflated(plain).map((e) => (e.name === 'xl/worksheets/sheet1.xml' ? { ...e, data: unfinished, size: 2 * mb } : e)),
  );
  await t.rejects(readXlsx(file, mb), { message: `it inflates to more than ${mb} bytes` });
  const whole = await readXlsx(file, 4 * mb).catch((e: Error) => e.message);
  t.match(whole, /^damaged ZIP entry xl\/worksheets\/sheet1\.xml: /, 'within the bound: damaged');
});

t.test('extra fields and comments in the headers are skipped', async (t) => {
  const plain = entriesOf(await writeXlsx('S', ['a'], [['b']]));
  const rows = [
    { row: 1, cells: ['a'] },
    { row: 2, cells: ['b'] },
  ];
  const decorated = (entries: Entry[]) =>
    entries.map((e, i) => ({ ...e, extra: Buffer.alloc(4 + i, 7), comment: Buffer.from(`entry ${i}`) }));
  t.same(await readXlsx(zipOf(decorated(plain)), mb), rows, 'stored');
  t.same(await readXlsx(zipOf(decorated(deflated(plain))), mb), rows, 'deflated');
});

t.test('a damaged file is a SpreadsheetError saying what is wrong, never another error', async (t) => {
  const plain = entriesOf(await writeXlsx('S', ['a'], [['b']]));
  const good = zipOf(deflated(plain));
  const endAt = good.length - 22;
  const centralAt = good.readUInt32LE(endAt + 16);
  // the whole message: t.rejects would take a string as a part of it
  const refused = async (file: Buffer, message: string | RegExp, what: string) => {
    const err = await readXlsx(file, mb).then(
      () => null,
      (e: Error) => e,
    );
    t.equal(err?.name, 'SpreadsheetError', `${what}: a SpreadsheetError`);
    if (typeof message === 'string') t.equal(err?.message, message, what);
    else t.match(err?.message, message, what);
  };
  const patched = (at: number, value: number, bytes = 4) => {
    const copy = Buffer.from(good);
    if (bytes === 4) copy.writeUInt32LE(value, at);
    else copy.writeUInt16LE(value, at);
    return copy;
  };

  await refused(Buffer.from('not a zip'), 'not an .xlsx file (no ZIP directory)', 'not a ZIP');
  await refused(Buffer.alloc(100), 'not an .xlsx file (no ZIP directory)', '100 zero bytes');
  await refused(good.subarray(0, good.length - 1), 'not an .xlsx file (no ZIP directory)', 'the end record cut');
  await refused(Buffer.from([0x50, 0x4b, 0x05, 0x06]), 'not an .xlsx file (no ZIP directory)', 'a bare signature');
  await refused(zipOf([]), 'not an .xlsx file (no workbook)', 'an empty ZIP: 22 bytes, nothing in it');
  await refused(patched(endAt + 16, good.length - 2), 'damaged ZIP directory', 'the directory past the end');
  await refused(patched(endAt + 16, 0), 'damaged ZIP directory', 'the directory at a local header');
  await refused(patched(endAt + 10, plain.length + 1), 'damaged ZIP directory', 'one entry more than there are');
  const first = plain[0]!.name;
  await refused(patched(centralAt + 42, good.length - 2), `damaged ZIP entry ${first}`, 'a local header past the end');
  await refused(
    patched(centralAt + 42, good.length - 30),
    `damaged ZIP entry ${first}`,
    'a local header 30 bytes before the end',
  );
  await refused(patched(centralAt + 42, centralAt), `damaged ZIP entry ${first}`, 'a local header that is not one');
  await refused(patched(centralAt + 20, good.length), `truncated ZIP entry ${first}`, 'an entry longer than the file');

  const sheetNamed = (over: Partial<Entry>) =>
    zipOf(deflated(plain).map((e) => (e.name === 'xl/worksheets/sheet1.xml' ? { ...e, ...over } : e)));
  await refused(
    sheetNamed({ method: 12 }),
    'ZIP entry xl/worksheets/sheet1.xml uses compression method 12',
    'an unknown compression method',
  );
  await refused(
    sheetNamed({ data: Buffer.from([0xff, 0xff, 0xff, 0xff]) }),
    /^damaged ZIP entry xl\/worksheets\/sheet1\.xml: ./,
    'deflate data that is not',
  );
  // a long name is cut to 100 characters in the message
  const long = `xl/${'n'.repeat(300)}.xml`;
  const withLong = zipOf([...deflated(plain), { name: long, data: Buffer.alloc(10), method: 8, size: 10 }]);
  // the last central entry is the long one: its local header offset made to point past the end
  const lastCentral = withLong.length - 22 - (46 + Buffer.byteLength(long));
  const damagedLong = Buffer.from(withLong);
  damagedLong.writeUInt32LE(withLong.length, lastCentral + 42);
  await refused(damagedLong, `damaged ZIP entry ${long.slice(0, 100)}`, 'a long name, cut');
  const truncatedLong = Buffer.from(withLong);
  truncatedLong.writeUInt32LE(withLong.length, lastCentral + 20);
  await refused(truncatedLong, `truncated ZIP entry ${long.slice(0, 100)}`, 'a long name, cut');
  const rels =
    '<Relationships><Relationship Id="rId1" Target="/' +
    long +
    '" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"/></Relationships>';
  const longWorkbook = (over: Partial<Entry>) =>
    zipOf([
      ...deflated(plain).filter((e) => e.name !== '_rels/.rels'),
      { name: '_rels/.rels', data: Buffer.from(rels), method: 0, size: rels.length },
      { name: long, data: deflateRawSync('<workbook/>'), method: 8, size: 11, ...over },
    ]);
  t.same(await readXlsx(longWorkbook({}), mb), [], 'the long-named workbook is read (it has no sheet)');
  await refused(
    longWorkbook({ method: 12 }),
    `ZIP entry ${long.slice(0, 100)} uses compression method 12`,
    'a long name, unknown compression',
  );
  await refused(
    longWorkbook({ data: Buffer.from([0xff, 0xff, 0xff, 0xff]) }),
    new RegExp(`^damaged ZIP entry ${long.slice(0, 100)}: .`),
    'a long name, damaged deflate data',
  );
  t.notMatch(
    await readXlsx(longWorkbook({ data: Buffer.from([0xff, 0xff]) }), mb).catch((e: Error) => e.message),
    long.slice(0, 101),
  );
});

t.test('where the workbook and its first sheet are; what has no sheet reads as no rows', async (t) => {
  const plain = entriesOf(await writeXlsx('S', ['a'], [['b']]));
  const rows = [
    { row: 1, cells: ['a'] },
    { row: 2, cells: ['b'] },
  ];
  const without = (name: string) => zipOf(plain.filter((e) => e.name !== name));
  const replaced = (name: string, text: string) =>
    zipOf(plain.map((e) => (e.name === name ? { ...e, data: Buffer.from(text), size: Buffer.byteLength(text) } : e)));
  t.same(await readXlsx(without('_rels/.rels'), mb), rows, 'no package relationships: xl/workbook.xml');
  await t.rejects(readXlsx(without('xl/workbook.xml'), mb), { message: 'not an .xlsx file (no workbook)' });
  const rels = (target: string) =>
    '<Relationships><Relationship Id="rId1" ' +
    `Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="${target}"/>` +
    '</Relationships>';
  await t.rejects(readXlsx(replaced('_rels/.rels', rels('book/main.xml')), mb), {
    message: 'not an .xlsx file (no workbook)',
  });
  t.same(await readXlsx(replaced('_rels/.rels', rels('/xl/workbook.xml')), mb), rows, 'an absolute target');
  t.same(await readXlsx(replaced('_rels/.rels', '<Relationships/>'), mb), rows, 'no officeDocument: the usual place');
  const coreFirst =
    '<Relationships><Relationship Id="rId2" Target="docProps/core.xml" ' +
    'Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties"/>' +
    rels('xl/workbook.xml').slice('<Relationships>'.length);
  t.same(await readXlsx(replaced('_rels/.rels', coreFirst), mb), rows, 'the officeDocument one, not the first');
  t.same(await readXlsx(without('xl/worksheets/sheet1.xml'), mb), [], 'no sheet: no rows');
  t.same(await readXlsx(without('xl/_rels/workbook.xml.rels'), mb), [], 'no workbook relationships: no sheet');
  t.same(await readXlsx(replaced('xl/workbook.xml', '<workbook><sheets/></workbook>'), mb), [], 'no sheet listed');
});

t.test('tags: prefixes, quotes, a repeated attribute, what ends a read; only the first <cellXfs>', async (t) => {
  const plain = entriesOf(await writeXlsx('S', ['a'], [['b']]));
  const withPart = (name: string, text: string) =>
    zipOf(plain.map((e) => (e.name === name ? { ...e, data: Buffer.from(text), size: Buffer.byteLength(text) } : e)));
  const sheet = async (data: string) =>
    readXlsx(
      withPart(
        'xl/worksheets/sheet1.xml',
        `<ss:worksheet xmlns:ss="m"><ss:sheetData>${data}</ss:sheetData></ss:worksheet>`,
      ),
      mb,
    );

  t.same(
    await sheet(`<ss:row r='3'><ss:c r="B3" t="inlineStr"><ss:is><ss:t>hi &amp; bye</ss:t></ss:is></ss:c></ss:row>`),
    [{ row: 3, cells: ['', 'hi & bye'] }],
    'prefixed tags, single quotes',
  );
  t.same(
    await sheet('<row r="2"><c r="C2" r="A2" s="0"><v>7</v></c></row>'),
    [{ row: 2, cells: ['', '', '7'] }],
    'a repeated attribute: the first counts',
  );
  t.same(
    await sheet('<row  r = "4" ><c x:r="B4"\tt = "str"><v>t</v></c></row>'),
    [{ row: 4, cells: ['', 't'] }],
    'spaces around =, a prefixed attribute',
  );
  t.same(
    await sheet('<row r="5"><c t="str" r="B5><v>u</v></c></row>'),
    [{ row: 5, cells: ['u'] }],
    'an unclosed quote ends the attributes: the cell is the next column',
  );
  t.same(
    await sheet('<row r="6"><c bad r="C6"><v>8</v></c></row>'),
    [{ row: 6, cells: ['8'] }],
    'what is not name="value" ends the attributes',
  );
  t.same(
    await sheet(
      '<row r="7"/><c r="A7" t="str"><v>x</v></c></row>' +
        '<row r="8"><c r="A8"/><v>5</v></c><c r="B8" t="str"><v>z</v></c></row>',
    ),
    [{ row: 8, cells: ['', 'z'] }],
    'what follows an empty row or an empty cell is in neither',
  );
  t.same(await sheet('<row r="9"><c r="A9"><v>1</v>'), [], 'a row never closed is not read');

  // styles: a number in style 1 is a date only if the first <cellXfs>'s second format is a date; a later <cellXfs>
  // is not read
  const styles = (first: string, second: string) =>
    `<styleSheet><cellXfs count="2"><xf numFmtId="0"/>${first}</cellXfs><cellXfs>${second}</cellXfs></styleSheet>`;
  const cellIn = (style: number) =>
    `<worksheet><sheetData><row r="1"><c r="A1" s="${style}"><v>45000</v></c></row></sheetData></worksheet>`;
  const read = async (stylesXml: string, style: number) =>
    readXlsx(
      zipOf(
        plain.map((e) => {
          const text =
            e.name === 'xl/styles.xml' ? stylesXml : e.name === 'xl/worksheets/sheet1.xml' ? cellIn(style) : null;
          return text === null ? e : { ...e, data: Buffer.from(text), size: Buffer.byteLength(text) };
        }),
      ),
      mb,
    );
  t.same(await read(styles('<xf numFmtId="14"/>', ''), 1), [{ row: 1, cells: ['2023-03-15T00:00:00.000Z'] }]);
  t.same(await read(styles('<xf numFmtId="0"/>', '<xf numFmtId="14"/>'), 1), [{ row: 1, cells: ['45000'] }]);
  t.same(
    await read(styles('<xf numFmtId="0"/>', '<xf numFmtId="14"/><xf numFmtId="14"/>'), 2),
    [{ row: 1, cells: ['45000'] }],
    'a style only the second <cellXfs> has: not a date',
  );
});
