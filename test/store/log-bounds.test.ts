// src/store/log.ts as plain functions over real files (no app, no socket): a sandbox's log, its snapshot and its mark
// written by SandboxLog and read back by loadSandbox. What start-up refuses (a log missing acknowledged lines, even
// only the last one, a damaged line, a mark that does not parse or is missing), what it repairs (a torn last line, an
// empty first log), the compaction bound, the mark rewritten in place. Run first by `npm run mutate -- log`.
import t from 'tap';
import { appendFileSync, existsSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compactFromBytes, DataError, loadSandbox, persistedNames, SandboxLog } from '../../src/store/log.js';
import { SandboxStore } from '../../src/store/store.js';
import { Worlds } from '../../src/store/world.js';
import { defaultFixturesPath, loadFixtures } from '../../src/store/fixtures.js';
import { seedData } from '../../src/store/seed/index.js';
import { tempDir } from '../support/temp-dir.js';

const fixtures = loadFixtures(defaultFixturesPath);
const users = 20;
const worlds = new Worlds({
  refDate: new Date('2026-03-02T00:00:00.000Z'),
  users,
  generate: (seed, at) => seedData(fixtures, { seed, refDate: at, size: { users } }),
});
const world = worlds.get(42);
const tenantId = Object.keys(world.data.tenants)[0]!;
const name = 'bug-7';

/** A new sandbox's store and log in `dir`, as the registry makes them. */
function fresh(dir: string) {
  const store = new SandboxStore(name, world, { recordChanges: true });
  const log = new SandboxLog(dir, name, { lastLine: 0, bytes: 0, origin: world, createdAt: '2026-03-02T09:00:00Z' });
  return { store, log };
}

/** One department more (a record of the sandbox's own), committed as one line. */
function addDepartment(store: SandboxStore, log: SandboxLog, i: number) {
  const tenant = store.tenant(tenantId)!;
  const id = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
  store.insert(tenant, 'departments', { ...tenant.departments[0]!, id, name: `dept ${i}` });
  log.commit(store, { before: {}, changed: null });
}

/** A sandbox with `n` department lines and a scenario line, closed; its files' paths. */
function written(dir: string, n: number) {
  const { store, log } = fresh(dir);
  for (let i = 1; i <= n; i++) addDepartment(store, log, i);
  log.commit(store, { before: {}, changed: { scenario: 'flaky' } });
  log.close();
  return { logFile: log.logFile, snapshotFile: log.snapshotFile, markFile: log.markFile, lines: n + 1 };
}

const linesOf = (file: string) => readFileSync(file, 'utf8').split('\n').slice(0, -1);
const deptNames = (store: SandboxStore) =>
  store
    .tenant(tenantId)!
    .departments.map((d) => d.name)
    .filter((n) => n.startsWith('dept '));

/** loadSandbox's error, or null when it loads. */
function refusal(dir: string, warn: (m: string) => void = () => {}): Error | null {
  try {
    loadSandbox(dir, name, worlds, warn);
    return null;
  } catch (err) {
    return err as Error;
  }
}

