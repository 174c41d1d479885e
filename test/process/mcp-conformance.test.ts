// The official MCP conformance suite (@modelcontextprotocol/conformance, its CLI) against /__admin/mcp on a real
// socket, for the server scenarios that apply to this endpoint. Most of its other server scenarios call the test
// tools, resources and prompts of the SDKs' "everything" reference server (test_simple_text, test://static-text,
// test_simple_prompt...), or features a stateless endpoint without server-to-client messages does not have: each is
// listed below with the reason, and docs/mcp.md "Conformance" says the same. A scenario a new version of the suite
// adds fails this file until it is placed in one of the two lists. The suite talks to the URL it is given only.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { listening } from '../support/mcp-client.js';
import { withoutTapHooks } from '../support/process.js';

const cli = fileURLToPath(
  new URL('../../node_modules/@modelcontextprotocol/conformance/dist/index.js', import.meta.url),
);
// fs.globSync for the suite on Node 20 (see the file)
const register = fileURLToPath(new URL('../support/conformance/register.mjs', import.meta.url));

/** Scenarios whose checks must all pass against our endpoint. */
const applies = [
  'server-initialize',
  'ping',
  'tools-list',
  'resources-list',
  'prompts-list',
  'dns-rebinding-protection',
];

/** Scenarios that do not apply, and why (docs/mcp.md "Conformance" has the same list). */
const doesNotApply: Record<string, string> = {
  'logging-set-level': 'no logging capability: tools answer in their result, nothing is logged to the client',
  'completion-complete': "calls the reference server's prompt test_prompt_with_arguments; no completion capability",
  'tools-call-simple-text': "calls the reference server's tool test_simple_text",
  'tools-call-image': "calls the reference server's tool test_image_content",
  'tools-call-audio': "calls the reference server's tool test_audio_content",
  'tools-call-embedded-resource': "calls the reference server's tool test_embedded_resource",
  'tools-call-mixed-content': "calls the reference server's tool test_multiple_content_types",
  'tools-call-with-logging': "calls the reference server's tool test_tool_with_logging; no logging capability",
  'tools-call-error':
    "calls the reference server's tool test_error_handling (our errors: test/control/mcp-tools.test.ts)",
  'tools-call-with-progress': "calls the reference server's tool test_tool_with_progress; answers are one JSON body",
  'tools-call-sampling': 'a server-to-client request (sampling): a stateless JSON endpoint sends none',
  'tools-call-elicitation': 'a server-to-client request (elicitation): a stateless JSON endpoint sends none',
  'json-schema-2020-12': "calls the reference server's tool json_schema_2020_12_tool",
  'elicitation-sep1034-defaults': 'a server-to-client request (elicitation): a stateless JSON endpoint sends none',
  'elicitation-sep1330-enums': 'a server-to-client request (elicitation): a stateless JSON endpoint sends none',
  'server-sse-polling': 'needs a session and SSE answers: the endpoint is stateless, each answer one JSON body',
  'server-sse-multiple-streams': 'needs a session and SSE streams: the endpoint is stateless (GET is 405)',
  'resources-read-text': "reads the reference server's resource test://static-text",
  'resources-read-binary': "reads the reference server's resource test://static-binary",
  'resources-templates-read': "reads the reference server's template test://template/{id}/data",
  'resources-subscribe': 'no subscriptions: the resources (API document, schemas, catalogues) do not change',
  'resources-unsubscribe': 'no subscriptions: the resources do not change',
  'prompts-get-simple': "gets the reference server's prompt test_simple_prompt",
  'prompts-get-with-args': "gets the reference server's prompt test_prompt_with_arguments",
  'prompts-get-embedded-resource': "gets the reference server's prompt test_prompt_with_embedded_resource",
  'prompts-get-with-image': "gets the reference server's prompt test_prompt_with_image",
};

/** One check of a scenario, as the suite writes it to checks.json under --output-dir. */
type Check = { id: string; status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | string };

