// A standard generator makes a usable client from the contract: @hey-api/openapi-ts generates a TypeScript client
// from /docs/json, a sign-in written against it type-checks under strict tsc (a wrong body does not), and it signs
// in and reads the dashboard from the mock over a real socket, authenticating through the declared security.
import t from 'tap';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { createClient } from '@hey-api/openapi-ts';
import { build as esbuild } from 'esbuild';
import { accounts, build } from '../helper.js';
import { withoutTapHooks } from '../support/process.js';

const tsc = join(import.meta.dirname, '..', '..', 'node_modules', 'typescript', 'bin', 'tsc');

const signInSource = `
import { client } from './client/client.gen.js';
import { dashboard, mobileAuth, mobileManualBind, mobileRequestTwoFactor } from './client/sdk.gen.js';

/** Binds a device, opens a session and reads the dashboard: the generated client sends the session headers itself. */
export async function signIn(baseUrl: string, email: string, password: string): Promise<string[]> {
  client.setConfig({ baseUrl });
  const check = await mobileRequestTwoFactor({ body: { email, password }, throwOnError: true });
  if (check.data.codeRequired) throw new Error('this sample signs in an account without two-factor');
  const bound = await mobileManualBind({ body: { email, password, device: { id: 'generated-client', platform: 'ios' } }, throwOnError: true });
  const { secret, userId, deviceId, tenantId } = bound.data.accountSecret;
  const session = await mobileAuth({ body: { secret, userId, deviceId }, auth: () => tenantId, throwOnError: true });
  const values: Record<string, string> = {
    'x-service-tenant-id': tenantId, 'x-service-device-id': deviceId,
    'x-service-session-id': session.data.sessionId, 'x-service-session-code': session.data.sessionSecret,
  };
  client.setConfig({ auth: (scheme) => (scheme.name ? values[scheme.name] : undefined) });
  const board = await dashboard({ query: { widgets: 'myTeam,updNews', info: 'profileBrief' }, throwOnError: true });
  const name: string | undefined = board.data.profileBrief?.name;
  return [name ?? '', ...Object.keys(board.data.widgets)];
}
`;

const wrongSource = `
import { mobileManualBind } from './client/sdk.gen.js';
// @ts-expect-error the body needs a device, and email is a string
void mobileManualBind({ body: { email: 42, password: 'x' } });
`;

const tsconfig = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    lib: ['ES2023', 'DOM', 'DOM.Iterable'],
    strict: true,
    noEmit: true,
    skipLibCheck: false,
    types: [],
  },
  include: ['**/*.ts'],
};

t.test('a client generated from /docs/json type-checks a sign-in and signs in', async (t) => {
  const app = await build(t);
  const doc = (await app.inject({ url: '/docs/json' })).json() as object;
  const dir = mkdtempSync(join(tmpdir(), 'portal-mock-client-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  await createClient({ input: doc, output: join(dir, 'client'), logs: { level: 'silent' } } as never);
  const sdk = readFileSync(join(dir, 'client', 'sdk.gen.ts'), 'utf8');
  const functions = [...sdk.matchAll(/^export const (\w+) =/gm)].map((m) => m[1]!);
  t.ok(functions.includes('mobileAuth') && functions.length > 90, `${functions.length} functions generated`);
  t.same(
    functions.filter((name) => name.startsWith('mock')),
    [],
    "no function of the mock's control plane: /docs/json is the portal's API alone",
  );
  writeFileSync(join(dir, 'sign-in.ts'), signInSource);
  writeFileSync(join(dir, 'wrong.ts'), wrongSource);
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  let out = '';
  let status = 0;
  try {
    out = execFileSync(...withoutTapHooks(process.execPath, [tsc, '--noEmit', '-p', join(dir, 'tsconfig.json')]), {
      encoding: 'utf8',
    });
  } catch (e) {
    const failed = e as { status: number; stdout: string };
    status = failed.status;
    out = failed.stdout;
  }
  t.equal(
    status,
    0,
    `tsc --noEmit exits 0 on the generated client and the sign-in${out ? `:\n${out.slice(0, 3000)}` : ''}`,
  );

  // run the same sign-in, compiled, against the mock on a real socket
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  await esbuild({
    entryPoints: [join(dir, 'sign-in.ts')],
    outfile: join(dir, 'sign-in.mjs'),
    bundle: true,
    format: 'esm',
    platform: 'node',
    logLevel: 'warning',
  });
  const { signIn } = (await import(join(dir, 'sign-in.mjs'))) as {
    signIn: (b: string, e: string, p: string) => Promise<string[]>;
  };
  const [name, ...widgets] = await signIn(base, accounts.admin.email, accounts.admin.password);
  t.equal(name, 'Петров Иван Сергеевич', 'the dashboard answers for the signed-in user');
  t.same(widgets.sort(), ['myTeam', 'updNews'], 'the requested widgets');
});