t.test('commits write a first snapshot, one numbered line each and the mark; a load gives them back', async (t) => {
  const dir = tempDir(t, 'pm-log-');
  const { store, log } = fresh(dir);
  t.ok(log.isNew, 'no files yet');
  log.commit(store, { before: {}, changed: null });
  t.notOk(existsSync(log.logFile), 'nothing changed: nothing written');
  addDepartment(store, log, 1);
  t.notOk(log.isNew, 'the first commit wrote its files');
  const first = JSON.parse(readFileSync(log.snapshotFile, 'utf8'));
  t.same(
    { format: first.format, version: first.version, upTo: first.upTo, marked: first.marked },
    { format: 'portal-mock-sandbox', version: 2, upTo: 0, marked: true },
  );
  t.equal(first.createdAt, '2026-03-02T09:00:00Z');
  t.same(first.state.tenants[tenantId], { collections: {} }, 'the first snapshot is the world, unchanged');
  store.mint('a code');
  store.mint('another');
  addDepartment(store, log, 2);
  log.commit(store, { before: {}, changed: { scenario: 'flaky' } });
  const lines = linesOf(log.logFile).map((l) => JSON.parse(l));
  t.same(
    lines.map((l) => l.n),
    [1, 2, 3],
  );
  t.equal(lines[0].ops[0][0], 'i');
  t.same(lines[2].ops, [], 'a settings line has no ops');
  t.same(lines[2].settings, { scenario: 'flaky' });
  t.notOk('settings' in lines[0], 'a line without changed settings has none');
  t.equal(lines[1].seq, 2, 'the sequence after the line');
  t.equal(lines[2].seq, 2, 'a settings line keeps it');
  t.same(JSON.parse(readFileSync(log.markFile, 'utf8')), { acknowledged: 3 });
  log.close();
  addDepartment(store, log, 3);
  t.equal(linesOf(log.logFile).length, 3, 'a closed log writes nothing');

  const warnings: string[] = [];
  const loaded = loadSandbox(dir, name, worlds, (m) => warnings.push(m))!;
  t.same(warnings, []);
  t.same(deptNames(loaded.store), ['dept 1', 'dept 2']);
  t.same(loaded.settings, { scenario: 'flaky' });
  t.equal(loaded.store.meta.sequence, 2, 'the sequence replayed: the next mint is the same');
  t.equal(loaded.log.createdAt, '2026-03-02T09:00:00Z');
  t.notOk(loaded.log.isNew);
  // the next line continues the numbering
  addDepartment(loaded.store, loaded.log, 4);
  loaded.log.close();
  t.equal(JSON.parse(linesOf(loaded.log.logFile).at(-1)!).n, 4);
  t.same(JSON.parse(readFileSync(loaded.log.markFile, 'utf8')), { acknowledged: 4 });
});

t.test('the mark is rewritten in place at a fixed width; one removed meanwhile is made again', async (t) => {
  const dir = tempDir(t, 'pm-log-mark-');
  const store = new SandboxStore(name, world, { recordChanges: true });
  const log = new SandboxLog(dir, name, { lastLine: 99, bytes: 0, origin: world });
  addDepartment(store, log, 1);
  const mark = readFileSync(log.markFile, 'utf8');
  t.equal(mark.length, 48, 'fixed width');
  t.ok(mark.endsWith('\n'));
  t.same(JSON.parse(mark), { acknowledged: 100 });
  // a shorter number over a longer one leaves no digit behind
  writeFileSync(log.markFile, `${'{"acknowledged":123456789}'.padEnd(47)}\n`);
  addDepartment(store, log, 2);
  t.same(JSON.parse(readFileSync(log.markFile, 'utf8')), { acknowledged: 101 });
  t.equal(statSync(log.markFile).size, 48);
  rmSync(log.markFile);
  addDepartment(store, log, 3);
  t.same(JSON.parse(readFileSync(log.markFile, 'utf8')), { acknowledged: 102 }, 'made again');
  log.close();
});

t.test('a log missing only its last acknowledged line, or several, is refused and left as it was', async (t) => {
  const dir = tempDir(t, 'pm-log-cut-');
  const files = written(dir, 3);
  const whole = readFileSync(files.logFile);
  const lines = linesOf(files.logFile);
  const cutTo = (n: number) =>
    Buffer.byteLength(
      lines
        .slice(0, n)
        .map((l) => `${l}\n`)
        .join(''),
    );

  truncateSync(files.logFile, cutTo(3));
  const one = refusal(dir);
  t.ok(one instanceof DataError);
  t.equal(
    one?.message,
    `${files.logFile}: line 4 is missing: the log ends at byte ${cutTo(3)} after line 3, but ${files.markFile} ` +
      'says line 4 was acknowledged (the log was cut short): acknowledged writes are lost; move it away or delete ' +
      'it to start that sandbox fresh',
  );
  t.equal(statSync(files.logFile).size, cutTo(3), 'left as it was');

  truncateSync(files.logFile, cutTo(1));
  t.match(refusal(dir)?.message, `: lines 2 to 4 are missing: the log ends at byte ${cutTo(1)} after line 1,`);
  truncateSync(files.logFile, 0);
  t.match(refusal(dir)?.message, ': lines 1 to 4 are missing: the log ends at byte 0 after line 0,');

  // cut inside a line: it looks torn, but the mark says it was acknowledged; nothing is cut from the file
  writeFileSync(files.logFile, whole.subarray(0, cutTo(3) + 5));
  t.match(refusal(dir)?.message, ': line 4 is missing: the log ends at byte ');
  t.equal(statSync(files.logFile).size, cutTo(3) + 5);

  writeFileSync(files.logFile, whole);
  t.equal(refusal(dir), null, 'the whole log loads');
});

