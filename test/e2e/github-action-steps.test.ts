import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { assertBuilt, BIN, ROOT, vap } from '../helpers/built.js';
import { ORG_A, ORG_B, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { startGitHubStub, type GitHubStub } from '../helpers/github-stub.js';
import { testStateDir } from '../helpers/state-dir.js';

// The steps of the GitHub Action (action.yml) as the runner runs them: bash on the scripts in
// action/, with the inputs in the environment as action.yml passes them, the built vap on
// PATH, the emulator as the platform and a stub of GitHub's REST API for the comments. The
// outputs are read back from $GITHUB_OUTPUT. What is checked: vap's exit code becomes the
// output exit-code while the step itself succeeds (so that the comment and the upload still
// run), and the action's last step exits with it; one comment per suite, updated in place;
// the plan as a comment of its own; inputs never run as shell; a comment that cannot be
// written is a warning, not the step's result.

let emu: TestEmulator;
let gh: GitHubStub;
let dir: string;
let bin: string;

beforeAll(async () => {
  assertBuilt();
  [emu, gh] = await Promise.all([startTestEmulator(), startGitHubStub()]);
  dir = mkdtempSync(join(tmpdir(), 'vap-action-'));
  // `vap` on PATH, as `npm install -g` of the tarball puts it there (test/e2e/npm-pack-install.test.ts checks that install).
  bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'vap'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(bin, 'vap'), 0o755);
});
afterAll(async () => {
  await Promise.all([emu?.close(), gh?.close()]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Outputs written as `name<<delimiter` … `delimiter`, as GitHub reads them. */
function outputs(file: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = existsSync(file) ? readFileSync(file, 'utf8').split('\n') : [];
  for (let i = 0; i < lines.length; i++) {
    const m = /^([\w-]+)<<(.+)$/.exec(lines[i]!);
    if (!m) continue;
    const value: string[] = [];
    while (lines[++i] !== m[2]) value.push(lines[i]!);
    out[m[1]!] = value.join('\n');
  }
  return out;
}

let run = 0;
/** One step: `bash action/<script>` in `cwd` with the inputs in the environment; returns its exit code, output and outputs. */
async function step(script: string, env: Record<string, string>, cwd: string) {
  const n = ++run;
  const files = { GITHUB_OUTPUT: join(dir, `output-${n}`), GITHUB_STEP_SUMMARY: join(dir, `summary-${n}.md`) };
  const r = await execa('bash', [join(ROOT, 'action', script)], {
    cwd,
    reject: false,
    extendEnv: false,
    stdin: 'ignore',
    env: {
      PATH: `${bin}:${process.env.PATH ?? ''}`,
      HOME: process.env.HOME ?? '/tmp',
      NO_COLOR: '1',
      CI: 'true',
      VAP_STATE_DIR: testStateDir(),
      VAP_CONFIG_DIR: join(dir, 'config'),
      RUNNER_TEMP: dir,
      GITHUB_ACTION_PATH: ROOT,
      ...files,
      ...env,
    },
  });
  return {
    code: r.exitCode,
    stdout: String(r.stdout),
    stderr: String(r.stderr),
    outputs: outputs(files.GITHUB_OUTPUT),
    summary: existsSync(files.GITHUB_STEP_SUMMARY) ? readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8') : '',
  };
}

function pullRequestEvent(number: number): Record<string, string> {
  const event = join(dir, `event-${number}.json`);
  writeFileSync(event, JSON.stringify({ number, pull_request: { number, head: { ref: 'friendlier-greeting' } }, repository: { full_name: 'octo/agents' } }));
  return {
    GITHUB_EVENT_PATH: event,
    GITHUB_EVENT_NAME: 'pull_request',
    GITHUB_REPOSITORY: 'octo/agents',
    GITHUB_API_URL: gh.apiUrl,
    GITHUB_HEAD_REF: 'friendlier-greeting',
  };
}

const platform = { VAP_INPUT_API_KEY: ORG_A.apiKey, VAP_INPUT_BASE_URL: '' };

async function suite(): Promise<{ agentId: string; evalId: string }> {
  const agentId = (await emu.api('POST', '/api/v1/agents', { name: 'Front desk', engine: 'realtime', instructions: 'Greet callers. Book appointments.' })).body
    .data.id as string;
  const evalId = (await emu.api('POST', `/api/v1/agents/${agentId}/evals`, { name: 'Booking', iterationsPerScenario: 2 })).body.data.id as string;
  for (const name of ['Book a cleaning', 'Wants a human'])
    await emu.api('POST', `/api/v1/agents/${agentId}/evals/${evalId}/scenarios`, { name, persona: 'A caller', goal: `${name} today`, category: 'happy_path' });
  return { agentId, evalId };
}

describe("the GitHub Action's steps", () => {
  it('evals-run below a gate: the step succeeds with exit-code 3 and the reports; the comment is created, then edited in place; the last step exits 3', async () => {
    const { agentId, evalId } = await suite();
    const work = mkdtempSync(join(dir, 'work-'));
    const inputs = {
      ...platform,
      VAP_INPUT_BASE_URL: emu.url,
      VAP_INPUT_COMMAND: 'evals-run',
      VAP_INPUT_AGENT: agentId,
      VAP_INPUT_EVAL: evalId,
      VAP_INPUT_MIN_SCORE: '1',
      VAP_INPUT_MIN_CRITERION: 'tone=0.1, goal_completion=0.1',
      VAP_INPUT_ALLOW_FAILED_ITERATIONS: '4',
      VAP_INPUT_REPORTS_DIR: 'out/reports',
    };
    const first = await step('run.sh', inputs, work);
    expect(first.code, first.stderr).toBe(0);
    const reports = join(work, 'out', 'reports');
    expect(first.outputs).toEqual({
      'exit-code': '3',
      'reports-dir': reports,
      markdown: join(reports, 'evals.md'),
      html: join(reports, 'evals.html'),
      junit: join(reports, 'evals.xml'),
    });
    expect(first.stdout).toContain(
      `vap evals run ${evalId} --agent ${agentId} --wait --min-score 1 --min-criterion tone=0.1 --min-criterion goal_completion=0.1 --allow-failed-iterations 4 --report markdown=${reports}/evals.md`,
    );
    expect(readdirSync(reports).sort()).toEqual(['evals.html', 'evals.json', 'evals.md', 'evals.xml']);
    expect(first.stdout).toContain(`::add-mask::${ORG_A.apiKey}`);
    // vap appended the report to the job's summary itself.
    expect(first.summary).toContain(`<!-- vap-evals suite=${evalId} -->`);

    const pr = pullRequestEvent(41);
    const comment = await step('comment.sh', { ...pr, VAP_INPUT_GITHUB_TOKEN: 'actions-token', VAP_REPORTS_MARKDOWN: first.outputs.markdown! }, work);
    expect(comment.code, comment.stderr).toBe(0);
    const [posted] = gh.list('octo/agents', 41);
    expect(posted).toMatchObject({ user: { login: 'github-actions[bot]' }, body: readFileSync(join(reports, 'evals.md'), 'utf8') });
    expect(comment.stdout).toBe(posted!.html_url);

    // The next push to the pull request: the same comment, edited. A report an earlier command left in the folder is neither removed nor posted.
    writeFileSync(join(reports, 'evals.ag_old.ev_old.md'), '<!-- vap-evals suite=ev_old -->\nstale\n');
    const second = await step('run.sh', { ...inputs, VAP_INPUT_MIN_SCORE: '0' }, work);
    expect(second.outputs['exit-code']).toBe('0');
    expect(second.outputs.markdown).toBe(join(reports, 'evals.md'));
    expect(existsSync(join(reports, 'evals.ag_old.ev_old.md'))).toBe(true);
    await step('comment.sh', { ...pr, VAP_INPUT_GITHUB_TOKEN: 'actions-token', VAP_REPORTS_MARKDOWN: second.outputs.markdown! }, work);
    expect(gh.list('octo/agents', 41)).toHaveLength(1);
    expect(gh.list('octo/agents', 41)[0]!.body).toBe(readFileSync(join(reports, 'evals.md'), 'utf8'));
    expect(gh.list('octo/agents', 41)[0]!.body.split('\n')[1]).toMatch(/: ✅ 4 gates passed( · .+)? · \d+ calls \(no --max-calls budget\)$/);

    // The action's last step fails the job with vap's code.
    const last = (parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as { runs: { steps: Array<{ name: string; run?: string }> } }).runs.steps.at(-1)!;
    expect(last.name).toBe("Exit with vap's exit code");
    for (const code of ['3', '0', '124'])
      expect((await execa('bash', ['-c', last.run!], { reject: false, env: { VAP_EXIT_CODE: code } })).exitCode).toBe(Number(code));
    expect((await execa('bash', ['-c', last.run!], { reject: false, env: { VAP_EXIT_CODE: '' } })).exitCode).toBe(1);
  });

  it('diff: the plan on the log, in the job summary, and as a pull-request comment of its own in a fence nothing in it can close', async () => {
    const work = mkdtempSync(join(dir, 'plan-'));
    const agent = (await emu.api('POST', '/api/v1/agents', { name: 'Desk', instructions: 'Answer politely.', engine: 'pipeline' })).body.data;
    const env = { VAP_BASE_URL: emu.url, VAP_API_KEY: ORG_A.apiKey, CI: 'true' };
    expect((await vap(['pull', '--agent', agent.id, '--profile', 'ci'], { env, cwd: work })).exitCode).toBe(0);
    const file = join(work, 'agents', 'desk', 'agent.md');
    writeFileSync(file, readFileSync(file, 'utf8').replace('Answer politely.', 'Answer politely. ```\n````` </details> @octocat'));
    const r = await step('run.sh', { ...platform, VAP_INPUT_BASE_URL: emu.url, VAP_INPUT_COMMAND: 'diff', VAP_INPUT_PROFILE: 'ci' }, work);
    expect(r.outputs['exit-code']).toBe('0');
    const md = readFileSync(r.outputs.markdown!, 'utf8');
    expect(md.split('\n').slice(0, 4)).toEqual(['<!-- vap-plan profile=ci -->', '### The plan against ci', '', '``````diff']);
    expect(md).toContain('+Answer politely. ```');
    expect(md.trimEnd().endsWith('\n``````')).toBe(true);
    expect(r.stdout).toContain('+Answer politely. ```');
    expect(r.summary).toBe(md);
    const pr = pullRequestEvent(42);
    const c = await step('comment.sh', { ...pr, VAP_INPUT_GITHUB_TOKEN: 'user-token', VAP_REPORTS_MARKDOWN: r.outputs.markdown! }, work);
    expect(c.code).toBe(0);
    expect(gh.list('octo/agents', 42).map((x) => x.body)).toEqual([md]);
  });

  it('inputs are data, never shell: quotes, $(…) and ; reach vap as arguments; a bad input is exit-code 2', async () => {
    const work = mkdtempSync(join(dir, 'inject-'));
    const r = await step(
      'run.sh',
      {
        ...platform,
        VAP_INPUT_BASE_URL: emu.url,
        VAP_INPUT_COMMAND: 'evals-run',
        VAP_INPUT_EVAL: 'ev_x"; touch pwned1; echo "',
        VAP_INPUT_AGENT: '$(touch pwned2)',
        VAP_INPUT_ARGS: '--timeout\n`touch pwned3` 1m',
        VAP_INPUT_MIN_SCORE: '0.5; touch pwned4',
      },
      work,
    );
    expect(r.code).toBe(0);
    expect(r.outputs['exit-code']).toBe('2');
    expect(readdirSync(work).filter((f) => f.startsWith('pwned'))).toEqual([]);
    expect(r.stderr).toMatch(/^error: /m);
    const unknown = await step('run.sh', { VAP_INPUT_COMMAND: 'rm -rf /' }, work);
    expect([unknown.code, unknown.outputs['exit-code']]).toEqual([0, '2']);
    expect(unknown.stdout).toContain('::error title=vap action::command "rm -rf /" is not one of: diff, preview, push, promote, evals-run');
    const promote = await step('run.sh', { VAP_INPUT_COMMAND: 'promote', VAP_INPUT_FROM: 'staging' }, work);
    expect(promote.outputs['exit-code']).toBe('2');
    expect(promote.stdout).toContain('::error title=vap action::command: promote needs the inputs from and to');
  });

  it("promote: each organization's key goes in its profile's own variable (VAP_API_KEY_<PROFILE>), never to disk", async () => {
    const work = mkdtempSync(join(dir, 'promote-'));
    const before = new Set(readdirSync(dir));
    const inputs = {
      VAP_INPUT_COMMAND: 'promote',
      VAP_INPUT_FROM: 'staging',
      VAP_INPUT_TO: 'prod',
      VAP_INPUT_API_KEY: ORG_A.apiKey,
      VAP_INPUT_BASE_URL: emu.url,
      VAP_INPUT_TO_API_KEY: ORG_B.apiKey,
      VAP_INPUT_TO_BASE_URL: emu.url,
    };
    const r = await step('run.sh', { ...inputs, VAP_API_KEY: 'key_of_the_job' }, work);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('vap promote --from staging --to prod --yes');
    expect(r.stdout).toContain(`::add-mask::${ORG_A.apiKey}\n::add-mask::${ORG_B.apiKey}\n`);
    expect(readdirSync(dir).filter((f) => !before.has(f) && f.startsWith('vap-config.'))).toEqual([]);
    expect(r.outputs['exit-code']).toMatch(/^\d+$/);
    // The job's own VAP_API_KEY is not one of the two: promote reads each profile's key.
    expect(r.stderr).not.toContain('key_of_the_job');
    const one = await step('run.sh', { ...inputs, VAP_INPUT_TO_API_KEY: '' }, work);
    expect(one.outputs['exit-code']).toBe('2');
  });

  it("a comment that cannot be written is a warning; the step's result stays vap's", async () => {
    const work = mkdtempSync(join(dir, 'fork-'));
    const md = join(work, 'evals.md');
    writeFileSync(md, '<!-- vap-evals suite=ev_1 -->\nreport\n');
    const c = await step('comment.sh', { ...pullRequestEvent(43), VAP_INPUT_GITHUB_TOKEN: 'read-only-token', VAP_REPORTS_MARKDOWN: md }, work);
    expect(c.code).toBe(0);
    expect(c.stderr).toContain('error: the token may not comment on pull request #43 of octo/agents');
    expect(c.stdout).toContain('::warning title=vap::could not update the pull-request comment of evals.md (see the error above)');
    expect(gh.list('octo/agents', 43)).toEqual([]);
  });
});
