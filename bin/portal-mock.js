#!/usr/bin/env node
// The build lives in dist/ (made by `npm ci` through the prepare script).
import '../dist/server.js';