t.test('a torn last line never acknowledged is dropped with a warning and cut from the file', async (t) => {
  const dir = tempDir(t, 'pm-log-torn-');
  const files = written(dir, 2);
  const size = statSync(files.logFile).size;
  appendFileSync(files.logFile, '{"n":4,"seq":1,"ops":[["i","x","depa');
  const warnings: string[] = [];
  const loaded = loadSandbox(dir, name, worlds, (m) => warnings.push(m))!;
  t.same(warnings, [
    `${files.logFile}: dropped a torn last line at byte ${size} (36 bytes, a write cut short by a crash); it was ` +
      'never acknowledged',
  ]);
  t.equal(statSync(files.logFile).size, size, 'cut at the end of the last whole line');
  t.same(deptNames(loaded.store), ['dept 1', 'dept 2']);

  // a whole last line that does not parse is torn too
  appendFileSync(files.logFile, 'not json\n');
  const again: string[] = [];
  loadSandbox(dir, name, worlds, (m) => again.push(m));
  t.match(again[0], `dropped a torn last line at byte ${size} (`);
  t.equal(statSync(files.logFile).size, size);
  // so is one that parses but is not a log line
  for (const line of ['{"n":4,"seq":1}', '{"n":4,"ops":[]}', '{"n":"4","seq":1,"ops":[]}', '{"seq":1,"ops":[]}']) {
    appendFileSync(files.logFile, `${line}\n`);
    const notes: string[] = [];
    loadSandbox(dir, name, worlds, (m) => notes.push(m));
    t.match(notes[0], `dropped a torn last line at byte ${size} (not a log line)`, line);
    t.equal(statSync(files.logFile).size, size);
  }
});

