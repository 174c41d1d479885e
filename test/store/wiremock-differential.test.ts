// The WireMock core against the real WireMock 3.13 (the jar of the `wiremock` devDependency, on Java): the same
// mappings (POSTed to its admin API in order, body files in its root's __files) and the same requests over real
// HTTP; status, every header the mapping sets, and the body must be what our core computes for the request.
// Refusals: where WireMock refuses too, the same pointer; where it accepts what we refuse, the fixture says so.
// Skipped, saying why, only when `java` is not installed (.ci/run installs a JRE).
import t from 'tap';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { type Case, coreAnswers, corpus, upstreamPlaceholder } from '../support/wiremock-cases.js';
import { build } from '../helper.js';
import { loadMappings } from '../support/wiremock-load.js';
import { javaInstalled, noJarMessage, startWireMockJar, wiremockJar } from '../support/wiremock-jar.js';

if (!javaInstalled)
  t.plan(
    0,
    'java is not installed: the differential test runs the real WireMock jar (apt-get install default-jre-headless)',
  );
else if (!wiremockJar) t.fail(noJarMessage);
else {
  t.setTimeout(10 * 60_000);
  const root = mkdtempSync(join(tmpdir(), 'pm-wiremock-'));
  mkdirSync(join(root, 'mappings'));
  for (const c of corpus.cases)
    for (const [name, content] of Object.entries(c.files ?? {})) {
      mkdirSync(dirname(join(root, '__files', name)), { recursive: true });
      writeFileSync(join(root, '__files', name), content);
    }
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const port = await startWireMockJar(t, wiremockJar, root);

  /**
   * An answer, or how the connection ended without one (`error`: the client's error code, e.g. ECONNRESET, or a
   * parse error for garbage): a mapping's fault is compared by how the connection ends.
   */
  type Answer = {
    status: number;
    statusMessage?: string;
    headers: Record<string, string | string[] | undefined>;
    body: string;
    error?: string;
  };
  const sendTo = (to: number, method: string, path: string, headers: Record<string, string> = {}, body = '') =>
    new Promise<Answer>((resolve) => {
      const broken = (status: number) => (err: NodeJS.ErrnoException) =>
        resolve({ status, headers: {}, body: '', error: err.code ?? err.message });
      const req = httpRequest({ host: '127.0.0.1', port: to, method, path, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', broken(res.statusCode!));
        res.on('end', () =>
          resolve({
            status: res.statusCode!,
            statusMessage: res.statusMessage,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      });
      req.on('error', broken(0));
      req.end(body);
    });
  const send = (method: string, path: string, headers: Record<string, string> = {}, body = '') =>
    sendTo(port, method, path, headers, body);

  // The upstream of the corpus's proxyBaseUrl mappings (upstreamPlaceholder in cases.json): it says what it saw
  const upstream = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/plain', 'x-upstream': 'yes' });
      res.end(`upstream saw ${req.method} ${req.url} ${Buffer.concat(chunks).toString('utf8')}`);
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => upstream.close(() => resolve())));
  const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/up`;
  const mappingsOf = (c: Case): unknown[] =>
    JSON.parse(JSON.stringify(c.mappings).replaceAll(upstreamPlaceholder, upstreamUrl)) as unknown[];

  // portal-mock's side of the comparison over HTTP, below; built before the first assertion (tap ends a root test
  // that goes idle after one)
  const app = await build(t, { now: new Date().toISOString() });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const ourPort = (app.server.address() as AddressInfo).port;
  // A mapping without statusMessage gets the standard reason phrase: Node's spelling here, Jetty's in WireMock; they
  // differ for these codes, on purpose (docs/wiremock.md, "Serving"). A statusMessage is sent as given by both.
  const jettyReasons: Record<number, string> = { 203: 'Non Authoritative Information' };
  const nodeReasons: Record<number, string> = { 203: 'Non-Authoritative Information' };
  const sendOurs = (method: string, path: string, headers: Record<string, string> = {}, body = '') =>
    sendTo(ourPort, method, path, headers, body);

  t.equal((await send('GET', '/__admin/health')).status, 200, 'WireMock is up');
  let compared = 0;
  for (const c of corpus.cases)
    await t.test(`same answers as WireMock: ${c.name}`, async (t) => {
      t.equal((await send('POST', '/__admin/reset')).status, 200);
      for (const m of mappingsOf(c))
        t.equal((await send('POST', '/__admin/mappings', {}, JSON.stringify(m))).status, 201);
      const ours = coreAnswers(c, new Date());
      for (const [i, r] of c.requests.entries()) {
        const theirs = await send(r.method, r.url, r.headers, r.body);
        const mine = ours[i]!;
        const what = `${r.method} ${r.url}`;
        compared++;
        if (r.expect.fault !== undefined) {
          // no answer to compare: the core names the fault, WireMock's connection ends without a whole answer
          t.equal(mine.fault, r.expect.fault, `${what}: the core's fault`);
          t.ok(theirs.error, `${what}: WireMock's ${r.expect.fault} ends the connection (${theirs.error})`);
          continue;
        }
        if (r.expect.proxied) {
          // the core gives the URL it forwards to; WireMock's answer is the upstream's for the same URL
          t.equal(mine.proxyUrl, `${upstreamPlaceholder}${r.url}`, `${what}: forwarded`);
          t.equal(theirs.body, `upstream saw ${r.method} /up${r.url} ${r.body ?? ''}`, `${what}: WireMock forwarded`);
          continue;
        }
        t.equal(mine.status, theirs.status, `${what}: status`);
        if (mine.statusMessage !== undefined) t.equal(mine.statusMessage, theirs.statusMessage, `${what}: reason`);
        // WireMock's 404 is its own diagnostic page; ours is the HTTP layer's (not the core's), so only the status
        if (theirs.status === 404 && mine.status === 404) continue;
        t.equal(mine.body, theirs.body, `${what}: body`);
        for (const [name, value] of mine.headers) {
          const got = theirs.headers[name.toLowerCase()];
          const values = mine.headers.filter(([n]) => n === name).map(([, v]) => v);
          t.same(
            Array.isArray(got) ? got : [got],
            name.toLowerCase() === 'set-cookie' ? values : [value],
            `${what}: ${name}`,
          );
        }
      }
      // The same over HTTP through a sandbox of portal-mock (src/scenarios/wiremock.ts), WireMock's scenarios back
      // at the start: the mappings set on the sandbox (through app.sandboxes until the wmadmin branch's
      // POST /sandbox/NAME/wiremock/__admin/mappings is merged), the body files through app.wiremockRoot (until the
      // wmfiles branch's --wiremock DIR is), the requests under /sandbox/NAME/wiremock.
      t.equal((await send('POST', '/__admin/reset')).status, 200);
      for (const m of mappingsOf(c))
        t.equal((await send('POST', '/__admin/mappings', {}, JSON.stringify(m))).status, 201);
      const sandbox = `diff-${corpus.cases.indexOf(c)}`;
      loadMappings(app, sandbox, mappingsOf(c));
      app.wiremockRoot.readFile = (name) => (c.files?.[name] === undefined ? undefined : Buffer.from(c.files[name]!));
      const mapped = new Set(
        c.mappings.flatMap((m) =>
          Object.keys((m as { response?: { headers?: Record<string, unknown> } }).response?.headers ?? {}).map((h) =>
            h.toLowerCase(),
          ),
        ),
      );
      let overHttp = 0;
      for (const r of c.requests) {
        const what = `over HTTP: ${r.method} ${r.url}`;
        const theirs = await send(r.method, r.url, r.headers, r.body);
        const mine = await sendOurs(r.method, `/sandbox/${sandbox}/wiremock${r.url}`, r.headers, r.body);
        overHttp++;
        if (r.expect.fault !== undefined) {
          t.equal(mine.error, theirs.error, `${what}: the connection ends as WireMock's (${r.expect.fault})`);
          continue;
        }
        t.equal(mine.status, theirs.status, `${what}: status`);
        if (theirs.status !== 404)
          t.equal(
            mine.statusMessage,
            theirs.statusMessage === jettyReasons[theirs.status] ? nodeReasons[theirs.status] : theirs.statusMessage,
            `${what}: reason phrase`,
          );
        if (r.expect.proxied)
          for (const name of ['x-upstream', 'content-type'])
            t.equal(mine.headers[name], theirs.headers[name], `${what}: the upstream's ${name}`);
        if (theirs.status === 404) {
          // WireMock's 404 page is a table; ours says the same in fewer lines (docs/wiremock.md, "Serving")
          t.match(mine.body, /Request was not matched/, `${what}: WireMock's 404`);
          continue;
        }
        t.equal(mine.body, theirs.body, `${what}: body`);
        for (const name of mapped)
          if (theirs.headers[name] !== undefined) t.same(mine.headers[name], theirs.headers[name], `${what}: ${name}`);
      }
      t.equal(overHttp, c.requests.length, 'every request also compared over HTTP');
    });

  await t.test('refusals: the pointer WireMock names, or WireMock accepts what portal-mock refuses', async (t) => {
    t.equal((await send('POST', '/__admin/reset')).status, 200);
    for (const r of corpus.refused) {
      const theirs = await send('POST', '/__admin/mappings', {}, JSON.stringify(r.mapping));
      if (r.wiremock.startsWith('/')) {
        t.equal(theirs.status, 422, `${r.name}: WireMock refuses it too`);
        const body = JSON.parse(theirs.body) as {
          errors: Array<{ code: number; source: { pointer: string }; title: string }>;
        };
        t.match(body.errors[0], { code: 10, source: { pointer: r.wiremock }, title: 'Error parsing JSON' }, r.name);
      } else t.equal(theirs.status, 201, `${r.name}: WireMock ${r.wiremock}; portal-mock refuses it on purpose`);
    }
  });

  t.test('how many requests were compared', async (t) => {
    t.equal(
      compared,
      corpus.cases.reduce((n, c) => n + c.requests.length, 0),
      `${compared} requests compared`,
    );
  });
}
