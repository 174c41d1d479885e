// Loaded with `node --import` before the conformance suite's CLI (@modelcontextprotocol/conformance), which imports
// fs.globSync, new in Node 22: on Node 20 its module would not even load. Only its tier-check command calls it, so
// on a Node without it the suite's own imports of fs get fs and a globSync that says so (hooks.mjs).
import fs from 'node:fs';
import { register } from 'node:module';

if (typeof fs.globSync !== 'function') register('./hooks.mjs', import.meta.url);