t.test('a damaged line before the last, a line out of order or a gap is refused, naming line and byte', async (t) => {
  const dir = tempDir(t, 'pm-log-damaged-');
  const files = written(dir, 3);
  const whole = readFileSync(files.logFile, 'utf8');
  const lines = linesOf(files.logFile);
  const at2 = Buffer.byteLength(`${lines[0]}\n`);

  writeFileSync(files.logFile, [lines[0], '{"n":2,"seq":1}', ...lines.slice(2)].map((l) => `${l}\n`).join(''));
  t.equal(
    refusal(dir)?.message,
    `${files.logFile}: line 2 (byte ${at2}) is damaged: not a log line; move it away or delete it to start that ` +
      'sandbox fresh',
  );
  writeFileSync(files.logFile, [lines[0], '{"n":2,"seq":1,"ops":{}}', ...lines.slice(2)].map((l) => `${l}\n`).join(''));
  t.match(refusal(dir)?.message, 'line 2 (byte');

  writeFileSync(files.logFile, [lines[0], lines[0], ...lines.slice(1)].map((l) => `${l}\n`).join(''));
  t.equal(
    refusal(dir)?.message,
    `${files.logFile}: line 2 (byte ${at2}) is numbered 1, after 1: out of order; move it away or delete it to ` +
      'start that sandbox fresh',
  );
  writeFileSync(files.logFile, [lines[0], lines[1], lines[0], ...lines.slice(2)].map((l) => `${l}\n`).join(''));
  t.match(
    refusal(dir)?.message,
    `line 3 (byte ${Buffer.byteLength(`${lines[0]}\n${lines[1]}\n`)}) is numbered 1, after 2`,
  );

  const skip = (n: number) => lines.filter((_, i) => i !== n).map((l) => `${l}\n`);
  writeFileSync(files.logFile, skip(1).join(''));
  t.equal(
    refusal(dir)?.message,
    `${files.logFile}: line 2 is missing (the data holds up to line 1, the next one in the file, at byte ${at2}, is ` +
      'line 3): acknowledged writes are lost; move it away or delete it to start that sandbox fresh',
  );
  writeFileSync(files.logFile, [lines[0], lines[3]].map((l) => `${l}\n`).join(''));
  t.match(refusal(dir)?.message, ': lines 2 to 3 are missing (the data holds up to line 1,');

  // a line of a collection the store does not have, or settings that do not fit
  const foreign = JSON.stringify({ n: 2, seq: 1, ops: [['i', tenantId, 'nonsense', {}]] });
  writeFileSync(files.logFile, [lines[0], foreign, ...lines.slice(2)].map((l) => `${l}\n`).join(''));
  t.equal(
    refusal(dir)?.message,
    `${files.logFile}: line 2 (byte ${at2}) does not fit the data: unknown collection nonsense; move it away or ` +
      'delete it to start that sandbox fresh',
  );
  for (const op of ['u', 'r']) {
    const line = JSON.stringify({ n: 2, seq: 1, ops: [[op, tenantId, 'nonsense', 0]] });
    writeFileSync(files.logFile, [lines[0], line, ...lines.slice(2)].map((l) => `${l}\n`).join(''));
    t.match(refusal(dir)?.message, 'does not fit the data: unknown collection nonsense', op);
  }
  const long = JSON.stringify({ n: 2, seq: 1, ops: [['i', tenantId, 'c'.repeat(50), {}]] });
  writeFileSync(files.logFile, [lines[0], long, ...lines.slice(2)].map((l) => `${l}\n`).join(''));
  t.match(refusal(dir)?.message, `unknown collection ${'c'.repeat(40)}; move it away`, 'the name cut at 40');
  const badSettings = JSON.stringify({ n: 2, seq: 1, ops: [], settings: { scenario: '' } });
  writeFileSync(files.logFile, [lines[0], badSettings, ...lines.slice(2)].map((l) => `${l}\n`).join(''));
  t.match(refusal(dir)?.message, `line 2 (byte ${at2}) does not fit the data: settings`);
  // a record of its own the log brings in is checked against its schema, as seeded ones are
  const bad = JSON.stringify({ n: 2, seq: 1, ops: [['i', tenantId, 'departments', { id: 'x' }]] });
  writeFileSync(files.logFile, [lines[0], bad, ...lines.slice(2)].map((l) => `${l}\n`).join(''));
  t.match(refusal(dir)?.message, `${files.logFile}: ${tenantId}.departments[`);

  writeFileSync(files.logFile, whole);
  t.equal(refusal(dir), null);
});

t.test('the mark: missing when the snapshot says it has one, or not a mark, is refused', async (t) => {
  const dir = tempDir(t, 'pm-log-marks-');
  const files = written(dir, 1);
  const mark = readFileSync(files.markFile, 'utf8');
  rmSync(files.markFile);
  t.equal(
    refusal(dir)?.message,
    `${files.markFile} is missing: ${files.snapshotFile} says sandbox ${name} has one, and without it a log cut ` +
      "short cannot be told from a whole one; put it back, or move the sandbox's files away to start it fresh",
  );
  for (const text of [
    '{"acknowledged":-1}',
    '{"acknowledged":1.5}',
    '{"acknowledged":"2"}',
    '{}',
    'garbage',
    'z'.repeat(99),
  ]) {
    writeFileSync(files.markFile, text);
    t.equal(
      refusal(dir)?.message,
      `${files.markFile}: not a mark of the last acknowledged line (${JSON.stringify(text.slice(0, 60))}); move it away or ` +
        'delete it to start that sandbox fresh',
      text,
    );
  }
  writeFileSync(files.markFile, '{"acknowledged":0}');
  t.equal(refusal(dir), null, 'a mark behind the log is fine (a crash between the line and its mark)');
  t.equal(readFileSync(files.markFile, 'utf8'), '{"acknowledged":0}', 'a load writes no mark over one it read');
  writeFileSync(files.markFile, mark);
  t.equal(refusal(dir), null);
});

