// src/domain/xlsx.ts, the .xlsx writer and reader that replaced exceljs at run time (issue 47): exceljs, now only a
// development dependency, is the reference. Files we write are read back by exceljs; files exceljs writes (shared
// and rich strings, numbers, dates, formulas, booleans, hyperlinks) read as the exceljs-based reader read them.
import t from 'tap';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import ExcelJS from 'exceljs';
import { readXlsx, writeXlsx } from '../../src/domain/xlsx.js';
import { zipEntries, zipOf } from '../support/zip.js';

const arrayBuffer = (b: Buffer) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
const mb = 1024 * 1024;

/** What src/domain/spreadsheets.ts read through exceljs before (its cellText and readXlsx, untrimmed). */
async function readWithExceljs(bytes: Buffer) {
  const cellText = (v: ExcelJS.CellValue): string => {
    if (v === null || v === undefined) return '';
    if (typeof v === 'string') return v;
    if (typeof v === 'number' || typeof v === 'boolean') return String(v);
    if (v instanceof Date) return v.toISOString();
    if ('richText' in v) return v.richText.map((r) => r.text).join('');
    if ('text' in v && typeof v.text === 'string') return v.text;
    if ('result' in v) return v.result === undefined ? '' : cellText(v.result as ExcelJS.CellValue);
    return '';
  };
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(arrayBuffer(bytes));
  const rows: Array<{ row: number; cells: string[] }> = [];
  wb.worksheets[0]!.eachRow({ includeEmpty: false }, (row, rowNumber) => {
    const cells: string[] = [];
    row.eachCell({ includeEmpty: true }, (cell, col) => {
      cells[col - 1] = cellText(cell.value);
    });
    rows.push({ row: rowNumber, cells: Array.from(cells, (c) => c ?? '') });
  });
  return rows;
}

t.test('a written sheet reads back in exceljs: header in bold, text, numbers, empty cells, widths', async (t) => {
  const rows = [
    ['w-1', 'Иванова Анна', 1250.5, null, '2026-03-02T09:00:00.000Z'],
    ['w-2', 'a < b & "c" \u0001', -3, 'x', '  spaced  '],
  ];
  const bytes = await writeXlsx('Wallets', ['Wallet ID', 'Employee', 'Balance', 'Note', 'At'], rows);
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(arrayBuffer(bytes));
  const ws = wb.worksheets[0]!;
  t.equal(ws.name, 'Wallets');
  t.equal(ws.rowCount, 3);
  t.same((ws.getRow(1).values as unknown[]).slice(1), ['Wallet ID', 'Employee', 'Balance', 'Note', 'At']);
  t.equal(ws.getRow(1).getCell(1).font?.bold, true);
  t.same((ws.getRow(2).values as unknown[]).slice(1), ['w-1', 'Иванова Анна', 1250.5, undefined, rows[0]![4]]);
  t.equal(ws.getRow(3).getCell(2).value, 'a < b & "c" ', 'XML characters escaped, control characters dropped');
  t.equal(ws.getRow(3).getCell(5).value, '  spaced  ');
  t.equal(ws.getColumn(1).width, 22);
  t.same(await readXlsx(bytes, mb), await readWithExceljs(bytes), 'our reader reads it as exceljs does');
  t.same(await writeXlsx('Wallets', ['Wallet ID'], [['w-1']]), await writeXlsx('Wallets', ['Wallet ID'], [['w-1']]));
});

t.test('a sheet exceljs writes reads as the exceljs-based reader read it', async (t) => {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Начисления');
  ws.addRow(['E-mail', 'Сумма', 'Комментарий']);
  ws.addRow(['a@example.test', 100, 'За проект']);
  ws.addRow(['b@example.test', '25.5', '']);
  ws.addRow([]); // an empty row is skipped
  ws.getRow(6).values = [
    { richText: [{ text: 'rich ' }, { text: 'text', font: { bold: true } }] },
    { formula: 'B2*2', result: 200 },
    { text: 'a link', hyperlink: 'https://example.test' },
    true,
    new Date('2026-03-02T09:30:00.000Z'),
    0.1 + 0.2,
  ];
  ws.getRow(7).getCell(3).value = 45000;
  ws.getRow(7).getCell(3).numFmt = 'dd.mm.yyyy';
  ws.getRow(7).getCell(5).value = { formula: 'A1', result: 'text result' };
  ws.getRow(8).getCell(2).value = false;
  const bytes = Buffer.from((await wb.xlsx.writeBuffer()) as ArrayBuffer);
  const ours = await readXlsx(bytes, mb);
  t.same(ours, await readWithExceljs(bytes));
  t.same(ours[3], {
    row: 6,
    cells: ['rich text', '200', 'a link', 'true', '2026-03-02T09:30:00.000Z', String(0.1 + 0.2)],
  });
  t.same(ours[4]?.cells.slice(2), ['2023-03-15T00:00:00.000Z', '', 'text result']);
});

