// What a project that installs portal-mock pays, apart from serving requests (issue 47): the package's packed and
// unpacked size, the packages an install pulls, the type-check of a test that imports the typed client, and the
// first use (import, startMock, the first sandbox and the first arranged record).
// `node bench/consumer.mjs [--quick] [--json=FILE]` after `npm run build`; run.mjs runs it too. Wall times are
// medians; the type-check is also given as a ratio to the same file importing only Node's types.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
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

/** Milliseconds of one run of `command args` in `cwd`, which must exit 0. */
function timed(command, commandArgs, cwd) {
  const started = performance.now();
  const out = spawnSync(command, commandArgs, { cwd, env, encoding: 'utf8' });
  const ms = performance.now() - started;
  if (out.status !== 0)
    throw new Error(`${command} ${commandArgs.join(' ')}: ${out.status}\n${out.stdout}${out.stderr}`);
  return ms;
}

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

/** The consumer-cost table (also in npm run bench's report, bench/run.mjs), with the targets. */
export function consumerTable(c) {
  const mb = (n) => `${(n / 1024 / 1024).toFixed(2)} MB`;
  const ratio = `${c.tscRatio}x the same file with Node's types only (${c.tscNodeOnlyMs} ms)`;
  return [
    '| consumer cost | figure | target |',
    '|---|---|---|',
    `| package, packed / unpacked | ${mb(c.packedBytes)} / ${mb(c.unpackedBytes)} (${c.files} files) | no source map |`,
    `| packages a consumer install pulls | ${c.packages} | |`,
    `| tsc of a test importing portal-mock/admin | ${c.tscClientMs} ms, ${ratio} | <= 1.5x |`,
    `| first use: import, startMock, first sandbox, first record | ${c.firstUseMs} ms | <= 1000 ms |`,
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
      'node-only.ts': `import { readFileSync } from 'node:fs';
  export const text: string = readFileSync('package.json', 'utf8');
  `,
    };
    const tsc = join(project, 'node_modules', 'typescript', 'bin', 'tsc');
    const tscMs = {};
    for (const [file, source] of Object.entries(files)) {
      writeFileSync(join(project, file), source);
      writeFileSync(join(project, `tsconfig.${file}.json`), JSON.stringify({ ...tsconfig, files: [file] }));
      tscMs[file] = median(
        Array.from({ length: runs }, () => timed(process.execPath, [tsc, '-p', `tsconfig.${file}.json`], project)),
      );
    }

    // the first use, from a process's start to its first arranged record
    writeFileSync(
      join(project, 'first-use.mjs'),
      `import { startMock } from 'portal-mock';
  const mock = await startMock({ logLevel: 'silent' });
  const qa = mock.admin.sandbox('first');
  await qa.sandboxCreate();
  await qa.data.users.create({ firstName: 'Ada' });
  await mock.close();
  `,
    );
    const firstUseMs = median(Array.from({ length: runs }, () => timed(process.execPath, ['first-use.mjs'], project)));

    const result = {
      packedBytes: packed.size,
      unpackedBytes: packed.unpackedSize,
      files: packed.entryCount,
      packages,
      tscClientMs: Math.round(tscMs['client.ts']),
      tscNodeOnlyMs: Math.round(tscMs['node-only.ts']),
      tscRatio: Math.round((tscMs['client.ts'] / tscMs['node-only.ts']) * 100) / 100,
      firstUseMs: Math.round(firstUseMs),
      runs,
    };
    if (jsonOut) writeFileSync(jsonOut, JSON.stringify(result, null, 2));
    console.log(consumerTable(result));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
