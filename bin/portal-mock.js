#!/usr/bin/env -S node --max-semi-space-size=8 --no-concurrent-marking --no-memory-reducer
// The build lives in dist/ (the single-file bundle of dist/server.js, made by `npm ci` through the prepare script).
// --max-semi-space-size=8 (MB): start-up allocates the seeded data in bursts and V8 then keeps a 32 MB young
// generation it never gives back; 8 MB halves that (idle RSS about 15 MB lower) with no throughput lost in the
// benchmark. --no-concurrent-marking: with V8's concurrent marker on, Node's stream and nextTick internals took
// V8's slow property paths on every request (about 1.5 µs of a 23 µs light read, see docs/performance.md); major
// collections then mark on the main thread, in increments. --no-memory-reducer: the reducer's collections after a
// few seconds idle brought the same slow paths back for good (a burst of tests after a pause ran ~15% slower); RSS
// measured the same without it. `npm start` and the Docker image run node with the same flags.
import '../dist/portal-mock.mjs';