t.test('what is not an .xlsx, or inflates past the bound, is a SpreadsheetError, not a crash', async (t) => {
  await t.rejects(readXlsx(Buffer.from('not a zip'), mb), { name: 'SpreadsheetError' });
  await t.rejects(readXlsx(Buffer.alloc(0), mb), { name: 'SpreadsheetError' });
  const good = await writeXlsx('S', ['a'], [['b']]);
  await t.rejects(readXlsx(good.subarray(0, good.length - 40), mb), { name: 'SpreadsheetError' }, 'a truncated file');

  // a small file whose sheet inflates to 64 MB: refused past the bound, without inflating all of it
  const sheetXml = Buffer.alloc(64 * mb, ' ');
  const bomb = Buffer.from(await writeXlsx('S', ['a'], [['b']]));
  const packed = deflateRawSync(sheetXml);
  t.ok(packed.length < 100_000, `${packed.length} bytes packed`);
  const withBomb = await zipWithSheet(bomb, packed, sheetXml.length);
  await t.rejects(readXlsx(withBomb, mb), { message: /inflates to more than 1048576 bytes/ });
  t.same(await readXlsx(withBomb, 128 * mb), [], 'below the bound it reads (a sheet of spaces has no rows)');
});

t.test(
  'hostile sheets are read in one pass: start tags without end tags, an attribute without its quote',
  { timeout: 300_000 },
  async (t) => {
    // The reader matched whole elements with lazy patterns, which scan to the end of the text for every start tag that
    // has no end tag: 20,000 `<row>` (a 1.3 KB upload) held the event loop for 0.26 s, and these would hold it for
    // hours. Each read here is a few seconds at most; the timeout is a guard against the hang, not a speed check.
    const inRow = (cells: string) => `<worksheet><sheetData><row>${cells}</row></sheetData></worksheet>`;
    const hostile = {
      '2,000,000 <row> without </row>': `<worksheet><sheetData>${'<row>'.repeat(2_000_000)}</sheetData></worksheet>`,
      'a cell whose start tag opens 1,000,000 quotes': inRow(`<c${' r="'.repeat(1_000_000)}></c>`),
      '1,000,000 <t> without </t> in an inline string': inRow(
        `<c t="inlineStr"><is>${'<t>'.repeat(1_000_000)}</is></c>`,
      ),
    };
    const base = Buffer.from(await writeXlsx('S', ['a'], [['b']]));
    for (const [name, xml] of Object.entries(hostile)) {
      const sheetXml = Buffer.from(xml);
      const file = await zipWithSheet(base, deflateRawSync(sheetXml), sheetXml.length);
      const rows = await readXlsx(file, 64 * mb);
      t.ok(rows.length <= 1, `${name}: read (${rows.length} rows)`);
    }
  },
);

/**
 * `xlsx` with its sheet's data replaced by `packed` (deflated, `size` bytes inflated): the entries rewritten. `stored`:
 * every entry stored as it is (method 0, `packed` the sheet's own bytes), so that reading it inflates nothing.
 */
async function zipWithSheet(xlsx: Buffer, packed: Buffer, size: number, stored = false): Promise<Buffer> {
  const entries = zipEntries(xlsx);
  const sheet = entries.find((e) => e.name === 'xl/worksheets/sheet1.xml')!;
  Object.assign(sheet, { data: packed, size, crc: 0 });
  if (stored) for (const e of entries) if (e !== sheet) e.data = inflateRawSync(e.data);
  return zipOf(entries.map((e) => ({ ...e, method: stored ? 0 : 8 })));
}

t.test('a large part lets the event loop turn while it is read', async (t) => {
  // 400,000 tags: the reader turns the loop every 20,000 (eachTag), so other requests are not held up by one upload.
  // Counted as turns of a setImmediate chain while the read runs, not as time; every part stored, not deflated, so
  // that no inflate (which runs off the loop) turns it instead
  const sheetXml = Buffer.from(`<worksheet><sheetData>${'<row r="1"/>'.repeat(400_000)}</sheetData></worksheet>`);
  const base = Buffer.from(await writeXlsx('S', ['a'], [['b']]));
  const file = await zipWithSheet(base, sheetXml, sheetXml.length, true);
  let turns = 0;
  let reading = true;
  const turn = () => {
    if (!reading) return;
    turns++;
    setImmediate(turn);
  };
  setImmediate(turn);
  const rows = await readXlsx(file, 64 * mb);
  reading = false;
  t.ok(rows.length <= 1, `read (${rows.length} rows)`);
  t.ok(
    turns >= 18 && turns <= 40,
    `the loop turned ${turns} times during the read (400,000 tags, a turn every 20,000)`,
  );
});
