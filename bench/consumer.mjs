// What a project that installs portal-mock pays, apart from serving requests (issue 47): the package's packed and
// unpacked size, the packages an install pulls (and what each runtime dependency pulls), the type-check of a test
// that imports the typed client and of one that imports startMock (issue 56: the same files but three), and the first
// use (import, startMock, the first sandbox and the first record).
// `node bench/consumer.mjs [--quick] [--json=FILE]` after `npm run build`; run.mjs runs it too. Wall times are
// medians; the type-check is also given as a ratio to the same file importing only Node's types.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './http.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const runs = quick ? 1 : 3;
const jsonOut = args.find((a) => a.startsWith('--json='))?.slice(7);
// tap's process hook (when run from a test) and the caller's flags stay out of the measured processes
const env = { ...process.env, NODE_OPTIONS: '' };

/** One run of `command args` in `cwd`, which must exit 0: its milliseconds and what it printed. */
function run(command, commandArgs, cwd) {
  const started = performance.now();
  const out = spawnSync(command, commandArgs, { cwd, env, encoding: 'utf8' });
  const ms = performance.now() - started;
  if (out.status !== 0)
    throw new Error(`${command} ${commandArgs.join(' ')}: ${out.status}\n${out.stdout}${out.stderr}`);
  return { ms, stdout: out.stdout };
}
const timed = (command, commandArgs, cwd) => run(command, commandArgs, cwd).ms;

/** Packages under node_modules (scoped ones counted one by one, nested copies too). */
function countPackages(dir) {
  let count = 0;
  for (const name of readdirSync(dir)) {
    if (name.startsWith('.')) continue;
    const path = join(dir, name);
    if (name.startsWith('@')) {
      count += countPackages(path);
      continue;
    }
    count++;
    const nested = join(path, 'node_modules');
    if (statSync(nested, { throwIfNoEntry: false })?.isDirectory()) count += countPackages(nested);
  }
  return count;
}

/** Bytes of the files under `dir`, its own node_modules left out. */
function packageBytes(dir) {
  let bytes = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') bytes += packageBytes(join(dir, entry.name));
    } else bytes += statSync(join(dir, entry.name)).size;
  }
  return bytes;
}

/**
 * For each runtime dependency of portal-mock in the consumer's install (its package-lock.json): the packages it
 * pulls (itself included, as node resolves them) and of those, the ones no other dependency pulls, with their bytes:
 * what dropping it would save.
 */
function dependencyCosts(project) {
  const lock = JSON.parse(readFileSync(join(project, 'package-lock.json'), 'utf8')).packages;
  const resolve = (from, name) => {
    for (let dir = from; ; ) {
      const candidate = `${dir ? `${dir}/` : ''}node_modules/${name}`;
      if (lock[candidate]) return candidate;
      if (!dir) return null;
      const at = dir.lastIndexOf('/node_modules/');
      dir = at < 0 ? '' : dir.slice(0, at);
    }
  };
  const reach = (start) => {
    const seen = new Set();
    const stack = [start];
    while (stack.length > 0) {
      const path = stack.pop();
      if (!path || seen.has(path)) continue;
      seen.add(path);
      const entry = lock[path];
      for (const name of Object.keys({
        ...entry.dependencies,
        ...entry.optionalDependencies,
        ...entry.peerDependencies,
      }))
        stack.push(resolve(path, name));
    }
    return seen;
  };
  const self = 'node_modules/portal-mock';
  const names = Object.keys(lock[self].dependencies ?? {});
  const pulled = new Map(names.map((name) => [name, reach(resolve(self, name))]));
  const bytes = (paths) => paths.reduce((sum, path) => sum + packageBytes(join(project, path)), 0);
  return names
    .map((name) => {
      const others = new Set(names.filter((n) => n !== name).flatMap((n) => [...pulled.get(n)]));
      const own = [...pulled.get(name)].filter((path) => !others.has(path));
      const all = [...pulled.get(name)];
      const version = lock[resolve(self, name)].version;
      return { name, version, packages: all.length, own: own.length, bytes: bytes(all), ownBytes: bytes(own) };
    })
    .sort((a, b) => b.own - a.own || b.ownBytes - a.ownBytes);
}

/** The per-dependency table: what each runtime dependency pulls into a consumer install. */
export function dependencyTable(c) {
  const mb = (n) => `${(n / 1024 / 1024).toFixed(2)} MB`;
  return [
    '| runtime dependency | packages it pulls | only it pulls | bytes it pulls | bytes only it pulls |',
    '|---|---:|---:|---:|---:|',
    ...c.dependencies.map(
      (d) => `| ${d.name} ${d.version} | ${d.packages} | ${d.own} | ${mb(d.bytes)} | ${mb(d.ownBytes)} |`,
    ),
  ].join('\n');
}

/** The consumer-cost table (also in npm run bench's report, bench/run.mjs), with the issue's targets. */
export function consumerTable(c) {
  const mb = (n) => `${(n / 1024 / 1024).toFixed(2)} MB`;
  const ratio = `${c.tscRatio}x the same file with Node's types only (${c.tscNodeOnlyMs} ms)`;
  const files = (n) => (n ? `; ${n} files (tsc --listFiles)` : '');
  return [
    '| consumer cost | figure | target |',
    '|---|---|---|',
    `| package, packed / unpacked | ${mb(c.packedBytes)} / ${mb(c.unpackedBytes)} (${c.files} files) | no source map |`,
    `| packages a consumer install pulls | ${c.packages} | |`,
    `| tsc of a test importing portal-mock/admin | ${c.tscClientMs} ms, ${ratio}${files(c.tscClientFiles)} | <= 1.5x |`,
    ...(c.tscStartMs
      ? [
          `| tsc of a test importing startMock from portal-mock | ${c.tscStartMs} ms, ${c.tscStartRatio}x${files(
            c.tscStartFiles,
          )} | <= 1.5x, files within 10% of the client's |`,
        ]
      : []),
    `| first use: import to first record (import, startMock, first sandbox, first record) | ${c.firstUseMs} ms | <= 1000 ms |`,
    ...(c.firstUseCpuMs
      ? [
          `| first use, CPU by phase (node's start, import, startMock, sandbox, record, close) | ${Object.values(
            c.firstUseCpuMs,
          ).join(' + ')} ms | |`,
        ]
      : []),
  ].join('\n');
}

