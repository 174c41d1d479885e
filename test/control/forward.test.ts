// The one forwarder (src/http/forward.ts): one hop-by-hop rule for the pass-through and the relay between peers,
// the headers a Connection header names included (RFC 9110 §7.6.1), in both directions.
import t from 'tap';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { build, json } from '../helper.js';
import { exchange } from '../support/raw-http.js';
import { forwardableHeaders, staysOnThisHop } from '../../src/http/forward.js';

t.test('hop-by-hop: the fixed list and whatever the Connection header names, in any case and spacing', async (t) => {
  const stays = staysOnThisHop(['keep-alive,  X-Hop ', 'other']);
  for (const name of [
    'connection',
    'keep-alive',
    'te',
    'transfer-encoding',
    'upgrade',
    'proxy-authorization',
    'x-hop',
    'other',
  ])
    t.ok(stays(name), `${name} stays`);
  for (const name of ['host', 'content-length', 'x-forwarded-for', 'authorization'])
    t.notOk(stays(name), `${name} goes on`);
  t.same(
    forwardableHeaders({ connection: 'x-a', 'x-a': '1', 'x-b': ['2', '3'], te: 'trailers', host: 'h' }),
    { 'x-b': ['2', '3'], host: 'h' },
    'arrays kept as they came; host is not hop-by-hop (the relay keeps it)',
  );
  t.same(
    forwardableHeaders({ 'x-b': '2', cookie: 'c' }, (n) => n === 'cookie'),
    { 'x-b': '2' },
    'and what the caller drops',
  );
});

t.test('pass-through: neither the request nor the answer carries a hop-by-hop header on', async (t) => {
  let seen: IncomingHttpHeaders = {};
  const up = createServer((req, res) => {
    seen = req.headers;
    res.writeHead(200, {
      'content-type': 'application/json',
      connection: 'close, x-hop-answer',
      'x-hop-answer': 'dropped',
      'proxy-authenticate': 'Basic',
      'x-end': 'kept',
    });
    res.end('{"ok":true}');
  });
  await new Promise<void>((resolve) => up.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => up.close(() => resolve())));
  const app = await build(t, { proxy: `http://127.0.0.1:${(up.address() as AddressInfo).port}/api/v2` });
  const res = await app.inject({
    url: '/goals/list',
    headers: {
      connection: 'x-hop-request',
      'x-hop-request': 'dropped',
      'proxy-authorization': 'Basic eA==',
      te: 'trailers',
      'x-kept': 'kept',
    },
  });
  t.same(json(res), { ok: true });
  t.equal(seen['x-kept'], 'kept');
  for (const name of ['x-hop-request', 'proxy-authorization', 'te']) t.equal(seen[name], undefined, `${name} not sent`);
  t.equal(res.headers['x-end'], 'kept');
  for (const name of ['x-hop-answer', 'proxy-authenticate'])
    t.equal(res.headers[name], undefined, `${name} not relayed`);
});

t.test('relay to the peer that holds the sandbox: the headers its Connection header names stay here', async (t) => {
  const owner = await build(t, { instanceName: 'owner' });
  await owner.inject({ url: '/mobile/tenant-info', headers: { 'x-mock-sandbox': 'held' } });
  const ownerBase = await owner.listen({ port: 0, host: '127.0.0.1' });
  const asked = await build(t, { instanceName: 'asked', peers: [ownerBase] });
  await asked.listen({ port: 0, host: '127.0.0.1' });
  const answer = await exchange((asked.server.address() as AddressInfo).port, {
    method: 'GET',
    target: '/mobile/tenant-info?relayed=1',
    headers: [
      ['X-Mock-Sandbox', 'held'],
      ['Connection', 'keep-alive, X-Hop-Request'],
      ['X-Hop-Request', 'dropped'],
      ['X-Kept', 'kept'],
    ],
  });
  t.equal(answer.headers['x-mock-instance'], 'owner', 'the owner answered');
  const journal = JSON.stringify(json(await owner.inject({ url: '/__admin/requests?sandbox=held' })));
  t.match(journal, /relayed=1/, "the owner's journal has the call");
  t.match(journal, /"x-kept":"kept"/);
  t.notMatch(journal, /x-hop-request/i, 'the header the Connection header named was not relayed');
  t.match(journal, /"x-mock-forwarded":"asked"/, 'the relay marks the call as forwarded');
});
