// Every 4xx has the one error body shape, also those raised below the routes: Node's HTTP parser (an unencoded
// UTF-8 query, headers over the limit) and Fastify's URL decoding. Raw bytes on a real socket, as a client sends them
// (node's own http client refuses to send a non-ASCII path).
import t from 'tap';
import { connect } from 'node:net';
import { build } from '../helper.js';

function send(port: number, request: Buffer | string): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer')));
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', () => {
      /* the server closes after a parse error */
    });
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const m = /^HTTP\/1\.1 (\d{3})[^\r]*\r\n([\s\S]*?)\r\n\r\n([\s\S]*)$/.exec(text);
      if (!m) return reject(new Error(`not an HTTP answer: ${JSON.stringify(text.slice(0, 300))}`));
      resolve({ status: Number(m[1]), headers: m[2]!, body: m[3]! });
    });
    socket.end(request);
  });
}

t.test('framework-level 4xx answers use the ErrorBody shape', async (t) => {
  const app = await build(t, { bodyLimit: 2048 });
  const port = Number(new URL(await app.listen({ port: 0, host: '127.0.0.1' })).port);
  const cases: Array<[string, Buffer | string, number, string]> = [
    [
      'a raw UTF-8 query',
      Buffer.concat([
        Buffer.from('GET /user/search?q='),
        Buffer.from('ив', 'utf8'),
        Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n'),
      ]),
      400,
      'BAD_REQUEST',
    ],
    [
      'a bad percent-encoding in the path',
      'GET /user/%zz/profile HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      400,
      'BAD_REQUEST',
    ],
    [
      'headers above the limit',
      `GET /__admin/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`,
      431,
      'HEADERS_TOO_LARGE',
    ],
    [
      'a body above --body-limit',
      // the whole body, as long as its Content-Length says: a 413 now reads the rest of its body before answering
      // (src/http/refused-body.ts), and a body cut short by the client's end is a malformed request (400)
      `POST /mobile/request-two-factor HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: 2992\r\n\r\n{"email":"${'a'.repeat(2980)}"}`,
      413,
      'PAYLOAD_TOO_LARGE',
    ],
    ['a request line that is not HTTP', 'HELLO\r\n\r\n', 400, 'BAD_REQUEST'],
  ];
  for (const [what, request, status, code] of cases) {
    const answer = await send(port, request);
    t.equal(answer.status, status, `${what}: status`);
    t.match(answer.headers, /content-type: application\/json/i, `${what}: JSON`);
    const body = JSON.parse(answer.body) as Record<string, unknown>;
    t.match(body, { statusCode: status, error: String, code, message: String }, `${what}: ${answer.body}`);
    t.notOk(/^Client Error$/.test(String(body.message)), `${what}: not Fastify's bare message`);
  }
  t.equal((await fetch(`http://127.0.0.1:${port}/__admin/health`)).status, 200, 'the server still answers');
});
