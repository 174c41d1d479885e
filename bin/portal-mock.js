#!/usr/bin/env node
// The build lives in dist/ (the single-file bundle of dist/server.js, made by `npm ci` through the prepare script).
import '../dist/portal-mock.mjs';