/**
 * The suite's CLI, in a scratch directory; its exit code, its output, and with `results` the checks of each scenario
 * it ran (from the checks.json files its --output-dir gets, one folder `server-SCENARIO-TIME` a scenario).
 */
function conformance(
  args: string[],
  { results = false } = {},
): Promise<{ code: number | null; out: string; checks: Map<string, Check[]> }> {
  const cwd = mkdtempSync(join(tmpdir(), 'portal-mock-conformance-'));
  const outputDir = join(cwd, 'results');
  const [command, commandArgs] = withoutTapHooks(process.execPath, [
    '--import',
    register,
    cli,
    ...args,
    ...(results ? ['--output-dir', outputDir] : []),
  ]);
  const child = spawn(command, commandArgs, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env } });
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    out += d.toString();
  });
  return new Promise((resolve) =>
    child.on('close', (code) => {
      const checks = new Map<string, Check[]>();
      if (results && existsSync(outputDir))
        for (const folder of readdirSync(outputDir)) {
          const scenario = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(folder)?.[1];
          const file = join(outputDir, folder, 'checks.json');
          if (scenario && existsSync(file)) checks.set(scenario, JSON.parse(readFileSync(file, 'utf8')) as Check[]);
        }
      rmSync(cwd, { recursive: true, force: true });
      // colours off: the suite prints ANSI escapes even into a pipe
      resolve({ code, out: out.replace(/\x1b\[[0-9;]*m/g, ''), checks });
    }),
  );
}

t.test('every server scenario of the suite is either run or listed as not applying', async (t) => {
  const { code, out } = await conformance(['list']);
  t.equal(code, 0, 'conformance list');
  const server = out.split('Client scenarios')[0]!;
  const listed = [...server.matchAll(/^\s+- ([a-z0-9-]+) /gm)].map((m) => m[1]!);
  t.ok(listed.length >= 30, `${listed.length} server scenarios`);
  t.same(
    listed.filter((name) => !applies.includes(name) && !(name in doesNotApply)),
    [],
    'none unplaced',
  );
  t.same(
    [...applies, ...Object.keys(doesNotApply)].filter((name) => !listed.includes(name)),
    [],
    'none placed that the suite no longer has',
  );
});

t.test('the scenarios that apply pass against /__admin/mcp', async (t) => {
  const { base } = await listening(t);
  // one run of every server scenario (--suite all) instead of one process a scenario: a start of the suite's CLI
  // costs about 1.7 s of CPU, a scenario a few milliseconds. Those that do not apply run too, and fail (their tools
  // are not ours), so the run's exit code is 1; each scenario's own verdict is read from its checks.json, which is
  // what the exit code of a run of that scenario alone (--scenario) is made of: 1 if any check is a FAILURE
  const { code, out, checks } = await conformance(['server', '--url', `${base}/__admin/mcp`, '--suite', 'all'], {
    results: true,
  });
  t.ok(checks.size >= 30, `${checks.size} scenarios ran, each with its checks.json`);
  for (const scenario of applies) {
    const summary = new RegExp(`^✓ ${scenario}: (\\d+) passed, (\\d+) failed$`, 'm').exec(out);
    t.ok(summary, `${scenario}: a summary line`);
    const own = checks.get(scenario) ?? [];
    const count = (status: string) => own.filter((c) => c.status === status).length;
    const [passed, failed, warnings] = [count('SUCCESS'), count('FAILURE'), count('WARNING')];
    const total = passed + failed + warnings;
    t.ok(
      total > 0 && passed === total && failed === 0 && warnings === 0,
      `${scenario}: Passed: ${passed}/${total}, ${failed} failed, ${warnings} warnings`,
    );
    t.equal(summary?.slice(1).map(Number).join(), `${passed},${failed}`, `${scenario}: the summary says the same`);
    if (total === 0 || passed !== total) t.comment(out);
  }
  const failedSomewhere = [...checks.values()].some((own) => own.some((c) => c.status === 'FAILURE'));
  t.equal(code, failedSomewhere ? 1 : 0, 'exit 1 exactly when a scenario (one that does not apply) has a failure');
});
