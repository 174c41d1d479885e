// Exports stream (issue 54, part 5): the state, a capture (indented, issue 56) and the journal's HAR are
// JSON.stringify's bytes, written in slices into a stream that waits for its reader; a client that reads nothing holds
// a bounded number of bytes, does not keep other requests waiting, and is cut after --export-stall-timeout.
import { connect, type Socket } from 'node:net';
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { type Readable, Writable } from 'node:stream';
import t from 'tap';
import fc from 'fast-check';
import {
  JsonStream,
  JsonWriter,
  jsonStreamHighWaterMark,
  jsonStringPieces,
  LazyList,
  StalledReaderError,
} from '../../src/shared/json-stream.js';
import { FileBytes } from '../../src/store/file-bytes.js';
import { bugCapture, capturedAsServed, captureName } from '../../src/control/capture.js';
import fastJsonStringify from 'fast-json-stringify';
import { referencedSchemas } from '../../src/http/serializers.js';
import { Snapshot } from '../../src/schemas/control.js';
import { ScenarioFile } from '../../src/schemas/scenario.js';
import { build, signIn, tenants } from '../helper.js';
import { countTurns } from '../support/turns.js';

/** What the route's response schema serializer writes (how the exports were answered before they streamed). */
const schemaSerializer = (schema: object, shared: Record<string, unknown>) =>
  fastJsonStringify(schema as never, { schema: referencedSchemas(schema, shared) as never }) as (v: unknown) => string;

/** The whole text of a writer, taken `chars` at a time. */
function written(value: unknown, chars: number, indent = 0): string {
  const w = new JsonWriter(value, indent);
  let text = '';
  for (let guard = 0; !w.finished; guard++) {
    if (guard > 10_000_000) throw new Error('the writer does not finish');
    text += w.next(chars);
  }
  return text;
}

t.test('the writer writes what JSON.stringify writes, whatever the piece size', async (t) => {
  class Blob {
    readonly bytes: Buffer;
    constructor(bytes: Buffer) {
      this.bytes = bytes;
    }
    toJSON(key: string) {
      return `${key}:${this.bytes.toString('base64')}`;
    }
  }
  const long = `${'a'.repeat(300_000)}😀${'é'.repeat(300_000)}\u2028"\\\n\ud800 end`;
  const sparse: unknown[] = [1];
  sparse[3] = 2;
  const tricky = {
    a: [undefined, () => 1, Symbol('s'), Number.NaN, -0, Number.POSITIVE_INFINITY, null, true],
    skipped: undefined,
    fn: () => 1,
    date: new Date(Date.UTC(2026, 2, 2, 9)),
    boxed: [new Number(3), new String('s'), new Boolean(false)],
    blob: new Blob(Buffer.from('portal-mock upload')),
    bigBlob: new Blob(Buffer.alloc(400_000, 7)),
    nested: { deep: [[[{ x: 'y' }]]], empty: {}, none: [] },
    sparse,
    long,
    'key "quoted"\n': 'v',
    toJSONResult: { toJSON: () => ({ replaced: true, inner: { toJSON: (k: string) => `inner ${k}` } }) },
  };
  for (const chars of [1, 7, 1024, 65_536]) {
    t.equal(written(tricky, chars), JSON.stringify(tricky), `pieces of ${chars} characters`);
    t.equal(written(tricky, chars, 2), JSON.stringify(tricky, null, 2), `indented, pieces of ${chars} characters`);
  }
  // containers too large for one JSON.stringify, nested: each written line indented by its depth
  const wide = { list: Array.from({ length: 2000 }, (_, i) => ({ i, tags: i % 3 ? [] : ['a', { b: undefined }] })) };
  t.equal(written([wide, [wide]], 4096, 2), JSON.stringify([wide, [wide]], null, 2), 'large nested containers');
  t.equal(written({ only: undefined }, 5, 2), '{}', 'an object whose values are all left out');
  t.equal(written('plain', 3), '"plain"');
  t.equal(written(undefined, 3), '', 'JSON.stringify(undefined) writes nothing');
  // a surrogate pair cut at every boundary a 1024-character piece can fall on
  const pairs = '😀'.repeat(200_000);
  t.equal(written([pairs], 1024), JSON.stringify([pairs]));
  const cycle: Record<string, unknown> = { list: [] };
  (cycle.list as unknown[]).push(Array.from({ length: 2000 }, () => cycle));
  t.throws(() => written(cycle, 1024), TypeError, 'a cycle is the TypeError JSON.stringify throws');
  fc.assert(
    fc.property(fc.jsonValue(), fc.integer({ min: 1, max: 64 }), (value, chars) => {
      return written(value, chars) === JSON.stringify(value);
    }),
    { numRuns: 300 },
  );
  fc.assert(
    fc.property(fc.jsonValue(), fc.integer({ min: 1, max: 64 }), fc.integer({ min: 1, max: 4 }), (v, chars, n) => {
      return written(v, chars, n) === JSON.stringify(v, null, n);
    }),
    { numRuns: 300 },
  );
});

