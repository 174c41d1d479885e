// How deeply a JSON text nests (src/shared/json-depth.ts), and the bound the control plane keeps with it
// (src/control/json-body.ts): an admin body nested past 64 levels is a 400 naming its depth, whether it nests arrays,
// objects or both, and brackets inside strings do not count.
import t from 'tap';
import { jsonDepth } from '../../src/shared/json-depth.js';
import { json, sharedApp, tenants } from '../helper.js';

const ownSandbox = sharedApp(t);

t.test('jsonDepth: arrays and objects count alike; brackets in strings and escaped quotes do not', async (t) => {
  t.equal(jsonDepth(''), 0);
  t.equal(jsonDepth('1'), 0);
  t.equal(jsonDepth('[]'), 1);
  t.equal(jsonDepth('{}'), 1);
  t.equal(jsonDepth('{"a":[1,"]"]}'), 2);
  t.equal(jsonDepth('{"a":{"b":{"c":1}}}'), 3, 'objects in objects');
  t.equal(jsonDepth('[{"a":[{}]}]'), 4, 'arrays and objects in turn');
  t.equal(jsonDepth('[[1],[2],[[3]]]'), 3, 'the deepest branch, not the sum');
  t.equal(jsonDepth('[{},{},{"a":{}}]'), 3, 'a closed object counts down as a closed array does');
  t.equal(jsonDepth('["[[[{{{"]'), 1, 'brackets inside a string');
  t.equal(jsonDepth('["\\"[[[", {}]'), 2, 'an escaped quote does not end the string');
  t.equal(jsonDepth('["\\\\", [1]]'), 2, 'an escaped backslash does: the quote after it ends the string');
  t.equal(jsonDepth(`${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`), 20_000);
});

t.test(
  'an admin body nested 20,000 objects deep is a 400 naming its depth, on lenient and strict routes',
  async (t) => {
    const { inject } = await ownSandbox();
    const deep = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
    const calls = [
      { method: 'POST' as const, url: '/__admin/reset', body: `{"seed":1,"x":${deep(20_000)}}`, depth: 20_001 },
      {
        method: 'POST' as const,
        url: `/__admin/data/${tenants.romashka}/ideas`,
        body: `{"title":"deep","x":${deep(20_000)}}`,
        depth: 20_001,
      },
      { method: 'PUT' as const, url: '/__admin/scenario', body: `{"scenario":${deep(65)}}`, depth: 66 },
    ];
    for (const { method, url, body, depth } of calls) {
      const res = await inject({ method, url, headers: { 'content-type': 'application/json' }, payload: body });
      t.equal(res.statusCode, 400, `${method} ${url}: ${res.body.slice(0, 200)}`);
      t.match(json(res), {
        code: 'BAD_REQUEST',
        message: `the body nests ${depth} levels deep; admin bodies may nest 64`,
      });
    }
    const at64 = `{"scenario":{"name":"flaky","x":${deep(62)}}}`;
    const fine = await inject({
      method: 'PUT',
      url: '/__admin/scenario',
      headers: { 'content-type': 'application/json' },
      payload: at64,
    });
    t.notMatch(fine.body, /levels deep/, 'a body 64 deep is read (what the route says of it is its own answer)');
  },
);
