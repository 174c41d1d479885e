// startMock's options (issue 56, part 5): MockOptions is a plain type written out from config.ts's schema, so the
// package's main declarations load no TypeBox or Fastify. The file must be what `npm run mock-options` writes now,
// and the type must be config's Options, each optional, plus the three buildApp options startMock passes on.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { generateMockOptions, mockOptionsFile } from '../../src/tools/mock-options.js';
import type { Options } from '../../src/config.js';
import type { AppOptions } from '../../src/app.js';
import type { MockOptions } from '../../src/mock-options.gen.js';
import { startMock } from '../../src/start-mock.js';
import { startMock as startServer } from '../../src/start-server.js';

// Checked by the compiler (`tsc --noEmit -p .`, the first step of npm test): an option added to config.ts, or one
// whose type no longer takes what MockOptions says, fails here until the file is written again. MockOptions may be
// narrower than Options: --log-level's schema is a union built from a list, which TypeBox types as a plain string.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Extras = 'logger' | 'tls' | 'caCertificate';
const sameKeys: Same<keyof MockOptions, keyof Options | Extras> = true;
const takenByConfig: Omit<MockOptions, Extras> extends Partial<Options> ? true : false = true;
const passedOn: Same<Pick<MockOptions, Extras>, Pick<AppOptions, Extras>> = true;

t.test('src/mock-options.gen.ts is what `npm run mock-options` makes of config.ts now', async (t) => {
  t.ok(readFileSync(mockOptionsFile, 'utf8') === generateMockOptions(), 'the generated type is current');
  t.ok(sameKeys && takenByConfig && passedOn, "MockOptions is config's Options, each optional, and buildApp's three");
  const text = readFileSync(mockOptionsFile, 'utf8');
  t.match(
    text,
    /port to listen on; 0 picks a free one \(--port; default: 0 \(a free port\)\) \*\/\n {2}port\?: number;/,
  );
  t.match(text, /\(--log-level; default: 'silent'\)/, "startMock's own defaults where they are not the CLI's");
});

t.test('startMock answers { url, admin, close }; portal-mock/server the same with app', async (t) => {
  const mock = await startMock({ now: '2026-03-02T09:00:00.000Z', seed: 7 });
  t.teardown(() => mock.close());
  t.same(Object.keys(mock).sort(), ['admin', 'close', 'url']);
  t.match(mock.url, /^http:\/\/127\.0\.0\.1:\d+$/, 'on 127.0.0.1, a free port');
  t.equal((await mock.admin.health()).seed, 7, 'the options reach the server');

  const server = await startServer({ seed: 8 });
  t.teardown(() => server.close());
  t.same(Object.keys(server).sort(), ['admin', 'app', 'close', 'url']);
  t.equal((await server.app.inject({ url: '/__admin/health' })).json().seed, 8, 'app is the Fastify instance');
});