t.test("an upload's bytes are written as base64 in pieces, never as the whole text", async (t) => {
  const chunks = [Buffer.alloc(300_001, 1), Buffer.from([2]), Buffer.alloc(500_000, 3)];
  const file = FileBytes.ofChunks(chunks);
  const whole = Buffer.concat(chunks).toString('base64');
  const record = { id: 'f', contentBase64: file, size: file.size };
  t.equal(JSON.stringify(record), JSON.stringify({ ...record, contentBase64: whole }), 'toJSON is the whole base64');
  let wholeMade = 0;
  const counted = {
    [jsonStringPieces]: () => file.base64Pieces(),
    toJSON: () => {
      wholeMade++;
      return file.toJSON();
    },
  };
  for (const chars of [1000, 65_536])
    t.equal(written({ ...record, contentBase64: counted }, chars), JSON.stringify(record), `pieces of ${chars}`);
  t.equal(wholeMade, 0, 'the writer never made the whole text');
});

t.test('a lazy list (HAR entries) makes its items as the writer reaches them', async (t) => {
  let made = 0;
  const source = Array.from({ length: 1000 }, (_, i) => i);
  const list = new LazyList(source, (i) => {
    made++;
    return { i, text: 'y'.repeat(100), skipped: undefined };
  });
  const value = { log: { entries: list, comment: 'c' } };
  const writer = new JsonWriter(value);
  let text = writer.next(1000);
  t.ok(made > 0 && made < 50, `${made} of 1000 made for the first 1000 characters`);
  while (!writer.finished) text += writer.next(1000);
  t.equal(made, 1000, 'each made once');
  t.equal(text, JSON.stringify(value), "JSON.stringify's text (toJSON makes them all)");
});

t.test('a reader that takes everything at once still gets the export over many turns of the event loop', async (t) => {
  // A piped reader whose socket takes what it is given reads again in the same turn each time the stream's buffer is
  // full: every read began a new slice, and a 25 MB state was written in one turn (630 ms). With a slice of 0 ms each
  // turn writes one chunk; a setImmediate probe counts the turns between chunks (no wall time asserted).
  const value = Array.from({ length: 200 }, (_, i) => ({ i, text: 'x'.repeat(2000) }));
  const stream = new JsonStream(value, { stallTimeout: 60_000, chunkChars: 4096, sliceMs: 0, highWaterMark: 1024 });
  const turns = countTurns();
  const turnOfChunk: number[] = [];
  const pieces: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      pieces.push(chunk);
      turnOfChunk.push(turns.count);
      done(); // takes it at once, as a loopback socket's kernel buffer does
    },
  });
  stream.pipe(sink);
  await once(sink, 'finish');
  turns.stop();
  t.equal(Buffer.concat(pieces).toString('utf8'), JSON.stringify(value), 'the same bytes');
  t.ok(turnOfChunk.length > 50, `${turnOfChunk.length} chunks`);
  let most = 0;
  const perTurn = new Map<number, number>();
  for (const turn of turnOfChunk) {
    const n = (perTurn.get(turn) ?? 0) + 1;
    perTurn.set(turn, n);
    most = Math.max(most, n);
  }
  t.ok(most <= 2, `at most 2 chunks in one turn (${most}), over ${perTurn.size} turns`);
});

