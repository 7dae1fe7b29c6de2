import { appendFile } from 'node:fs/promises';
import type { Env } from '../context.js';
import { fmtScore } from './gates.js';
import { passed, type RunOutcome } from './outcome.js';
import { summarizeCriteria, summarizeScenarios, type ScenarioSummary } from './summary.js';

// GitHub Actions: a Markdown summary appended to $GITHUB_STEP_SUMMARY, and `::error`
// workflow commands for the scenarios that failed (GitHub reads them from stdout).

/** Markdown for the job summary page. */
export function stepSummary(o: RunOutcome): string {
  const run = o.detail.run;
  const verdict = run.status !== 'completed' ? `❌ run ${run.status}` : passed(o) ? '✅ passed' : '❌ below a gate';
  const lines = [
    `### Eval run #${run.runNumber} of \`${o.evalId}\`: ${verdict}`,
    '',
    `Run \`${run.id}\`, agent \`${o.agentId}\` version ${run.agentVersion ?? '?'}, overall score **${fmtScore(run.overallScore)}**, ` +
      `${run.completedIterations ?? 0} completed and ${run.failedIterations ?? 0} failed of ${run.totalIterations} iterations.`,
  ];
  if (run.error) lines.push('', `Error: ${md(run.error)}`);
  const scenarios = summarizeScenarios(o.results);
  if (scenarios.length) {
    lines.push('', '| Scenario | Iterations | Failed | Mean score |', '|---|---:|---:|---:|');
    for (const s of scenarios) lines.push(`| ${md(s.name)} | ${s.iterations} | ${s.failed} | ${fmtScore(s.meanScore)} |`);
  }
  const criteria = summarizeCriteria(o.detail.aggregates.criteria);
  if (criteria.length) {
    lines.push('', '| Criterion | Average | Max | Weight |', '|---|---:|---:|---:|');
    for (const c of criteria) lines.push(`| ${md(c.name ? `${c.name} (${c.key})` : c.key)} | ${fmtScore(c.average)} | ${fmtScore(c.max)} | ${c.weight === null ? '' : c.weight.toFixed(2)} |`);
  }
  if (o.gates.length && run.status === 'completed') {
    lines.push('', '| Gate | Result |', '|---|---|');
    for (const g of o.gates) lines.push(`| \`${g.gate}\` | ${g.passed ? '✅' : '❌'} ${md(g.message)} |`);
  }
  return `${lines.join('\n')}\n\n`;
}

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

export async function appendTimeoutSummary(env: Env, runId: string, message: string, resume: string): Promise<boolean> {
  const file = env.GITHUB_STEP_SUMMARY;
  if (!file) return false;
  await appendFile(file, `### Eval run \`${runId}\`: ⏱ timed out\n\n${md(message)}\n\nKeep waiting with:\n\n\`\`\`\n${resume}\n\`\`\`\n\n`, 'utf8');
  return true;
}

/** Writes the step summary when $GITHUB_STEP_SUMMARY names a file (appends, as GitHub expects). */
export async function appendStepSummary(env: Env, o: RunOutcome): Promise<boolean> {
  const file = env.GITHUB_STEP_SUMMARY;
  if (!file) return false;
  await appendFile(file, stepSummary(o), 'utf8');
  return true;
}

export const inGithubActions = (env: Env) => env.GITHUB_ACTIONS === 'true';

function command(kind: 'error' | 'warning', title: string, message: string): string {
  return `::${kind} title=${escapeProperty(title)}::${escapeData(message)}`;
}

/** Workflow command escaping (as @actions/core does). */
function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}
function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

function md(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}