t.test('a snapshot without its log, a log without its snapshot, or no sandbox file is refused', async (t) => {
  const dir = tempDir(t, 'pm-log-files-');
  t.equal(refusal(dir)?.message, `${dir}: no files for sandbox ${name}`);
  const files = written(dir, 1);
  const log = readFileSync(files.logFile);
  const snapshot = readFileSync(files.snapshotFile);
  const mark = readFileSync(files.markFile);
  rmSync(files.logFile);
  t.equal(
    refusal(dir)?.message,
    `${files.logFile} is missing: ${files.snapshotFile} holds the changes up to line 0, so the writes from line 1 ` +
      `on are lost; put the log back, or move both files away to start sandbox ${name} fresh`,
  );
  writeFileSync(files.logFile, log);
  rmSync(files.snapshotFile);
  t.equal(
    refusal(dir)?.message,
    `${files.logFile}: a log without its snapshot (NAME.json); move it away or delete it to start that sandbox fresh`,
  );

  // an empty log alone is a first write cut short: removed, with its mark, and no sandbox
  writeFileSync(files.logFile, '');
  const warnings: string[] = [];
  t.equal(
    loadSandbox(dir, name, worlds, (m) => warnings.push(m)),
    null,
  );
  t.same(warnings, [
    `${files.logFile}: removed an empty log without its snapshot (a first write cut short by a crash, never ` +
      'acknowledged)',
  ]);
  t.notOk(existsSync(files.logFile));
  t.notOk(existsSync(files.markFile));

  writeFileSync(files.logFile, log);
  writeFileSync(files.markFile, mark);
  writeFileSync(files.snapshotFile, '{"format":');
  t.match(refusal(dir)?.message, `${files.snapshotFile}: not valid JSON (`);
  const doc = JSON.parse(snapshot.toString('utf8'));
  for (const wrong of [
    { ...doc, format: 'other' },
    { ...doc, version: 1 },
    { ...doc, world: undefined },
    { ...doc, state: undefined },
    { ...doc, upTo: '0' },
  ]) {
    writeFileSync(files.snapshotFile, JSON.stringify(wrong));
    t.equal(
      refusal(dir)?.message,
      `${files.snapshotFile}: not a portal-mock sandbox snapshot; move it away or delete it to start that sandbox fresh`,
    );
  }
  writeFileSync(files.snapshotFile, JSON.stringify({ ...doc, settings: { scenario: 7 } }));
  t.match(refusal(dir)?.message, `${files.snapshotFile}: settings`);
  writeFileSync(files.snapshotFile, JSON.stringify({ ...doc, createdAt: 5 }));
  t.equal(
    loadSandbox(dir, name, worlds, () => {})?.log.createdAt,
    undefined,
    'a createdAt that is not text is dropped',
  );
  writeFileSync(files.snapshotFile, JSON.stringify({ ...doc, world: { ...doc.world, digest: 'other' } }));
  t.match(refusal(dir)?.message, `${files.snapshotFile}: written for another base world`);
  writeFileSync(files.snapshotFile, snapshot);
  t.equal(refusal(dir), null);
});

