// The contract as standard OpenAPI tooling sees it: Spectral's spectral:oas ruleset (what .spectral.yaml extends)
// finds no error and no warning in the live document, examples included (they are checked against their schemas).
import t from 'tap';
import spectralCore from '@stoplight/spectral-core';
import spectralRulesets from '@stoplight/spectral-rulesets';
import { build } from '../helper.js';

const { Spectral } = spectralCore;
const { oas } = spectralRulesets;
const severities = ['error', 'warning', 'info', 'hint'];

for (const url of ['/docs/json', '/__admin/openapi.json'])
  t.test(`${url} passes spectral:oas with 0 errors and 0 warnings`, async (t) => {
    const app = await build(t);
    const res = await app.inject({ url });
    t.equal(res.statusCode, 200);
    const spectral = new Spectral();
    spectral.setRuleset({ extends: [oas] } as never);
    const results = await spectral.run(res.body);
    const problems = results
      .filter((r) => r.severity <= 1)
      .map((r) => `${severities[r.severity]} ${r.code} at ${r.path.join('.')}: ${r.message}`);
    t.same(problems, [], `spectral:oas problems:\n${problems.join('\n')}`);
    t.equal(results.filter((r) => r.severity === 0).length, 0, 'no errors');
    t.equal(results.filter((r) => r.severity === 1).length, 0, 'no warnings');
  });
