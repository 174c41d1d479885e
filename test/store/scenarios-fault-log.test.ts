// A deliberate fault is logged as one warning line without a stack: it is what the tester asked for, not a failure.
import t from 'tap';
import { request } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from '../helper.js';

t.test('a truncated answer: half the body arrives, then one warning line names the fault', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pm-fault-log-'));
  const fault = { operations: ['mobileTenantInfo'], kind: 'truncated' };
  writeFileSync(join(dir, 'cut.json'), JSON.stringify({ name: 'cut', description: 'cut answers', faults: [fault] }));
  const lines: string[] = [];
  const stream = { write: (line: string) => void lines.push(line) };
  const app = await build(t, { scenarios: [dir], scenario: 'cut', logger: { level: 'info', stream } });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const { received, error } = await new Promise<{ received: string; error: string }>((resolve) => {
    let received = '';
    const req = request(`${address}/mobile/tenant-info`, { agent: false }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (received += chunk));
      res.on('error', (err: NodeJS.ErrnoException) => resolve({ received, error: err.code ?? err.message }));
      res.on('end', () => resolve({ received, error: 'ended normally' }));
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ received, error: err.code ?? err.message }));
    req.end();
  });
  t.not(error, 'ended normally', `the answer broke off (${error})`);
  t.ok(received.length > 0 && !received.endsWith('}'), `half a body arrived (${received.length} chars)`);
  await app.close(); // the request's log lines are all written by now
  const records = lines.map((line) => JSON.parse(line) as { level: number; msg: string; err?: unknown });
  const warnings = records.filter((r) => r.level >= 40);
  t.equal(warnings.length, 1, 'one warning or error line');
  t.match(warnings[0], { msg: 'scenario fault: answer truncated', fault: 'truncated' });
  t.notOk(
    lines.some((line) => line.includes('    at ')),
    'no stack trace logged',
  );
});
