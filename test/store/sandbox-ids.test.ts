// Ids and secrets are minted from the seed, the sandbox name and a counter: two sandboxes signing in the same device
// get different sessions (logs of two testers do not collide), and the same sandbox on a fresh app gets the same
// ones again (a replayable bug).
import t from 'tap';
import { accounts, build, signIn } from '../helper.js';

t.test(
  'the same device signed in in two sandboxes gets different session ids and secrets; deterministic per sandbox',
  async (t) => {
    const deviceId = 'shared-test-device';
    const app = await build(t);
    const a = await signIn(app, accounts.twoFactor, { sandbox: 'tester-a', deviceId });
    const b = await signIn(app, accounts.twoFactor, { sandbox: 'tester-b', deviceId });
    t.not(a.sessionId, b.sessionId, 'session ids differ');
    t.not(a.sessionSecret, b.sessionSecret, 'session secrets differ');
    const code = (sandbox: string) =>
      app.sandboxes
        .get(sandbox)
        .outbox.list()
        .find((m) => m.kind === 'two-factor-code')?.code;
    t.not(code('tester-a'), code('tester-b'), 'two-factor codes differ');

    const again = await build(t);
    const a2 = await signIn(again, accounts.twoFactor, { sandbox: 'tester-a', deviceId });
    t.same(
      [a2.sessionId, a2.sessionSecret],
      [a.sessionId, a.sessionSecret],
      'the same sandbox name and seed on a fresh app mint the same',
    );
    const other = await build(t, { seed: 43 });
    t.not(
      (await signIn(other, accounts.twoFactor, { sandbox: 'tester-a', deviceId })).sessionId,
      a.sessionId,
      'another seed mints others',
    );
  },
);
