// Scenarios defined through the admin API have bounds (issue 45, finding 5; docs/scenarios.md, "Defining scenarios
// through the admin API"): how many (--max-scenarios, a 409 past it) and how large one is (--max-scenario-bytes, a
// 413), and under --data each is saved in a file of its own, so a save writes that definition and no other; the
// single file of earlier versions is moved into the directory at start. Over real sockets; a probe in another
// sandbox stays correct while the abuser is refused.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { buildApp } from '../../src/app.js';
import { httpCaller } from '../helper.js';
import { listening, stubbing } from '../support/scenario-calls.js';

t.test('past --max-scenarios a new name is a 409; a replace and a delete still go', async (t) => {
  const { call, oauthList } = await listening(t, { maxScenarios: 3 });
  for (const name of ['qa-1', 'qa-2', 'qa-3'])
    t.equal((await call('PUT', `/__admin/scenarios/${name}`, stubbing(name, 503))).status, 201, name);
  const [refused, probed] = await Promise.all([
    call('PUT', '/__admin/scenarios/qa-4', stubbing('qa-4', 503)),
    oauthList('probe'),
  ]);
  t.equal(refused.status, 409);
  t.equal(refused.body.code, 'CONFLICT');
  t.match(refused.body.message, /3 scenarios are defined .* the limit is 3 \(--max-scenarios\): delete one first/);
  t.equal(probed, 200, 'the probe in another sandbox is answered as ever');
  t.equal((await call('GET', '/__admin/scenarios/qa-4')).status, 404, 'nothing was defined');
  const inline = await call('PUT', '/__admin/scenario?sandbox=inline', { scenario: stubbing('qa-4', 502) });
  t.equal(inline.status, 409, 'an inline one counts as well');
  t.equal((await call('GET', '/__admin/scenario?sandbox=inline')).status, 404, 'and made no sandbox');

  t.equal((await call('PUT', '/__admin/scenarios/qa-3', stubbing('qa-3', 504))).status, 200, 'a replace goes');
  t.equal((await call('DELETE', '/__admin/scenarios/qa-1')).status, 200);
  t.equal((await call('PUT', '/__admin/scenarios/qa-4', stubbing('qa-4', 503))).status, 201, 'room again');
  t.equal(await oauthList('probe', { 'x-mock-scenario': 'qa-4' }), 503);
});

t.test('a definition larger than --max-scenario-bytes is a 413 and changes nothing', async (t) => {
  const { call, oauthList } = await listening(t, { maxScenarioBytes: 4096 });
  t.equal((await call('PUT', '/__admin/scenarios/qa-big', stubbing('qa-big', 503))).status, 201);
  const large = stubbing('qa-big', 504, { description: 'x'.repeat(5000) });
  const [refused, probed] = await Promise.all([call('PUT', '/__admin/scenarios/qa-big', large), oauthList('probe')]);
  t.equal(refused.status, 413);
  t.equal(refused.body.code, 'PAYLOAD_TOO_LARGE');
  t.match(refused.body.message, /at most 4096 \(--max-scenario-bytes\)/);
  t.equal(probed, 200, 'the probe in another sandbox is answered as ever');
  t.equal(await oauthList('big', { 'x-mock-scenario': 'qa-big' }), 503, 'the definition before it stays');
});

t.test('under --data each definition is a file of its own: a save writes only its own', async (t) => {
  const data = mkdtempSync(join(tmpdir(), 'scenario-bounds-'));
  const dir = join(data, 'portal-mock.scenarios');
  const first = await buildApp({ data });
  const call = httpCaller(await first.listen({ port: 0, host: '127.0.0.1' }));
  t.equal((await call('PUT', '/__admin/scenarios/qa-a', stubbing('qa-a', 503))).status, 201);
  t.equal((await call('PUT', '/__admin/scenarios/qa-b', stubbing('qa-b', 504))).status, 201);
  t.same(readdirSync(dir).sort(), ['qa-a.json', 'qa-b.json']);
  t.same(JSON.parse(readFileSync(join(dir, 'qa-a.json'), 'utf8')), stubbing('qa-a', 503));
  const a = statSync(join(dir, 'qa-a.json'));
  t.equal((await call('PUT', '/__admin/scenarios/qa-b', stubbing('qa-b', 502))).status, 200);
  const after = statSync(join(dir, 'qa-a.json'));
  t.same([after.ino, after.mtimeMs], [a.ino, a.mtimeMs], 'saving qa-b did not write qa-a');
  t.equal((await call('DELETE', '/__admin/scenarios/qa-a')).status, 200);
  t.same(readdirSync(dir), ['qa-b.json'], 'a delete removes its file');
  t.notOk(existsSync(join(data, 'portal-mock.scenarios.json')), 'no file of them all');
  await first.close();

  const { call: again, oauthList } = await listening(t, { data });
  t.equal((await again('GET', '/__admin/scenarios/qa-a')).status, 404, 'the deleted one stays deleted');
  t.equal(await oauthList('back', { 'x-mock-scenario': 'qa-b' }), 502, 'the last version of qa-b is back');
});

t.test('the single file of earlier versions is moved into the directory at start', async (t) => {
  const data = mkdtempSync(join(tmpdir(), 'scenario-bounds-'));
  const legacy = join(data, 'portal-mock.scenarios.json');
  writeFileSync(legacy, JSON.stringify({ format: 1, scenarios: [stubbing('qa-old', 503), stubbing('qa-older', 504)] }));
  const { oauthList } = await listening(t, { data });
  t.equal(await oauthList('old', { 'x-mock-scenario': 'qa-old' }), 503);
  t.equal(await oauthList('old', { 'x-mock-scenario': 'qa-older' }), 504);
  t.same(readdirSync(join(data, 'portal-mock.scenarios')).sort(), ['qa-old.json', 'qa-older.json']);
  t.notOk(existsSync(legacy), 'the old file is gone once its definitions have files of their own');

  const damaged = mkdtempSync(join(tmpdir(), 'scenario-bounds-'));
  const damagedDir = join(damaged, 'portal-mock.scenarios');
  await buildApp({ data: damaged }).then((app) => app.close()); // makes nothing before a definition
  t.notOk(existsSync(damagedDir));
  mkdirSync(damagedDir);
  writeFileSync(join(damagedDir, 'qa-x.json'), JSON.stringify({ ...stubbing('qa-y', 503) }));
  await t.rejects(buildApp({ data: damaged }), /qa-x\.json: at \/name: expected "qa-x"/, 'a misnamed file stops');
});
