#!/usr/bin/env node
// The build lives in dist/ (the single-file bundle of dist/server.js, made by `npm ci` through the prepare script).
// Plain node: optional V8 tuning through NODE_OPTIONS is described, with measurements, in docs/performance.md.
import { existsSync, readdirSync, statSync } from 'node:fs';

const root = new URL('..', import.meta.url);
const bundle = new URL('dist/portal-mock.mjs', root);
// In a checkout (the package ships no src/), `npm start` runs the build as it is, without rebuilding (a start in
// well under a second): say so when a source is newer than the build. Stat-ing src/ costs a few milliseconds.
if (existsSync(new URL('src', root))) {
  const built = existsSync(bundle) ? statSync(bundle).mtimeMs : 0;
  const newer = readdirSync(new URL('src', root), { recursive: true }).find(
    (f) => f.endsWith('.ts') && statSync(new URL(`src/${f}`, root)).mtimeMs > built,
  );
  if (!built) {
    process.stderr.write('portal-mock: there is no build in dist/: run npm run build (npm ci does it)\n');
    process.exit(1);
  }
  if (newer)
    process.stderr.write(
      `portal-mock: src/${newer} changed after the last build, which is what runs now: npm run build (or npm run dev to rebuild on every change)\n`,
    );
}
// Under `npm start` node runs below a shell that may not pass SIGTERM on (Debian's dash does not): when npm stops and
// the shell with it, this process is handed to another parent. Stop then, as a SIGTERM would, instead of staying
// behind orphaned. Only for this package's own start script: a server a user's script starts in the background
// (`portal-mock … &`) may outlive that script's shell on purpose.
if (process.env.npm_lifecycle_event === 'start' && process.env.npm_package_name === 'portal-mock') {
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) process.kill(process.pid, 'SIGTERM');
  }, 250).unref();
}
await import(bundle.href);
