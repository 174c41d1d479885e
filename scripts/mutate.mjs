// `npm run mutate -- NAME [stryker options]`: mutation testing of one module of stryker.config.mjs (its `modules`),
// or of each in turn without a name. Options after the name go to `stryker run`, e.g. a range of the newest code:
// npm run mutate -- calendar --mutate 'src/domain/calendar.ts:240-290'
// MUTATE_GREP=pattern runs only the tests of the module's files whose name matches (tap's --grep).
import { spawnSync } from 'node:child_process';
process.env.MUTATE_LIST = '1';
const { modules } = await import('../stryker.config.mjs');
delete process.env.MUTATE_LIST;

const [first, ...rest] = process.argv.slice(2);
const named = first !== undefined && !first.startsWith('-');
const names = named ? [first] : Object.keys(modules);
const extra = named ? rest : process.argv.slice(2);
let failed = 0;
for (const name of names) {
  if (!modules[name]) {
    console.error(`unknown module ${name}: one of ${Object.keys(modules).join(', ')}`);
    process.exit(2);
  }
  const started = Date.now();
  const run = spawnSync('npx', ['stryker', 'run', 'stryker.config.mjs', ...extra], {
    stdio: 'inherit',
    // seconds per test as .taprc gives tap (the runner starts each file with node, where tap's default is 30)
    env: { TAP_TIMEOUT: '600', ...process.env, MUTATE_MODULE: name },
  });
  console.log(`${name}: ${Math.round((Date.now() - started) / 1000)} s, exit ${run.status}`);
  if (run.status !== 0) failed++;
}
process.exit(failed > 0 ? 1 : 0);