t.test('files of earlier versions: no mark gets one; a data file before the log is taken as an import', async (t) => {
  const dir = tempDir(t, 'pm-log-old-');
  const files = written(dir, 2);
  rmSync(files.markFile);
  const doc = JSON.parse(readFileSync(files.snapshotFile, 'utf8'));
  delete doc.marked;
  writeFileSync(files.snapshotFile, JSON.stringify(doc));
  t.equal(refusal(dir), null, 'an unmarked snapshot without a mark loads');
  t.same(JSON.parse(readFileSync(files.markFile, 'utf8')), { acknowledged: 3 }, 'and gets a mark of its last line');

  const old = tempDir(t, 'pm-log-data-');
  const store = new SandboxStore(name, world, { recordChanges: false });
  const tenant = store.tenant(tenantId)!;
  store.insert(tenant, 'departments', { ...tenant.departments[0]!, id: '00000000-0000-4000-8000-000000000009' });
  writeFileSync(join(old, `${name}.json`), JSON.stringify(store.toData()));
  const loaded = loadSandbox(old, name, worlds, () => {})!;
  t.equal(loaded.store.tenant(tenantId)!.departments.length, tenant.departments.length);
  t.equal(statSync(join(old, `${name}.log`)).size, 0, 'an empty log made');
  t.same(JSON.parse(readFileSync(join(old, `${name}.mark`), 'utf8')), { acknowledged: 0 });
  const migrated = JSON.parse(readFileSync(join(old, `${name}.json`), 'utf8'));
  t.same([migrated.format, migrated.upTo, migrated.marked], ['portal-mock-sandbox', 0, true]);

  // a migrated snapshot written before the log existed (upTo 0, data of its own): its log is made, not refused
  rmSync(join(old, `${name}.log`));
  rmSync(join(old, `${name}.mark`));
  delete migrated.marked;
  delete migrated.settings;
  writeFileSync(join(old, `${name}.json`), JSON.stringify(migrated));
  t.equal(refusal(old), null);
  t.equal(statSync(join(old, `${name}.log`)).size, 0);
  // with settings, or with nothing of its own, a snapshot always had its log
  for (const doc of [
    { ...migrated, settings: {} },
    { ...migrated, state: { ...migrated.state, tenants: {} } },
  ]) {
    rmSync(join(old, `${name}.log`), { force: true });
    writeFileSync(join(old, `${name}.json`), JSON.stringify(doc));
    t.match(refusal(old)?.message, `${name}.log is missing:`);
  }
  // a record of its own that does not fit its schema
  const bad = JSON.parse(JSON.stringify(store.toData())) as ReturnType<SandboxStore['toData']>;
  (bad.tenants[tenantId]!.departments as unknown[]).push({ id: 'x' });
  writeFileSync(join(old, `${name}.json`), JSON.stringify(bad));
  t.match(refusal(old)?.message, `${name}.json`);
});

t.test(
  'compaction starts at the byte bound, folds the log into the snapshot and keeps lines written meanwhile',
  async (t) => {
    const dir = tempDir(t, 'pm-log-compact-');
    const store = new SandboxStore(name, world, { recordChanges: true });
    const below = new SandboxLog(dir, name, { lastLine: 0, bytes: 0, origin: world });
    addDepartment(store, below, 1);
    const lineBytes = statSync(below.logFile).size;
    below.close();

    // a log whose next line reaches the bound exactly compacts; one byte short does not
    const short = new SandboxLog(dir, name, { lastLine: 1, bytes: compactFromBytes - lineBytes - 1 });
    addDepartment(store, short, 2);
    t.notOk(short.compacting, 'one byte below the bound');
    short.close();
    const at = new SandboxLog(dir, name, { lastLine: 2, bytes: compactFromBytes - lineBytes });
    addDepartment(store, at, 3);
    t.ok(at.compacting, 'at the bound');
    // a line while the snapshot is written: kept in the log after it
    at.commit(store, { before: {}, changed: { scenario: 'flaky' } });
    addDepartment(store, at, 4);
    while (at.compacting) await new Promise((resolve) => setImmediate(resolve));
    const snapshot = JSON.parse(readFileSync(at.snapshotFile, 'utf8'));
    t.equal(snapshot.upTo, 3, 'the snapshot covers the lines up to the compaction');
    t.same(snapshot.settings, {}, 'with the settings as of that line');
    t.same(
      linesOf(at.logFile).map((l) => JSON.parse(l).n),
      [4, 5],
      'the log keeps only the lines written meanwhile',
    );
    // the byte count starts again from the kept lines: the next line does not compact
    addDepartment(store, at, 6);
    t.notOk(at.compacting);
    at.close();
    const loaded = loadSandbox(dir, name, worlds, () => {})!;
    t.same(deptNames(loaded.store), ['dept 1', 'dept 2', 'dept 3', 'dept 4', 'dept 6']);
    t.same(loaded.settings, { scenario: 'flaky' });
    loaded.log.close();
  },
);

