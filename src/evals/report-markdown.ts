import type { RunResult } from '../api/evals.js';
import { safeLines, safeText } from '../ui/safe-text.js';
import type { RunOutcome } from './outcome.js';
import {
  callsBrief,
  ciText,
  criterionRows,
  fmtScore,
  gateBrief,
  iterationsText,
  partialNote,
  partialRun,
  passRatesOf,
  roleLabel,
  scenarioRows,
  seconds,
  signed,
  transcriptOf,
  VERDICT_MARK,
  verdictBrief,
  worstIteration,
  type ScenarioRow,
} from './report-model.js';
import type { PassRates } from './pass-rate.js';
import { GITHUB_COMMENT_LIMIT } from '../github/limits.js';
import { progressText } from './summary.js';
import { countsText, methodText } from './verdict.js';

/**
 * `--report markdown=path` and the GitHub step summary: a pull-request comment body, with a hidden marker to update it in place.
 * Every API value is escaped for Markdown and HTML (a transcript is someone else's text). To fit GitHub's comment limit, transcripts
 * are cut, then dropped, then the details, then table rows, and the comment says what was cut.
 */

export { GITHUB_COMMENT_LIMIT };

export function marker(evalId: string): string {
  return `<!-- vap-evals suite=${evalId.replace(/--+/g, '-').replace(/[^\w.:-]/g, '_')} -->`;
}

