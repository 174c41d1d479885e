// A WireMock root directory (src/wiremock/root.ts, --wiremock DIR): its mappings in sorted path order, both file
// shapes, ids made from the file when absent, the first problem naming its file and JSON pointer, the bounds of a
// sandbox; the __files reader, which never leaves __files and reads at most its bound.
import t from 'tap';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultMappingLimits } from '../../src/wiremock/mapping.js';
import { derivedId, readRootMappings, rootFileReader, type RootLimits } from '../../src/wiremock/root.js';
import { tempDir } from '../support/temp-dir.js';

const limits: RootLimits = { mapping: defaultMappingLimits, stubs: { maxMappings: 500, maxBytes: 1024 * 1024 } };
const put = (root: string, path: string, value: unknown) => {
  const file = join(root, path);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
  return file;
};
const stub = (url: string, extra: Record<string, unknown> = {}) => ({
  request: { method: 'GET', url },
  response: { status: 200, body: url },
  ...extra,
});
const fixedId = '8c5db8b0-2db4-4ad7-a99f-38c9b00da3f7';

t.test(
  'mappings in sorted path order, every depth, one mapping or {"mappings": [...]}; other files ignored',
  async (t) => {
    const root = tempDir(t, 'pm-wm-root-');
    put(root, 'mappings/b.json', stub('/b', { id: fixedId }));
    put(root, 'mappings/a/z.json', { mappings: [stub('/a-z-0'), stub('/a-z-1')] });
    put(root, 'mappings/a.json', stub('/a'));
    put(root, 'mappings/notes.txt', 'not a mapping');
    put(root, '__files/x.json', '{}');
    const stubs = readRootMappings(root, limits);
    if ('problem' in stubs) return t.fail(stubs.problem);
    t.same(
      stubs.mappings.map((m) => m.request.url),
      ['/a', '/a-z-0', '/a-z-1', '/b'],
      'a.json < a/z.json < b.json: code-unit order of the paths',
    );
    t.equal(stubs.mappings[3]!.id, fixedId, 'an id the file gives is kept');
    t.equal(stubs.mappings[0]!.id, derivedId('wiremock-root:a.json#0'), 'one it does not give is made from its path');
    t.equal(stubs.mappings[2]!.id, derivedId('wiremock-root:a/z.json#1'), '… and its place in the file');
    t.match(stubs.mappings[0]!.id, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'a UUID');
    const again = readRootMappings(root, limits);
    t.same('problem' in again ? again : again.mappings, stubs.mappings, 'the same files give the same mappings');
    t.equal(stubs.states.size, 0, 'every WireMock scenario starts in "Started"');
  },
);

t.test('no mappings directory: no mappings', async (t) => {
  const root = tempDir(t, 'pm-wm-root-');
  const stubs = readRootMappings(root, limits);
  t.ok(!('problem' in stubs) && stubs.isEmpty);
});

t.test('the first bad file stops the reading, naming the file and the JSON pointer', async (t) => {
  const cases: Array<{ files: Record<string, unknown>; problem: RegExp }> = [
    {
      files: { 'a.json': stub('/a'), 'b.json': { request: { url: '/b', bodyPatterns: [{ equalToXml: '<a/>' }] } } },
      problem: /mappings\/b\.json: at \/request\/bodyPatterns\/0\/equalToXml: Unsupported by portal-mock: /,
    },
    {
      files: { 'many.json': { mappings: [stub('/ok'), { request: { url: '/x', nope: 1 } }] } },
      problem: /many\.json: at \/mappings\/1\/request\/nope: Error parsing JSON: Unrecognized field "nope"/,
    },
    { files: { 'x.json': '{"request": ' }, problem: /x\.json: not valid JSON: / },
    { files: { 'x.json': { mappings: { a: 1 } } }, problem: /x\.json: at \/mappings: expected an array/ },
    { files: { 'x.json': [stub('/a')] }, problem: /x\.json: at \/: Error parsing JSON: expected an object/ },
    {
      files: { 'x.json': { mappings: [stub('/a', { id: fixedId }), stub('/b', { id: fixedId })] } },
      problem: /x\.json: at \/mappings\/1\/id: Duplicate id: the id of the mapping at \/mappings\/0/,
    },
    {
      files: { 'a.json': stub('/a', { id: fixedId }), 'b/c.json': stub('/c', { id: fixedId.toUpperCase() }) },
      problem: new RegExp(`b/c\\.json: at /id: ${fixedId}, the id of a mapping of .*mappings/a\\.json`),
    },
    {
      files: { 'x.json': stub('/a', { request: { urlPattern: '(?=a)b' } }) },
      problem: /x\.json: at \/request\/urlPattern: /,
    },
  ];
  for (const c of cases) {
    const root = tempDir(t, 'pm-wm-root-');
    for (const [name, value] of Object.entries(c.files)) put(root, `mappings/${name}`, value);
    const stubs = readRootMappings(root, limits);
    t.match('problem' in stubs ? stubs.problem : 'read', c.problem, Object.keys(c.files).join(', '));
    if ('problem' in stubs) t.ok(stubs.problem.startsWith(join(root, 'mappings')), 'names the file by its path');
  }
});