t.test('every stream shares the turn: two exports read at once write one slice between them', async (t) => {
  // Each stream counting its own slice let nine exports take 9 slices of one turn (issue 54). With a slice of 0 ms a
  // turn gives one chunk to all the streams together, and the one that waited goes on in the next turn.
  const value = Array.from({ length: 100 }, (_, i) => ({ i, text: 'y'.repeat(2000) }));
  const options = { stallTimeout: 60_000, chunkChars: 4096, sliceMs: 0, highWaterMark: 1e9 };
  await new Promise(setImmediate); // a turn no other stream has written in
  const [a, b] = [new JsonStream(value, options), new JsonStream(value, options)];
  a.read(0); // each asks for its first chunk, synchronously, in the same turn
  b.read(0);
  t.ok(a.produced > 0, 'the first wrote its chunk');
  t.equal(b.produced, 0, 'the second waits for a later turn');
  // turn after turn, one chunk (4096 ASCII characters) between the two, the turns taken in the order they stopped
  const total = () => a.produced + b.produced;
  let most = 0;
  let turns = 0;
  for (; b.produced === 0 && turns < 10; turns++) {
    const before = total();
    await new Promise(setImmediate);
    most = Math.max(most, total() - before);
  }
  t.ok(b.produced > 0, `the second wrote ${turns} turns later`);
  t.ok(turns <= 2, 'within two turns: the first went first once, then the second');
  t.ok(most < 2 * 4096, `at most one chunk a turn between them (${most} bytes)`);
  const texts = await Promise.all(
    [a, b].map(async (stream) => {
      const pieces: Buffer[] = [];
      for await (const piece of stream) pieces.push(piece as Buffer);
      return Buffer.concat(pieces).toString('utf8');
    }),
  );
  t.same(texts, [JSON.stringify(value), JSON.stringify(value)], 'both whole, the same bytes');
});

t.test('state, capture and HAR answers are JSON.stringify of the same object, streamed', async (t) => {
  const app = await build(t);
  const T = tenants.romashka;
  const made = await app.inject({
    method: 'POST',
    url: `/__admin/data/${T}/ideas?count=50&sandbox=exp`,
    payload: { title: 'Идея 😀 "quoted"', description: 'line\nbreak' },
  });
  t.equal(made.statusCode, 201, 'records made');
  const flaky = await app.inject({ method: 'PUT', url: '/__admin/scenario?sandbox=exp', payload: { name: 'flaky' } });
  t.equal(flaky.statusCode, 200, 'a scenario with stubs and faults: its behaviour is in the capture');
  await signIn(app, undefined, { sandbox: 'exp' }); // journal entries for the HAR
  const sandbox = app.sandboxes.find('exp')!;

  const state = await app.inject({ url: '/__admin/state?sandbox=exp' });
  t.equal(state.statusCode, 200);
  t.equal(state.headers['content-type'], 'application/json; charset=utf-8');
  t.equal(state.headers['transfer-encoding'], 'chunked', 'streamed, not one body');
  // in the order the route's schema serializer wrote it before it streamed (required keys first)
  const snapshot = {
    format: 'portal-mock-state',
    version: 1,
    data: sandbox.store.toData(),
    sandbox: 'exp',
    seed: sandbox.store.meta.seed,
    scenario: sandbox.scenario,
    clock: sandbox.clock.state,
  };
  t.equal(state.body, JSON.stringify(snapshot), 'the state export is JSON.stringify of the snapshot');
  const shared = app.getSchemas() as Record<string, unknown>;
  t.equal(state.body, schemaSerializer(Snapshot, shared)(snapshot), 'the bytes the schema serializer wrote before');

  const capture = await app.inject({ url: '/__admin/sandboxes/exp/capture' });
  t.equal(capture.statusCode, 200);
  t.equal(capture.headers['content-disposition'], `attachment; filename="${captureName('exp')}.json"`);
  const captured = bugCapture(sandbox, app.scenarios.get(sandbox.scenario), {
    name: captureName('exp'),
    instance: app.instance.name,
  });
  const expected = capturedAsServed(captured, app.getSchemas() as Record<string, unknown>);
  t.equal(
    capture.body,
    JSON.stringify(expected, null, 2),
    'the capture is JSON.stringify of the bug capture, indented',
  );
  t.same(
    JSON.parse(capture.body),
    JSON.parse(schemaSerializer(ScenarioFile, shared)(captured)),
    'what the schema serializer writes of it: nothing the schema leaves out',
  );

  const har = await app.inject({ url: '/__admin/requests?format=har&sandbox=exp' });
  t.equal(har.statusCode, 200);
  t.equal(har.headers['content-disposition'], 'attachment; filename="portal-mock-exp.har"');
  t.equal(har.body, JSON.stringify(JSON.parse(har.body)), 'the HAR is compact JSON');
  t.ok((JSON.parse(har.body) as { log: { entries: unknown[] } }).log.entries.length > 0);
});

/** A raw HTTP/1.1 GET whose answer the client never reads: its socket paused before a byte arrives. */
async function stalledGet(port: number, path: string): Promise<Socket> {
  const socket = connect({ port, host: '127.0.0.1' });
  socket.pause();
  await once(socket, 'connect');
  socket.write(`GET ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: keep-alive\r\n\r\n`);
  return socket;
}

