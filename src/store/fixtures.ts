import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Type, type Static } from '@sinclair/typebox';
import { BindLinkRecord, DeviceRecord, TenantRecord, UserRecord } from '../schemas/records.js';
import { checkOrThrow } from '../schemas/check.js';
import { packageRoot } from '../paths.js';

const FixtureAccount = Type.Object({
  userId: Type.String({ format: 'uuid' }),
  email: Type.String({ format: 'email' }),
  password: Type.String({ minLength: 1 }),
  twoFactor: Type.Boolean(),
  ...Type.Pick(UserRecord, ['firstName', 'lastName', 'middleName', 'gender', 'position', 'rights']).properties,
  note: Type.String(),
});

const FixtureDevice = Type.Object({
  id: Type.String({ minLength: 1 }),
  userId: Type.String({ format: 'uuid' }),
  secret: Type.String({ minLength: 1 }),
  ...Type.Pick(DeviceRecord, ['name', 'platform', 'model', 'osVersion', 'appVersion']).properties,
  note: Type.String(),
});

const FixtureTenant = Type.Object({
  ...TenantRecord.properties,
  accounts: Type.Array(FixtureAccount, { minItems: 1 }),
  devices: Type.Array(FixtureDevice),
  apiKeys: Type.Array(Type.Object({ clientId: Type.String(), clientSecret: Type.String(), name: Type.String() })),
  bindLinks: Type.Array(Type.Pick(BindLinkRecord, ['id', 'token', 'userId'])),
});

export const Fixtures = Type.Object({
  $comment: Type.Optional(Type.String()),
  tenants: Type.Array(FixtureTenant, { minItems: 1 }),
});
export type Fixtures = Static<typeof Fixtures>;
export type FixtureTenant = Static<typeof FixtureTenant>;

export const defaultFixturesPath = join(packageRoot, 'fixtures', 'tenants.json');

/**
 * Reads and checks the fixtures file; a bad file stops start-up with one line: `source` (the file's name, or the flag
 * and the file), then what is wrong (unreadable, not JSON, or the JSON path of the first mismatch).
 */
export function loadFixtures(path: string | URL, source = String(path)): Fixtures {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`${source}: cannot read it: ${(err as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new Error(`${source}: not JSON: ${(err as Error).message.replace(/\s+/g, ' ')}`);
  }
  return checkOrThrow(Fixtures, value, source);
}