/** Inline text (a table cell, a line): Markdown and HTML punctuation escaped, control characters shown, one line. */
export function mdText(s: string): string {
  return safeText(s)
    .replace(/[\\`*[\]|~#!{}]/g, '\\$&')
    .replace(/(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])/g, '\\_') // an underscore inside a word is no emphasis
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/@(?=\w)/g, '@\u200b'); // no @-mention of a stranger's name
}

/** A code span that holds any text (backticks inside included), for a table cell. */
export function mdCode(s: string): string {
  const text = safeText(s);
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((m) => m.length));
  const fence = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`.replace(/\|/g, '\\|');
}

/** Text inside raw HTML (a <summary>). */
export function htmlText(s: string): string {
  return safeText(s)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/@(?=\w)/g, '@\u200b');
}

function fencedBlock(lines: readonly string[]): string[] {
  const body = lines.join('\n');
  const longest = Math.max(2, ...(body.match(/`+/g) ?? []).map((m) => m.length));
  const fence = '`'.repeat(longest + 1);
  return [`${fence}text`, ...lines, fence];
}

function table(head: string[], align: Array<'l' | 'r'>, rows: string[][]): string[] {
  return [`| ${head.join(' | ')} |`, `|${align.map((a) => (a === 'r' ? '---:' : '---')).join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)];
}

/** How much of the long parts to keep (level 0 keeps everything a comment should hold). */
interface Budget {
  /** Transcript turns per excerpt (null: the whole transcript up to the cap below). */
  turns: number;
  /** Characters per turn. */
  chars: number;
  details: boolean;
  /** Scenario rows kept (Infinity: all). */
  rows: number;
  reasons: number;
}

const BUDGETS: Budget[] = [
  { turns: 40, chars: 600, details: true, rows: Infinity, reasons: 400 },
  { turns: 16, chars: 300, details: true, rows: Infinity, reasons: 300 },
  { turns: 8, chars: 160, details: true, rows: Infinity, reasons: 200 },
  { turns: 4, chars: 100, details: true, rows: Infinity, reasons: 160 },
  { turns: 0, chars: 0, details: true, rows: Infinity, reasons: 120 },
  { turns: 0, chars: 0, details: false, rows: Infinity, reasons: 0 },
  { turns: 0, chars: 0, details: false, rows: 200, reasons: 0 },
  { turns: 0, chars: 0, details: false, rows: 50, reasons: 0 },
  { turns: 0, chars: 0, details: false, rows: 10, reasons: 0 },
];

/** The comment body, within `limit` characters. */
export function markdownReport(o: RunOutcome, limit = GITHUB_COMMENT_LIMIT): string {
  for (let i = 0; i < BUDGETS.length; i++) {
    const text = render(o, BUDGETS[i]!, i > 0);
    if (text.length <= limit) return text;
  }
  // Still too long (thousands of criteria?): cut at a line and say so.
  const note = `\n\n_This report was cut to fit GitHub's ${GITHUB_COMMENT_LIMIT.toLocaleString('en-US')}-character comment limit; the HTML and JSON reports have it whole._\n`;
  const text = render(o, BUDGETS[BUDGETS.length - 1]!, true);
  return `${text.slice(0, text.lastIndexOf('\n', limit - note.length))}${note}`;
}

/**
 * `### Eval run #5 of Booking: ❌ 1 gate failed (…) · ▼ regressed on 1 of 6 scenarios against #4`: gates and verdict are two
 * facts, each with its own marks (❌ ✅ the gates', ▼ ▲ = ○ the verdict's), so an improvement never looks like a failure.
 */
function headline(o: RunOutcome): string {
  const run = o.detail.run;
  const suite = o.suite?.name ? ` of ${mdText(o.suite.name)}` : '';
  const label = run.runNumber > 0 ? `#${run.runNumber}` : mdCode(run.id);
  const partial = partialRun(o);
  const after = partial ? ` after ${partial.done} of ${partial.total} iterations` : '';
  let gates: string;
  if (o.stopped) {
    const icon = o.stopped.kind === 'timeout' ? '⏱' : o.stopped.kind === 'interrupted' ? '⏹' : '❌';
    const what = o.stopped.kind === 'timeout' ? 'timed out' : o.stopped.kind === 'interrupted' ? 'not waited for to the end' : 'could not be read to the end';
    gates = `${icon} ${what}${after}`;
  } else if (run.status === 'failed') {
    gates = `❌ failed${after}`;
  } else if (run.status !== 'completed') {
    gates = `${mdText(run.status)}${after}`;
  } else {
    const failed = o.gates.filter((g) => !g.passed);
    const n = (k: number) => `${k} gate${k === 1 ? '' : 's'}`;
    gates = failed.length
      ? `❌ ${n(failed.length)} failed (${mdText(failed.map(gateBrief).join('; '))})`
      : o.gates.length
        ? `✅ ${n(o.gates.length)} passed`
        : '✅ completed, no gates';
  }
  if (partial?.done) gates += '; the averages are partial';
  const c = o.baseline?.comparison;
  return `### Eval run ${label}${suite}: ${gates}${c ? ` · ${verdictBrief(c)}` : ''} · ${callsBrief(o)}`;
}

/** `Pooled: this side runs #14 and #15 (100 calls, 2 failed); the baseline runs #8 to #13 of version 7 (300 calls).` */
function pooledLine(o: RunOutcome): string | undefined {
  const c = o.baseline?.comparison;
  if (!c || (c.pooled.current.runs < 2 && c.pooled.baseline.runs < 2 && !o.adaptive)) return undefined;
  const side = (p: typeof c.pooled.current) =>
    `run${p.runs === 1 ? '' : 's'} ${p.runNumbers.map((n) => `#${n}`).join(', ')} (${p.calls} calls, ${p.failed} failed)`;
  return `Pooled: this side ${side(c.pooled.current)}; the baseline ${side(c.pooled.baseline)} of version ${c.baseline.agentVersion ?? '?'}.`;
}

function render(o: RunOutcome, b: Budget, truncated: boolean): string {
  const run = o.detail.run;
  const out: string[] = [marker(o.markerId ?? o.evalId), headline(o), ''];
  const facts = [`Run ${mdCode(run.id)}`, `suite ${mdCode(o.evalId)}`, `agent ${mdCode(o.agentId)} version ${run.agentVersion ?? '?'}`];
  const c = o.baseline?.comparison;
  const overall = `overall **${fmtScore(run.overallScore)}**`;
  const partial = partialRun(o);
  const overallPartial = partial && typeof run.overallScore === 'number' ? `${overall} (partial)` : overall;
  facts.push(c ? `${overallPartial} (run #${c.baseline.runNumber}: ${fmtScore(c.overall.baseline)}, ${signed(c.overall.delta)})` : overallPartial);
  if (run.totalIterations) facts.push(progressText(run));
  out.push(facts.join(' · '));
  if (partial) {
    const note = partialNote(partial);
    out.push('', `**${note.label}**: ${note.text}`);
  }
  if (o.stopped) {
    out.push('', mdText(o.stopped.message));
    if (o.stopped.resume) out.push('', o.stopped.kind === 'timeout' ? 'Keep waiting with:' : 'Resume waiting with:', '', ...fencedBlock([o.stopped.resume]));
  }
  if (run.status === 'failed') out.push('', `Error: ${mdText(run.error || 'the run failed (no reason given)')}`);
  if (o.adaptive)
    out.push(
      '',
      `Runs: ${o.adaptive.runs.map((r) => `#${r.runNumber}`).join(', ')} (--until-decided)${o.adaptive.earlier?.length ? `, pooled with ${o.adaptive.earlier.map((r) => `#${r.runNumber}`).join(', ')} of the same version (before it)` : ''}; stopped: ${mdText(o.adaptive.why)}.`,
    );
  if (c) {
    out.push(
      '',
      `Against run #${c.baseline.runNumber} (${mdCode(c.baseline.id)}, agent version ${c.baseline.agentVersion ?? '?'}): **${VERDICT_MARK[c.verdict]} ${c.verdict}**: ${mdText(c.overallChange.reason)}; rows: ${countsText(c.counts)}. <sub>${mdText(methodText(c.method))}.</sub>`,
    );
    const pooled = pooledLine(o);
    if (pooled) out.push('', mdText(pooled));
  } else if (o.baseline?.missing) {
    out.push('', `No baseline (${mdCode(`--baseline ${o.baseline.spec}`)}): ${mdText(o.baseline.missing)}.`);
  }

  const rows = scenarioRows(o);
  if (rows.length) {
    out.push('');
    const shown = rows.slice(0, b.rows);
    const rates = passRatesOf(o);
    const pass = passCells(rates);
    const passHead = [`Passed (${rates.rule})`, `pass^${rates.k}`];
    if (c) {
      out.push(
        ...table(
          ['Scenario', 'Iterations', 'Score', 'Baseline', 'Δ', `${ciLevel(c.method.rowConfidence)} CI`, 'Verdict', ...passHead],
          ['l', 'r', 'r', 'r', 'r', 'l', 'l', 'r', 'r'],
          shown.map((r) => [...scenarioCells(r), ...pass(r.summary.scenarioId)]),
        ),
      );
    } else {
      out.push(
        ...table(
          ['Scenario', 'Iterations', 'Failed', 'Score', ...passHead],
          ['l', 'r', 'r', 'r', 'r', 'r'],
          shown.map((r) => [
            mdText(r.summary.name),
            String(r.summary.iterations),
            String(r.summary.failed),
            fmtScore(r.summary.meanScore),
            ...pass(r.summary.scenarioId),
          ]),
        ),
      );
    }
    if (rates.passK !== null)
      out.push(
        '',
        `pass^${rates.k}: **${rates.passK.toFixed(3)}**, the estimate that all ${rates.k} repeated calls of a scenario pass (${mdText(rates.rule)}), the mean over ${rates.scenarios.length} scenario${rates.scenarios.length === 1 ? '' : 's'}${o.adaptive ? `, from every run pooled` : ''}.`,
      );
    if (shown.length < rows.length) out.push('', `_…and ${rows.length - shown.length} more scenarios: see the HTML or JSON report._`);
  }

  const criteria = criterionRows(o);
  if (criteria.length) {
    out.push('');
    if (c) {
      out.push(
        ...table(
          ['Criterion', 'Weight', 'Score', 'Baseline', 'Δ', `${ciLevel(c.method.rowConfidence)} CI`, 'Verdict'],
          ['l', 'r', 'r', 'r', 'r', 'l', 'l'],
          criteria.map((r) => {
            const x = r.comparison;
            return [
              criterionName(r.summary.key, r.summary.name),
              weight(r.summary.weight),
              fmtScore(x?.current.mean ?? r.summary.average),
              fmtScore(x?.baseline.mean),
              signed(x?.delta),
              ciText(x?.ci),
              x ? `${VERDICT_MARK[x.verdict]} ${x.verdict}` : '–',
            ];
          }),
        ),
      );
    } else {
      out.push(
        ...table(
          ['Criterion', 'Weight', 'Average', 'Best'],
          ['l', 'r', 'r', 'r'],
          criteria.map((r) => [criterionName(r.summary.key, r.summary.name), weight(r.summary.weight), fmtScore(r.summary.average), fmtScore(r.summary.max)]),
        ),
      );
    }
  }

  out.push('');
  if (o.gates.length) {
    out.push(
      ...table(
        ['Gate', 'Result'],
        ['l', 'l'],
        o.gates.map((g) => [mdCode(g.gate), `${g.passed ? '✅ passed' : '❌ failed'}: ${mdText(g.message)}`]),
      ),
    );
  } else {
    out.push(`Gates: ${o.stopped || run.status !== 'completed' ? 'not evaluated: the run did not complete' : 'none'}.`);
  }

  if (b.details) {
    for (const r of rows.filter((x) => x.flagged)) out.push('', ...details(r, b));
  }
  if (truncated) {
    const what = b.details ? (b.turns ? 'Transcripts were shortened' : 'Transcripts were left out') : 'Transcripts and details were left out';
    out.push(
      '',
      `_${what} to keep this comment within GitHub's ${GITHUB_COMMENT_LIMIT.toLocaleString('en-US')}-character limit; the HTML report has them whole._`,
    );
  }
  return `${out.join('\n')}\n`;
}

/** `98%`, `99.8%`. */
function ciLevel(confidence: number): string {
  return `${Number((confidence * 100).toPrecision(3))}%`;
}

/** A scenario's passed share and pass^k cells. */
function passCells(rates: PassRates): (scenarioId: string) => string[] {
  const by = new Map(rates.scenarios.map((s) => [s.scenarioId, s]));
  return (id) => {
    const s = by.get(id);
    if (!s) return ['–', '–'];
    return [`${s.passed}/${s.iterations}`, s.passK === null ? '–' : s.passK.toFixed(3)];
  };
}

function criterionName(key: string, name: string | null): string {
  return name && name !== key ? `${mdText(name)} (${mdCode(key)})` : mdCode(key);
}

const weight = (w: number | null) => (w === null ? '' : w.toFixed(2));

function scenarioCells(r: ScenarioRow): string[] {
  const x = r.comparison;
  return [
    mdText(r.summary.name),
    iterationsText(r.summary),
    fmtScore(x?.current.mean ?? r.summary.meanScore),
    fmtScore(x?.baseline.mean),
    signed(x?.delta),
    ciText(x?.ci),
    x ? `${VERDICT_MARK[x.verdict]} ${x.verdict}` : '–',
  ];
}

function clip(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, Math.max(0, n - 1))}…` : s;
}

/** A collapsed section: the worst iteration's criterion reasons and transcript excerpt. */
function details(r: ScenarioRow, b: Budget): string[] {
  const s = r.summary;
  const x = r.comparison;
  const why =
    x?.verdict === 'regressed'
      ? `${VERDICT_MARK.regressed} regressed, ${fmtScore(x.current.mean)} against ${fmtScore(x.baseline.mean)} (${signed(x.delta)})`
      : '';
  const fails = s.failed ? `${s.failed} of ${s.iterations} iterations failed` : '';
  const summary = `<b>${htmlText(s.name)}</b>: ${htmlText([why, fails].filter(Boolean).join('; '))}`;
  const worst = worstIteration(s.results);
  const out = [`<details><summary>${summary}</summary>`, ''];
  if (worst) out.push(...iteration(worst, b));
  out.push('', '</details>');
  return out;
}

function iteration(r: RunResult, b: Budget): string[] {
  const head = [
    `Worst iteration: **#${r.iterationNumber}** ${mdCode(r.id)}`,
    r.status === 'failed' ? '❌ failed' : `score ${fmtScore(r.overallScore)}`,
    seconds(r.durationSeconds),
  ]
    .filter(Boolean)
    .join(' · ');
  const out = [head];
  if (r.error) out.push('', `Error: ${mdText(r.error)}`);
  const scores = r.criterionScores ?? [];
  if (scores.length) {
    out.push(
      '',
      ...table(
        ['Criterion', 'Score', 'Reason'],
        ['l', 'r', 'l'],
        scores.map((c) => [mdCode(c.criterionKey), fmtScore(c.score), mdText(clip(c.reason ?? '', b.reasons || 0))]),
      ),
    );
  }
  const transcript = transcriptOf(r);
  if (transcript.length && b.turns > 0) {
    const lines = transcript.slice(0, b.turns).map((t) => `${roleLabel(t.role)}: ${clip(safeLines(t.text ?? '').replace(/\n/g, ' '), b.chars)}`);
    if (transcript.length > b.turns) lines.push(`… ${transcript.length - b.turns} more turns`);
    out.push('', 'Transcript:', '', ...fencedBlock(lines));
  }
  return out;
}
