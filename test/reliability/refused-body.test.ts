// A body too large for its route is answered 413 only once the rest of it was read and thrown away (up to a bound),
// so a client still sending reads the whole answer instead of a broken pipe or a reset. Over a real socket, with a
// writer that sends its body in slices, each after the one before was taken by the kernel.
import t from 'tap';
import { connect, type Socket } from 'node:net';
import { accounts, build } from '../helper.js';

type Outcome = {
  status: number;
  body: string;
  /** the socket error the client met, if any (EPIPE, ECONNRESET) */
  error: string | null;
  /** whether the error (or the close) came before the whole answer was read */
  errorBeforeAnswer: boolean;
  /** bytes of the body the writer sent before the connection ended */
  sent: number;
};

/** Sends `headers` then `total` body bytes in slices of `slice`; reads the answer until the server closes. */
function slowUpload(port: number, head: string, total: number, slice = 64 * 1024): Promise<Outcome> {
  return new Promise((resolve) => {
    const socket: Socket = connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    let sent = 0;
    let error: string | null = null;
    let errorBeforeAnswer = false;
    let closed = false;
    const answer = () => {
      const text = Buffer.concat(received).toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(text)?.[1];
      if (end < 0 || length === undefined) return null;
      const body = text.slice(end + 4);
      return body.length >= Number(length) ? { status: Number(text.slice(9, 12)), body } : null;
    };
    socket.on('data', (chunk) => received.push(chunk));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      error ??= err.code ?? err.message;
      if (!answer()) errorBeforeAnswer = true;
    });
    socket.on('close', () => {
      closed = true;
      const got = answer();
      resolve({ status: got?.status ?? 0, body: got?.body ?? '', error, errorBeforeAnswer, sent });
    });
    const next = () => {
      if (closed || socket.destroyed) return;
      if (sent >= total) return;
      const n = Math.min(slice, total - sent);
      sent += n;
      socket.write(Buffer.alloc(n, 0x20), (err) => {
        if (!err) setImmediate(next);
      });
    };
    socket.write(head, () => setImmediate(next));
  });
}

const jsonHead = (length: number) =>
  'POST /mobile/auth HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
  `X-Service-Tenant-Id: ${accounts.admin.tenantId}\r\nContent-Length: ${length}\r\n\r\n`;

t.test('a JSON body past --body-limit: the client reads the whole 413', async (t) => {
  const app = await build(t);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  const total = 1_500_000; // past the 1 MiB --body-limit
  const out = await slowUpload(port, jsonHead(total), total);
  t.equal(out.status, 413, '413');
  t.match(JSON.parse(out.body), { code: 'PAYLOAD_TOO_LARGE' }, 'the error body, whole');
  t.equal(out.sent, total, 'the writer sent its whole body');
  t.notOk(out.errorBeforeAnswer, `no socket error before the answer was read (${out.error ?? 'none'})`);
  t.equal(out.error, null, 'no EPIPE or ECONNRESET at all');
});

t.test('an upload past its 10 MiB: the client reads the whole 413', async (t) => {
  const app = await build(t);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  const total = 11 * 1024 * 1024;
  const head =
    'PUT /files/00000000-0000-4000-8000-000000000000/upload?tenant=x&expires=1&signature=00 HTTP/1.1\r\n' +
    `Host: 127.0.0.1\r\nContent-Type: application/octet-stream\r\nContent-Length: ${total}\r\n\r\n`;
  const out = await slowUpload(port, head, total, 256 * 1024);
  t.equal(out.status, 413, '413');
  t.match(JSON.parse(out.body), { code: 'PAYLOAD_TOO_LARGE' });
  t.notOk(out.errorBeforeAnswer, `no socket error before the answer was read (${out.error ?? 'none'})`);
});

t.test('past the drain bound the answer goes and the connection closes', async (t) => {
  const app = await build(t, { serverLimits: { drainBytes: 64 * 1024 } });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  const total = 50 * 1024 * 1024;
  const out = await slowUpload(port, jsonHead(total), total);
  t.ok(out.sent < total, `the server closed before the writer was done (${out.sent} of ${total} bytes sent)`);
});
