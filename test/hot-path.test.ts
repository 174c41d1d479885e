import t from 'tap';
import { Writable } from 'node:stream';
import pino from 'pino';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { sameText } from '../src/store/ids.js';
import { lazyChildLogger } from '../src/http/request-logger.js';

t.test('sameText: equal texts only, whatever the length or the place of the difference', async (t) => {
  t.ok(sameText('', ''));
  t.ok(sameText('HtYQQpPHjg6aGqsv2BhQ', 'HtYQQpPHjg6aGqsv2BhQ'));
  t.notOk(sameText('HtYQQpPHjg6aGqsv2BhQ', 'HtYQQpPHjg6aGqsv2BhR'), 'last character');
  t.notOk(sameText('XtYQQpPHjg6aGqsv2BhQ', 'HtYQQpPHjg6aGqsv2BhQ'), 'first character');
  t.notOk(sameText('abc', 'abcd'), 'a prefix');
  t.notOk(sameText('ключ', 'ключи'));
  t.ok(sameText('ключ', 'ключ'));
});

t.test('request loggers: the pino child is made only when something is logged at an enabled level', async (t) => {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({ write(chunk, _enc, done) { lines.push(JSON.parse(String(chunk))); done(); } });
  const root = pino({ level: 'warn' }, sink) as unknown as FastifyBaseLogger;
  let children = 0;
  const counting = Object.create(root, { child: { value: (...args: Parameters<FastifyBaseLogger['child']>) => { children++; return root.child(...args); } } }) as FastifyBaseLogger;
  const make = (reqId: string) => lazyChildLogger.call({} as FastifyInstance, counting, { reqId }, {}, {} as never);

  const quiet = make('req-1');
  quiet.info({ req: 'incoming' }, 'incoming request');
  quiet.debug('detail');
  t.equal(children, 0, 'nothing logged: no child made');
  t.equal(quiet.level, 'warn');

  const loud = make('req-2');
  loud.warn({ upstream: 'x' }, 'upstream failed');
  loud.error('and again');
  t.equal(children, 1, 'one child for the request, made on its first line');
  await new Promise((resolve) => setImmediate(resolve));
  t.match(lines, [{ reqId: 'req-2', upstream: 'x', msg: 'upstream failed', level: 40 }, { reqId: 'req-2', msg: 'and again', level: 50 }]);

  const withLevel = lazyChildLogger.call({} as FastifyInstance, counting, { reqId: 'req-3' }, { level: 'debug' }, {} as never);
  t.equal(children, 2, 'a route with its own level gets its child at once');
  t.equal(withLevel.level, 'debug');
});