/** The export stream a server pipes into its next answer (Fastify pipes a stream payload into the response). */
function nextExportStream(app: Awaited<ReturnType<typeof build>>): Promise<JsonStream> {
  return new Promise((resolve) => {
    const onRequest = (_req: unknown, res: ServerResponse) => {
      res.once('pipe', (source: Readable) => {
        if (source instanceof JsonStream) {
          app.server.off('request', onRequest);
          resolve(source);
        }
      });
    };
    app.server.on('request', onRequest);
  });
}

/** A sandbox whose state export is about 25 MB: 1,000 ideas of 24,000 characters through the records API. */
async function largeSandbox(app: Awaited<ReturnType<typeof build>>, name: string): Promise<void> {
  const text = 'x'.repeat(12_000);
  const res = await app.inject({
    method: 'POST',
    url: `/__admin/data/${tenants.romashka}/ideas?count=1000&sandbox=${name}`,
    payload: { title: text, description: text },
  });
  if (res.statusCode !== 201) throw new Error(`records: ${res.statusCode} ${res.body.slice(0, 200)}`);
}

t.test(
  'a client that reads nothing holds a bounded buffer, others are answered, and it is cut at the limit',
  async (t) => {
    const stallTimeout = 300;
    const app = await build(t, { exportStallTimeout: stallTimeout });
    await largeSandbox(app, 'big');
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    const port = Number(new URL(base).port);
    const total = Buffer.byteLength(JSON.stringify(app.sandboxes.find('big')!.store.toData()));

    const streamed = nextExportStream(app);
    const client = await stalledGet(port, '/__admin/state?sandbox=big');
    const stream = await streamed;
    const closed = once(client, 'close');
    const failed = once(stream, 'error') as Promise<[StalledReaderError]>;

    const [err] = await failed;
    t.type(err, StalledReaderError, 'the stream ends with the stalled-reader error');
    t.match(err.message, /read nothing for 300 ms/);
    // what the process held for it: the stream's buffer, at most its highWaterMark and one chunk (64 Ki characters,
    // 192 KiB of UTF-8 at worst)
    t.ok(err.heldBytes <= jsonStreamHighWaterMark + 192 * 1024, `held ${err.heldBytes} bytes`);
    // what it wrote at all: that buffer, the response's and the kernel's socket buffers; far from the whole export
    t.ok(err.producedBytes < total / 2, `produced ${err.producedBytes} of ${total} bytes before it waited`);
    // the client reads again: what the kernel held, then the end of a connection the server cut mid-answer
    let received = 0;
    client.on('data', (chunk: Buffer) => {
      received += chunk.length;
    });
    client.resume();
    await closed;
    t.ok(received < total / 2, `the connection is cut: ${received} bytes came`);
    t.equal((await fetch(`${base}/__admin/health`)).status, 200, 'the server goes on');
  },
);

t.test(
  'a reader that reads gets the whole export; others are answered while one waits; one gone ends it',
  async (t) => {
    const app = await build(t, { exportStallTimeout: 60_000 });
    await largeSandbox(app, 'big');
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    const port = Number(new URL(base).port);

    const res = await fetch(`${base}/__admin/state?sandbox=big`);
    const text = await res.text();
    const sandbox = app.sandboxes.find('big')!;
    t.equal(text.length > 20_000_000, true, `${text.length} characters`);
    t.equal(
      JSON.parse(text).data.tenants[tenants.romashka].ideas.length,
      sandbox.store.tenant(tenants.romashka)!.ideas.length,
    );

    const streamed = nextExportStream(app);
    const client = await stalledGet(port, '/__admin/state?sandbox=big');
    const stream = await streamed;
    await once(stream, 'waiting');
    // while the export waits on its reader (60 s before it is cut), the server answers others
    t.equal((await fetch(`${base}/__admin/health`)).status, 200, 'GET /__admin/health answers while the export waits');
    t.notOk(stream.destroyed, 'the export still waits for its reader');
    t.ok(stream.readableLength <= jsonStreamHighWaterMark + 192 * 1024, `${stream.readableLength} bytes buffered`);
    const ended = once(stream, 'close');
    client.destroy();
    await ended;
    t.ok(stream.destroyed, 'a client gone ends its stream: nothing more is written for it');
    t.ok(stream.produced < text.length, 'before it was written whole');
  },
);
