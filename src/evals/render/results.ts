import type { ChalkInstance } from 'chalk';
import type { CriterionScore, RunResult } from '../../api/evals.js';
import { renderChat } from '../../ui/chat.js';
import { fmtScore } from './score.js';
import { wrapText } from '../../ui/wrap.js';
import { safeText } from '../../ui/safe-text.js';
import { formatSeconds } from '../../ui/values.js';
import { messageText } from '../../ui/fit.js';

/** 134 → "2m 14s"; 45 → "45s"; nothing for none (src/ui/values.ts). */
export function fmtSeconds(s: number | null | undefined): string {
  return typeof s === 'number' && Number.isFinite(s) ? formatSeconds(s) : '';
}

export interface ResultRenderOptions {
  width: number;
  chalk: ChalkInstance;
  /** Criterion names by key (from the suite), shown beside the keys when known. */
  criterionNames?: Record<string, string>;
}

/**
 * One result of a run for a person: a heading (scenario, iteration, status, score,
 * duration), the call's transcript as a chat, then the score on each criterion with its
 * reason, or the error when the iteration failed.
 */
export function renderResult(r: RunResult, opts: ResultRenderOptions): string[] {
  const { chalk, width } = opts;
  const failed = r.status === 'failed';
  // Names, ids and statuses are the API's text: shown safe (src/ui/safe-text.ts); wrapText does the same for the rest.
  const statusText = safeText(String(r.status));
  const status = failed ? chalk.red(statusText) : r.status === 'completed' ? chalk.green(statusText) : chalk.yellow(statusText);
  const parts = [
    chalk.bold(safeText(String(r.scenarioName ?? r.evalScenarioId))),
    safeText(`iteration ${r.iterationNumber}`),
    status,
    ...(failed ? [] : [`score ${chalk.bold(fmtScore(r.overallScore))}`]),
    ...(fmtSeconds(r.durationSeconds) ? [fmtSeconds(r.durationSeconds)] : []),
  ];
  // The heading wraps at word boundaries under itself when it is wider than the terminal.
  const out = messageText(`${parts.join(chalk.dim(' · '))}  ${chalk.dim(safeText(String(r.id)))}`, width, `${chalk.bold('━━')} `).split('\n');

  const transcript = [...(r.transcript ?? [])].sort((a, b) => (a.ordinal ?? 0) - (b.ordinal ?? 0));
  if (transcript.length > 0) {
    out.push('');
    out.push(...renderChat(transcript, { width, indent: 2, chalk }));
  } else if (!failed) {
    out.push(chalk.dim('  (no transcript)'));
  }

  if (failed) {
    out.push('');
    const err = r.error ?? 'the iteration failed (no reason given)';
    wrapText(err, Math.max(20, width - 9)).forEach((l, i) => out.push(i === 0 ? `  ${chalk.red.bold('error')}  ${l}` : `         ${l}`));
  }
  const scores = r.criterionScores ?? [];
  if (scores.length > 0) {
    out.push('');
    out.push(...renderCriterionScores(scores, opts));
  }
  return out;
}

/** `key  score  reason`, the reason wrapped under itself; on a narrow terminal (less than 20 columns left for it), the reason on the lines under the key. */
export function renderCriterionScores(scores: readonly CriterionScore[], opts: ResultRenderOptions): string[] {
  const { chalk, width } = opts;
  const keys = scores.map((s) => safeText(String(s.criterionKey)));
  const kw = Math.max(...keys.map((k) => k.length));
  const lead = 2 + kw + 2 + 5 + 2;
  const out: string[] = [];
  for (const [i, s] of scores.entries()) {
    // The name only when it says more than the key does ("tone" → "Tone and empathy").
    const names = opts.criterionNames;
    const given = names && Object.hasOwn(names, s.criterionKey) && typeof names[s.criterionKey] === 'string' ? names[s.criterionKey] : undefined;
    const name = given && given.toLowerCase() !== s.criterionKey.replace(/_+/g, ' ').toLowerCase() ? given : undefined;
    const reason = s.reason ? (name ? `${name}: ${s.reason}` : s.reason) : (name ?? '');
    const head = `  ${chalk.bold(keys[i]!.padEnd(kw))}  ${scoreColor(chalk, s.score)(fmtScore(s.score))}`;
    if (width - lead < 20) {
      out.push(head, ...(reason ? wrapText(reason, Math.max(20, width - 4)).map((l) => `    ${l}`) : []));
      continue;
    }
    const lines = wrapText(reason, width - lead);
    lines.forEach((l, j) => {
      out.push(j === 0 ? `  ${chalk.bold(keys[i]!.padEnd(kw))}  ${scoreColor(chalk, s.score)(fmtScore(s.score))}  ${l}`.trimEnd() : `${' '.repeat(lead)}${l}`);
    });
  }
  return out;
}

function scoreColor(chalk: ChalkInstance, score: number): (s: string) => string {
  if (score >= 0.8) return chalk.green;
  if (score >= 0.5) return chalk.yellow;
  return chalk.red;
}