// run as a script (run.mjs imports only the table)
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const work = mkdtempSync(join(os.tmpdir(), 'portal-mock-consumer-'));
  try {
    const [packed] = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--pack-destination', work], { cwd: root, env, encoding: 'utf8' }),
    );
    const project = join(work, 'project');
    execFileSync('mkdir', ['-p', project]);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    execFileSync(
      'npm',
      ['install', '--no-audit', '--no-fund', '--omit=dev', join(work, packed.filename), 'typescript@~5.9.3'],
      { cwd: project, env, stdio: 'ignore' },
    );
    // typescript is the consumer's own choice, not a package portal-mock pulls
    const packages = countPackages(join(project, 'node_modules')) - 1;
    const dependencies = dependencyCosts(project);

    // tsc on one test file: importing the typed client against importing only Node's types
    const tsconfig = {
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        types: ['node'],
      },
    };
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '@types/node@^20'], {
      cwd: project,
      env,
      stdio: 'ignore',
    });
    const files = {
      'client.ts': `import { adminClient } from 'portal-mock/admin';
  const qa = adminClient({ baseUrl: 'http://127.0.0.1:3000', sandbox: 'bench' });
  export const count: Promise<number> = qa.requests.count({ operationId: 'mobileAuth' });
  `,
      'start.ts': `import { startMock } from 'portal-mock';
  const mock = await startMock({ seed: 7 });
  export const seed: number = (await mock.admin.health()).seed;
  await mock.close();
  `,
      'node-only.ts': `import { readFileSync } from 'node:fs';
  export const text: string = readFileSync('package.json', 'utf8');
  `,
    };
    const tsc = join(project, 'node_modules', 'typescript', 'bin', 'tsc');
    const tscMs = {};
    const tscFiles = {};
    for (const [file, source] of Object.entries(files)) {
      writeFileSync(join(project, file), source);
      writeFileSync(join(project, `tsconfig.${file}.json`), JSON.stringify({ ...tsconfig, files: [file] }));
      tscMs[file] = median(
        Array.from({ length: runs }, () => timed(process.execPath, [tsc, '-p', `tsconfig.${file}.json`], project)),
      );
      // the declaration files it reads (TypeScript's own lib files included), the figure a busy machine leaves alone
      const listed = run(process.execPath, [tsc, '-p', `tsconfig.${file}.json`, '--listFiles'], project).stdout;
      tscFiles[file] = listed.split('\n').filter((line) => line.trim() !== '').length;
    }

    // the first use, from a process's start to its first arranged record; the process also reports the CPU time
    // of each phase (process.cpuUsage: every thread), which a busy machine changes far less than the wall time
    writeFileSync(
      join(project, 'first-use.mjs'),
      `const cpu = () => { const c = process.cpuUsage(); return (c.user + c.system) / 1000; };
  const phases = { node: cpu() };
  let last = phases.node;
  const lap = (name) => { const now = cpu(); phases[name] = now - last; last = now; };
  const { startMock } = await import('portal-mock');
  lap('import');
  const mock = await startMock({ logLevel: 'silent' });
  lap('startMock');
  const qa = mock.admin.sandbox('first');
  await qa.sandboxCreate();
  lap('sandbox');
  await qa.data.users.create({ firstName: 'Ada' });
  lap('record');
  await mock.close();
  lap('close');
  console.log(JSON.stringify(phases));
  `,
    );
    const firstUses = Array.from({ length: runs }, () => {
      const { ms, stdout } = run(process.execPath, ['first-use.mjs'], project);
      return { ms, cpu: JSON.parse(stdout) };
    });
    const firstUseMs = median(firstUses.map((run) => run.ms));
    const firstUseCpuMs = Object.fromEntries(
      Object.keys(firstUses[0].cpu).map((phase) => [phase, Math.round(median(firstUses.map((r) => r.cpu[phase])))]),
    );

    const result = {
      packedBytes: packed.size,
      unpackedBytes: packed.unpackedSize,
      files: packed.entryCount,
      packages,
      tscClientMs: Math.round(tscMs['client.ts']),
      tscNodeOnlyMs: Math.round(tscMs['node-only.ts']),
      tscRatio: Math.round((tscMs['client.ts'] / tscMs['node-only.ts']) * 100) / 100,
      tscStartMs: Math.round(tscMs['start.ts']),
      tscStartRatio: Math.round((tscMs['start.ts'] / tscMs['node-only.ts']) * 100) / 100,
      tscClientFiles: tscFiles['client.ts'],
      tscStartFiles: tscFiles['start.ts'],
      tscNodeOnlyFiles: tscFiles['node-only.ts'],
      firstUseMs: Math.round(firstUseMs),
      firstUseCpuMs,
      runs,
      dependencies,
    };
    if (jsonOut) writeFileSync(jsonOut, JSON.stringify(result, null, 2));
    console.log(consumerTable(result));
    console.log(`\n${dependencyTable(result)}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
