import { appendFile } from 'node:fs/promises';
import type { Env } from '../context.js';
import { fmtScore } from './gates.js';
import { passed, type RunOutcome } from './outcome.js';
import { summarizeScenarios, type ScenarioSummary } from './summary.js';
import { safeLines, safeText } from '../ui/safe-text.js';
import { ownWorkflowCommand } from '../ui/workflow-commands.js';

// GitHub Actions: the Markdown report appended to $GITHUB_STEP_SUMMARY, and `::error`
// workflow commands for the scenarios that failed (GitHub reads them from stdout; the
// platform's text in them is neutralised as for a terminal, then encoded: workflowCommand).

/** Scenarios worth an annotation: a failed iteration, or a mean below --min-score. */
export function failedScenarios(o: RunOutcome): Array<{ scenario: ScenarioSummary; reason: string }> {
  const minScore = o.gates.find((g) => g.gate.startsWith('--min-score'))?.threshold;
  const out: Array<{ scenario: ScenarioSummary; reason: string }> = [];
  for (const s of summarizeScenarios(o.results)) {
    const reasons: string[] = [];
    if (s.failed) reasons.push(`${s.failed} of ${s.iterations} iterations failed: ${[...new Set(s.errors)].join('; ')}`);
    if (minScore !== undefined && s.meanScore !== null && s.meanScore < minScore) reasons.push(`mean score ${fmtScore(s.meanScore)} < --min-score ${minScore}`);
    if (reasons.length) out.push({ scenario: s, reason: reasons.join('; ') });
  }
  return out;
}

/**
 * `::error title=…::…` lines: one per failed scenario, one per failed gate, one for a failed
 * run. When every gate passed (exit 0), a scenario whose mean is below --min-score is only a
 * `::warning` (the gate is on the overall score): a green job shows no red annotation.
 */
export function annotations(o: RunOutcome): string[] {
  const run = o.detail.run;
  const ok = passed(o);
  const lines = failedScenarios(o).map(({ scenario, reason }) =>
    ok && !scenario.failed
      ? command('warning', `Eval scenario below --min-score: ${scenario.name}`, reason)
      : command('error', `Eval scenario failed: ${scenario.name}`, reason),
  );
  if (run.status === 'failed') lines.push(command('error', `Eval run #${run.runNumber} failed`, run.error || 'the run failed'));
  else if (run.status === 'completed') {
    for (const g of o.gates.filter((x) => !x.passed)) lines.push(command('error', `Eval gate failed: ${g.gate}`, g.message));
  }
  return lines;
}

/** A wait that ran out (exit 124): one `::error` and a step-summary section with the command that keeps waiting. */
export function timeoutAnnotation(runId: string, message: string): string {
  return command('error', `Eval run ${runId} timed out`, message);
}

/**
 * Appends the Markdown report (the same as `--report markdown=`, with the baseline columns
 * when there is a baseline) to the job's summary when $GITHUB_STEP_SUMMARY names a file.
 * `markdown` is that report when it was rendered already.
 */
export async function appendStepSummary(env: Env, o: RunOutcome, markdown?: string): Promise<boolean> {
  const file = env.GITHUB_STEP_SUMMARY;
  if (!file) return false;
  const text = markdown ?? (await import('./report-markdown.js')).markdownReport(o);
  await appendFile(file, `${text}\n`, 'utf8');
  return true;
}

export const inGithubActions = (env: Env) => env.GITHUB_ACTIONS === 'true';

function command(kind: 'error' | 'warning', title: string, message: string): string {
  return workflowCommand(kind, { title }, message);
}

/**
 * A workflow command line (`::kind key=value,…::data`) from text that may come from the platform. Order matters: neutralise
 * as for a terminal (src/ui/safe-text.ts), then encode, so no raw control byte or separator survives. It is recorded as
 * vap's own, the one kind of line the stdout filter lets through as a command (src/ui/workflow-commands.ts).
 */
export function workflowCommand(kind: 'error' | 'warning' | 'notice', properties: Record<string, string>, message: string): string {
  const props = Object.entries(properties)
    .map(([k, v]) => `${k}=${escapeProperty(safeText(v))}`)
    .join(',');
  return ownWorkflowCommand(`::${kind}${props ? ` ${props}` : ''}::${escapeData(safeLines(message))}`);
}

/** A workflow command's data, encoded (as @actions/core does): `%`, CR and LF. Neutralise it first. */
export function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** A workflow command's property value, encoded (as @actions/core does): those of the data, and `:` and `,`. Neutralise it first. */
export function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}
