import { createHash } from 'node:crypto';
import { createServer, request, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import { connect, Socket, type AddressInfo } from 'node:net';
import { once } from 'node:events';
import t from 'tap';
import { coalesceWrites } from '../src/http/coalesce-writes.js';
import { build } from './helper.js';

/** A plain Node server with coalesced writes on a free port, closed at teardown; `before` runs before they are set up. */
async function serve(tt: { teardown(fn: () => unknown): void }, handler: RequestListener, before?: (server: Server) => void): Promise<number> {
  const server: Server = createServer(handler);
  before?.(server);
  coalesceWrites(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  tt.teardown(() => { server.closeAllConnections(); server.close(); });
  return (server.address() as AddressInfo).port;
}

function get(port: number, path = '/'): Promise<{ res: IncomingMessage; body: Buffer }> {
  return new Promise((resolve, reject) => {
    request({ port, host: '127.0.0.1', path }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ res, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    }).on('error', reject).end();
  });
}

/** Every byte the server sends on one raw connection until it closes it. */
async function rawExchange(port: number, text: string): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  socket.on('error', () => { /* a reset after the bytes is what a truncated answer looks like */ });
  socket.write(text);
  await once(socket, 'close');
  return Buffer.concat(chunks).toString('latin1');
}

t.test('an answer is held until the end of the event-loop turn, then written', async (tt) => {
  const seen: { afterEnd?: number; afterTurn?: number } = {};
  const port = await serve(tt, (_req, res) => {
    res.end('hello');
    const socket = res.socket!;
    // without coalescing the kernel takes these few bytes at once and nothing is left to write
    seen.afterEnd = socket.writableLength;
    setImmediate(() => { seen.afterTurn = socket.writableLength; });
  });
  const { res, body } = await get(port);
  tt.equal(res.statusCode, 200);
  tt.equal(body.toString(), 'hello');
  tt.ok(seen.afterEnd! > 0, `held after end(): ${seen.afterEnd} bytes`);
  tt.equal(seen.afterTurn, 0, 'written by the end of the turn');
});

t.test('a large answer written in many pieces arrives whole and in order', async (tt) => {
  const big = Buffer.alloc(3 * 1024 * 1024);
  for (let i = 0; i < big.length; i++) big[i] = (i * 7919) % 251;
  const port = await serve(tt, (_req, res) => {
    let at = 0;
    const piece = 64 * 1024;
    const more = (): void => {
      while (at < big.length) {
        const ok = res.write(big.subarray(at, at + piece));
        at += piece;
        if (!ok) { res.once('drain', more); return; }
      }
      res.end();
    };
    more();
  });
  const { body } = await get(port);
  tt.equal(body.length, big.length);
  tt.equal(createHash('sha256').update(body).digest('hex'), createHash('sha256').update(big).digest('hex'));
});

t.test('keep-alive: several requests on one connection each get their own answer', async (tt) => {
  const port = await serve(tt, (req, res) => { res.end(`answer to ${req.url}`); });
  const socket = connect(port, '127.0.0.1');
  tt.teardown(() => socket.destroy());
  let received = '';
  socket.on('data', (c: Buffer) => { received += c.toString(); });
  // pipelined in one packet: the server reads the three in one turn and holds all three answers
  socket.write('GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\nGET /c HTTP/1.1\r\nHost: x\r\n\r\n');
  while ((received.match(/answer to/g) ?? []).length < 3) await once(socket, 'data');
  tt.match(received, /answer to \/a[\s\S]*answer to \/b[\s\S]*answer to \/c/);
});

t.test('a connection destroyed with a write held still sends it first', async (tt) => {
  const port = await serve(tt, (_req, res) => {
    // as a scenario's truncated answer does: the connection is destroyed in the same turn, before the held write
    // would go out (this immediate comes first: the write reaches the socket only when Node uncorks it, next tick)
    setImmediate(() => res.socket!.destroy());
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('first half');
  });
  const raw = await rawExchange(port, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n');
  tt.match(raw, /^HTTP\/1\.1 200 OK/);
  tt.match(raw, /first half/);
});

t.test('a write that throws breaks its own connection, not the server', async (tt) => {
  let first = true;
  const port = await serve(tt, (req, res) => { res.end(`answer to ${req.url}`); }, (server) => {
    // registered before coalesceWrites, so what it holds and calls later is this throwing write
    server.on('connection', (socket: Socket) => {
      if (!first) return;
      first = false;
      socket._writev = () => { throw new Error('write failed'); };
      socket._write = () => { throw new Error('write failed'); };
    });
  });
  const broken = await rawExchange(port, 'GET /a HTTP/1.1\r\nHost: x\r\n\r\n');
  tt.equal(broken, '', 'the connection whose write threw is closed without an answer');
  const { body } = await get(port, '/b');
  tt.equal(body.toString(), 'answer to /b', 'the server still answers');
});

t.test('the mock coalesces writes over plain HTTP', async (tt) => {
  const app = await build(tt);
  let wrapped: boolean | undefined;
  app.server.on('request', (req: IncomingMessage) => { wrapped = Object.hasOwn(req.socket, '_write') && req.socket._write !== Socket.prototype._write; });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { res } = await get((app.server.address() as AddressInfo).port, '/__admin/health');
  tt.equal(res.statusCode, 200);
  tt.equal(wrapped, true);
});
