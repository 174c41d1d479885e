// One HTTP/1.1 exchange as raw bytes on a real socket: node's own clients refuse to send most hostile input (non-ASCII
// paths, bad header bytes), and a server crash that only a real connection's 'close' triggers needs a real socket.
import { connect } from 'node:net';

export type RawRequest = {
  method: string;
  /** request target: path and query, sent byte for byte */
  target: string | Buffer;
  headers: Array<[string, string | Buffer]>;
  body?: Buffer | undefined;
};

export type RawAnswer = {
  /** 0 when the connection ended before a status line */
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** why the exchange ended without a whole answer (a socket error, a timeout), else null */
  problem: string | null;
};

const latin1 = (s: string) => Buffer.from(s, 'latin1');
const bytesOf = (v: string | Buffer) => (typeof v === 'string' ? Buffer.from(v) : v);

/** The bytes of a request: Host (`host`) and Content-Length are added unless the headers hold them. */
export function requestBytes(r: RawRequest, host: string): Buffer {
  const names = new Set(r.headers.map(([n]) => n.toLowerCase()));
  const headers = [...r.headers];
  if (!names.has('host')) headers.unshift(['Host', host]);
  const framed = names.has('content-length') || names.has('transfer-encoding');
  if (r.body !== undefined && !framed) headers.push(['Content-Length', String(r.body.length)]);
  const lines = [latin1(`${r.method} `), bytesOf(r.target), latin1(' HTTP/1.1\r\n')];
  for (const [name, value] of headers) lines.push(latin1(`${name}: `), bytesOf(value), latin1('\r\n'));
  lines.push(latin1('\r\n'));
  if (r.body !== undefined) lines.push(r.body);
  return Buffer.concat(lines);
}

type Head = { status: number; headers: Record<string, string>; headEnd: number };

/** The status line and headers once they are whole, else null. */
function parseHead(buf: Buffer): Head | null {
  const headEnd = buf.indexOf('\r\n\r\n');
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(buf.subarray(0, 20).toString('latin1'));
  if (!m || headEnd < 0) return null;
  const headers: Record<string, string> = {};
  for (const line of buf.subarray(0, headEnd).toString('latin1').split('\r\n').slice(1)) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  return { status: Number(m[1]), headers, headEnd };
}

const chunked = (head: Head) => /chunked/i.test(head.headers['transfer-encoding'] ?? '');

/** Where the answer in `buf` ends, or -1 while it is incomplete (Content-Length, chunked, or no body). */
function answerEnd(buf: Buffer, head: Head, method: string): number {
  const start = head.headEnd + 4;
  if (method === 'HEAD' || head.status === 204 || head.status === 304 || head.status < 200) return start;
  if (chunked(head)) {
    let at = start;
    for (;;) {
      const eol = buf.indexOf('\r\n', at);
      if (eol < 0) return -1;
      const size = Number.parseInt(buf.subarray(at, eol).toString('latin1'), 16);
      if (Number.isNaN(size)) return -1;
      if (size === 0) {
        const end = buf.indexOf('\r\n\r\n', eol);
        return end < 0 ? -1 : end + 4;
      }
      at = eol + 2 + size + 2;
      if (at > buf.length) return -1;
    }
  }
  const length = head.headers['content-length'];
  if (length !== undefined) return buf.length >= start + Number(length) ? start + Number(length) : -1;
  return -1; // no framing: the answer ends when the server closes the connection
}

function dechunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = body.indexOf('\r\n', at);
    if (eol < 0) return Buffer.concat(parts);
    const size = Number.parseInt(body.subarray(at, eol).toString('latin1'), 16);
    if (!(size > 0)) return Buffer.concat(parts);
    parts.push(body.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}

/**
 * Sends one request on a fresh connection and reads one answer. The connection is left open (no FIN) so the server
 * drains a body it did not read instead of resetting the connection, and is closed here once the answer is whole, or
 * when the server closes it. Never rejects: what went wrong is in `problem`.
 */
export function exchange(port: number, r: RawRequest, timeoutMs = 60_000): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let buf = Buffer.alloc(0);
    let settled = false;
    let problem: string | null = null;
    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const head = parseHead(buf);
      if (!head)
        return resolve({ status: 0, headers: {}, body: buf, problem: problem ?? 'no answer before the close' });
      const end = answerEnd(buf, head, r.method);
      const raw = buf.subarray(head.headEnd + 4, end < 0 ? buf.length : end);
      const incomplete = end >= 0 ? null : (problem ?? 'the answer was cut short');
      const body = chunked(head) ? dechunk(raw) : raw;
      resolve({ status: head.status, headers: head.headers, body, problem: incomplete });
    };
    const timer = setTimeout(() => {
      problem = `no whole answer within ${timeoutMs} ms`;
      finish();
    }, timeoutMs);
    socket.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      const head = parseHead(buf);
      if (head && answerEnd(buf, head, r.method) >= 0) finish();
    });
    // a server that answers before reading the whole body may reset the connection while we still write: the answer
    // already read counts; none at all is the problem reported
    socket.on('error', (err: NodeJS.ErrnoException) => {
      problem = `socket error ${err.code ?? err.message}`;
    });
    socket.on('close', finish);
    socket.write(requestBytes(r, `127.0.0.1:${port}`));
  });
}
