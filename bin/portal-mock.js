#!/usr/bin/env node
// The build lives in dist/ (the single-file bundle of dist/server.js, made by `npm ci` through the prepare script).
// Plain node: optional V8 tuning through NODE_OPTIONS is described, with measurements, in docs/performance.md.
import '../dist/portal-mock.mjs';