t.test('compact(): once at a time; a closed log or a removed sandbox keeps its files as they must be', async (t) => {
  const dir = tempDir(t, 'pm-log-compact2-');
  const { store, log } = fresh(dir);
  addDepartment(store, log, 1);
  addDepartment(store, log, 2);
  const running = log.compact(store, { scenario: 'a' });
  t.ok(log.compacting);
  await log.compact(store, { scenario: 'b' });
  await running;
  t.notOk(log.compacting);
  t.same(JSON.parse(readFileSync(log.snapshotFile, 'utf8')).settings, { scenario: 'a' }, 'the second did nothing');
  t.equal(statSync(log.logFile).size, 0, 'every line folded in');
  addDepartment(store, log, 3);
  t.equal(linesOf(log.logFile).length, 1, 'written to the new log');

  // closed while the snapshot is written: the whole log stays (its older lines are skipped at load)
  const closing = log.compact(store, {});
  log.close();
  await closing;
  t.equal(linesOf(log.logFile).length, 1);
  t.equal(JSON.parse(readFileSync(log.snapshotFile, 'utf8')).upTo, 3);
  await log.compact(store, { scenario: 'c' });
  t.not(JSON.parse(readFileSync(log.snapshotFile, 'utf8')).settings?.scenario, 'c', 'a closed log does not compact');
  t.same(deptNames(loadSandbox(dir, name, worlds, () => {})!.store), ['dept 1', 'dept 2', 'dept 3']);

  // removed while the snapshot is written: no file comes back
  const other = tempDir(t, 'pm-log-removed-');
  const second = fresh(other);
  addDepartment(second.store, second.log, 1);
  const removing = second.log.compact(second.store, {});
  second.log.remove();
  await removing;
  for (const file of [second.log.snapshotFile, second.log.logFile, second.log.markFile]) t.notOk(existsSync(file));
});

t.test('persistedNames: one name per sandbox with a .json or a .log', async (t) => {
  t.same(persistedNames(['a.json', 'a.log', 'a.mark', 'b.log', 'c.mark', 'd.json', 'e.txt', 'f.json.bak', 'g.logx']), [
    'a',
    'b',
    'd',
  ]);
});

t.test('a reset is replayed; a loaded log counts its bytes toward the compaction bound', async (t) => {
  const dir = tempDir(t, 'pm-log-reset-');
  const { store, log } = fresh(dir);
  addDepartment(store, log, 1);
  store.reset(world);
  log.commit(store, { before: {}, changed: null });
  addDepartment(store, log, 2);
  // a big settings line (WireMock mappings are kept whole): the log ends a little below the bound
  const room = compactFromBytes - statSync(log.logFile).size - 300;
  const mappings = ['x'.repeat(room)];
  log.commit(store, { before: {}, changed: { wiremock: { mappings, scenarios: {} } } });
  t.notOk(log.compacting);
  log.close();
  const loaded = loadSandbox(dir, name, worlds, () => {})!;
  t.same(deptNames(loaded.store), ['dept 2'], 'the reset dropped dept 1');
  t.notOk(loaded.log.compacting);
  addDepartment(loaded.store, loaded.log, 3);
  t.ok(loaded.log.compacting, "the next line passes the bound with the log's bytes");
  while (loaded.log.compacting) await new Promise((resolve) => setImmediate(resolve));
  loaded.log.close();
  t.equal(statSync(loaded.log.logFile).size, 0, 'compacted');
});