t.test("past a sandbox's bounds: the reading stops, naming the flag", async (t) => {
  const root = tempDir(t, 'pm-wm-root-');
  put(root, 'mappings/a.json', { mappings: [stub('/1'), stub('/2')] });
  put(root, 'mappings/b.json', stub('/3'));
  const few = readRootMappings(root, { ...limits, stubs: { maxMappings: 2, maxBytes: 1024 * 1024 } });
  t.match(
    'problem' in few && few.problem,
    /b\.json: with this file, .*at most 2 stub mappings \(--wiremock-max-mappings\)/,
  );
  const exact = readRootMappings(root, { ...limits, stubs: { maxMappings: 3, maxBytes: 1024 * 1024 } });
  t.equal('problem' in exact ? exact.problem : exact.mappings.length, 3, 'at the bound: read');
  const small = readRootMappings(root, { ...limits, stubs: { maxMappings: 500, maxBytes: 150 } });
  t.match('problem' in small && small.problem, /--wiremock-sandbox-kb/);
  const tiny = readRootMappings(root, { ...limits, stubs: { maxMappings: 500, maxBytes: 20 } });
  t.match(
    'problem' in tiny && tiny.problem,
    /a\.json: \d+ bytes, more than .*--wiremock-sandbox-kb/,
    'a file too large is not parsed',
  );
  for (let i = 0; i < 4; i++) put(root, `mappings/many/${i}.json`, stub(`/m${i}`));
  const files = readRootMappings(root, { ...limits, stubs: { maxMappings: 3, maxBytes: 1024 * 1024 } });
  t.match('problem' in files && files.problem, /more than 3 mapping files/, 'the walk stops past the bound');
});

t.test('__files: read when asked, a relative name only, never outside __files, at most the bound', async (t) => {
  const root = tempDir(t, 'pm-wm-root-');
  const outside = tempDir(t, 'pm-wm-outside-');
  put(root, '__files/hello.json', '{"hello":"world"}');
  put(root, '__files/deep/er/a.txt', 'deep');
  put(root, 'mappings/secret.json', 'not a body file');
  put(outside, 'secret.txt', 'secret');
  symlinkSync(join(outside, 'secret.txt'), join(root, '__files', 'link-out.txt'));
  symlinkSync(join(root, '__files', 'hello.json'), join(root, '__files', 'link-in.json'));
  put(root, '__files/big.bin', Buffer.alloc(101).toString());
  const warnings: string[] = [];
  const read = rootFileReader(root, 100, (m) => warnings.push(m));
  t.equal(read('hello.json')?.toString(), '{"hello":"world"}');
  t.equal(read('deep/er/a.txt')?.toString(), 'deep');
  t.equal(read('link-in.json')?.toString(), '{"hello":"world"}', 'a link inside __files is followed');
  put(root, '__files/hello.json', '{"hello":"again"}');
  t.equal(read('hello.json')?.toString(), '{"hello":"again"}', 'read when asked: a changed file as it is now');
  for (const name of [
    'missing.json',
    'deep',
    '../mappings/secret.json',
    'deep/../../mappings/secret.json',
    join(root, 'mappings/secret.json'),
    '/etc/passwd',
    'link-out.txt',
    './hello.json',
    'deep//er/a.txt',
    'hello.json\0',
    '',
  ])
    t.equal(read(name), undefined, `${JSON.stringify(name)}: none`);
  t.equal(warnings.length, 0, 'a missing or refused name is no warning');
  t.equal(read('big.bin'), undefined, 'past the bound: none');
  t.match(warnings, [/big\.bin: 101 bytes, more than a body file may have \(100, --body-limit\)/]);
  t.equal(rootFileReader(tempDir(t, 'pm-wm-empty-'), 100)('hello.json'), undefined, 'no __files: none');
});

t.test('a link to nothing, a directory that cannot be listed: a problem naming it, not a throw', async (t) => {
  const root = tempDir(t, 'pm-wm-root-');
  put(root, 'mappings/a.json', stub('/a'));
  symlinkSync(join(root, 'nowhere.json'), join(root, 'mappings', 'dangling.json'));
  const stubs = readRootMappings(root, limits);
  t.match('problem' in stubs && stubs.problem, /dangling\.json: cannot read it \(ENOENT\)/);
});
