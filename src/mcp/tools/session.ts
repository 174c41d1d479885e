// Signing in as the app does: request-two-factor, the code from the outbox when one is required, manual-bind,
// auth; the answer is the four session headers every portal call takes.
import { type Static, Type } from '@sinclair/typebox';
import type { McpServer } from '@modelcontextprotocol/server';
import type { AdminAnswer, AdminCall } from '../admin-call.js';
import { toolSchema } from '../json-schema.js';
import { refusal, structured, toolError } from '../results.js';
import { adminUrl, SandboxName, type ToolContext } from './context.js';

export const SessionHeaders = Type.Object(
  {
    'x-service-tenant-id': Type.String(),
    'x-service-device-id': Type.String(),
    'x-service-session-id': Type.String(),
    'x-service-session-code': Type.String(),
  },
  { description: 'the four session headers' },
);
export const Session = Type.Object(
  {
    email: Type.String(),
    userId: Type.String(),
    tenantId: Type.String(),
    deviceId: Type.String(),
    twoFactor: Type.Boolean({ description: 'a two-factor code was required (read from the outbox)' }),
    headers: SessionHeaders,
  },
  { description: 'a signed-in session: pass it whole to call_portal as `session`' },
);
/**
 * What a tool taking a session accepts: the whole session sign_in and arrange_sandbox return (so one tool's output
 * feeds the next unchanged), or its four headers alone.
 */
export const SessionInput = Type.Union([Session, SessionHeaders], {
  description: 'the session sign_in or arrange_sandbox returned, as is (or only its `headers`)',
});
/** The four headers of a session given either way. */
export function sessionHeaders(session: Static<typeof SessionInput> | undefined): Record<string, string> {
  if (session === undefined) return {};
  return 'headers' in session ? session.headers : session;
}
export type Session = {
  email: string;
  userId: string;
  tenantId: string;
  deviceId: string;
  twoFactor: boolean;
  headers: Record<string, string>;
};

export const SignInFields = {
  email: Type.String({
    minLength: 3,
    maxLength: 320,
    description: 'a demo account (resource portal-mock://fixtures) or a made user',
  }),
  password: Type.Optional(
    Type.String({
      maxLength: 200,
      description: "default: the account's from the fixtures, else the made users' demo1234",
    }),
  ),
  deviceId: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'the device to bind (default agent-<email with @ as .>)',
    }),
  ),
};
type SignInArgs = { sandbox: string; email: string; password?: string; deviceId?: string };

const schemas = {
  in: toolSchema(Type.Object({ sandbox: SandboxName, ...SignInFields }, { additionalProperties: false })),
  out: toolSchema(Session),
};

type Fixtures = { accounts?: { email: string; password: string }[]; generatedPassword?: string };

async function passwordOf(call: AdminCall, email: string): Promise<string | undefined> {
  const answer = await call({ method: 'GET', url: '/__admin/fixtures' });
  const fixtures = (answer.body ?? {}) as Fixtures;
  const account = fixtures.accounts?.find((a) => a.email.toLowerCase() === email.toLowerCase());
  return account?.password ?? fixtures.generatedPassword;
}

const step = (name: string, answer: AdminAnswer) => `${name} answered ${refusal(answer)}`;

/** The sign-in flow in a sandbox: the session, or what refused it (the step and the portal's answer). */
export async function signIn(call: AdminCall, args: SignInArgs): Promise<Session | { error: string }> {
  const sandboxHeader = { 'x-mock-sandbox': args.sandbox };
  const password = args.password ?? (await passwordOf(call, args.email));
  if (password === undefined) return { error: `no password known for ${args.email}: give password` };
  const credentials = { email: args.email, password };
  const portal = (url: string, body: unknown, headers: Record<string, string> = {}) =>
    call({ method: 'POST', url, headers: { ...sandboxHeader, ...headers }, body, portal: true });

  const twoFactor = await portal('/mobile/request-two-factor', credentials);
  if (twoFactor.status !== 200) return { error: step('POST /mobile/request-two-factor', twoFactor) };
  const codeRequired = (twoFactor.body as { codeRequired?: boolean }).codeRequired === true;
  let code: string | undefined;
  if (codeRequired) {
    const outbox = await call({
      method: 'GET',
      url: adminUrl('/__admin/outbox', { sandbox: args.sandbox, kind: 'two-factor-code', to: args.email }),
    });
    code = (outbox.body as { code?: string }[] | undefined)?.[0]?.code;
    if (outbox.status !== 200 || !code) return { error: `no two-factor code in the outbox: ${refusal(outbox)}` };
  }
  // the app's device ids take letters, digits and . _ : -
  const deviceId = args.deviceId ?? `agent-${args.email.toLowerCase().replace(/[^a-z0-9._:-]/g, '.')}`;
  const bind = await portal('/mobile/manual-bind', {
    ...credentials,
    ...(code === undefined ? {} : { code }),
    device: { id: deviceId, platform: 'ios' },
  });
  if (bind.status !== 200) return { error: step('POST /mobile/manual-bind', bind) };
  const secret = (
    bind.body as { accountSecret: { tenantId: string; userId: string; deviceId: string; secret: string } }
  ).accountSecret;
  const auth = await portal(
    '/mobile/auth',
    { secret: secret.secret, userId: secret.userId, deviceId: secret.deviceId },
    { 'x-service-tenant-id': secret.tenantId },
  );
  if (auth.status !== 200) return { error: step('POST /mobile/auth', auth) };
  const { sessionId, sessionSecret } = auth.body as { sessionId: string; sessionSecret: string };
  return {
    email: args.email,
    userId: secret.userId,
    tenantId: secret.tenantId,
    deviceId: secret.deviceId,
    twoFactor: codeRequired,
    headers: {
      'x-service-tenant-id': secret.tenantId,
      'x-service-device-id': secret.deviceId,
      'x-service-session-id': sessionId,
      'x-service-session-code': sessionSecret,
    },
  };
}

export function registerSessionTools(server: McpServer, { call }: ToolContext): void {
  server.registerTool(
    'sign_in',
    {
      title: 'Sign in as a user',
      description:
        "Signs in through the app's real flow (request-two-factor, the code from the outbox when required, " +
        'manual-bind, auth) as a demo account or a made user. Returns the session (user ids and its four headers): ' +
        'pass it as is to call_portal as `session`. Each call binds and authorizes anew: sign in once, reuse it.',
      inputSchema: schemas.in,
      outputSchema: schemas.out,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    async (args) => {
      const session = await signIn(call, args);
      return 'error' in session ? toolError(session.error) : structured(session);
    },
  );
}
