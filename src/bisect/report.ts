import { InvalidArgumentError } from 'commander';
import type { RunComparison } from '../evals/verdict.js';
import { safeText } from '../ui/safe-text.js';
import type { BisectResult, Plan, Step } from './search.js';

/**
 * The words of a search, shared by the verbs and the MCP tool: the plan line, a step's line,
 * the result's lines, the JSON document and the Markdown report. Lines are plain text with
 * platform text in them: a terminal gets them through safe-text, as every line is.
 */

const f3 = (v: number) => (Math.abs(v) < 0.0005 ? '0.000' : v.toFixed(3));
const signed = (v: number) => (v > 0 ? `+${f3(v)}` : f3(v));

/** `9 versions between 3 and 12: at most 4 steps, 600 calls at most (3 runs of 24 calls first for version 3's baseline)` */
export function planLine(p: Plan, good: string, bad: string, word = 'versions'): string {
  const one = word.replace(/s$/, '');
  const top = !p.topUpCalls
    ? p.pooledCalls
      ? `; the good ${one}'s baseline: ${p.pooledCalls} calls pooled from the live suite`
      : ''
    : p.pooledCalls
      ? `; ${p.topUpCalls} calls first to top up the good ${one}'s baseline (${p.pooledCalls} pooled from the live suite)`
      : `; ${p.topUpCalls} calls first for the good ${one}'s baseline, on a copy of it`;
  return `${p.candidates} ${p.candidates === 1 ? word.replace(/s$/, '') : word} after ${good} up to ${bad}: at most ${p.steps} step${p.steps === 1 ? '' : 's'}, ${p.maxCalls} calls at most (--max-calls), ${p.perRun} a run${top}`;
}

export function intervalText(c: RunComparison | undefined): string {
  const o = c?.overallChange;
  if (!o || o.delta === null || !o.ci) return 'no interval';
  return `overall ${signed(o.delta)}, CI ${signed(o.ci[0])} to ${signed(o.ci[1])}`;
}

/** `version 7 (preview copy): regressed against version 3 (overall -0.118, CI -0.160 to -0.076), 100 calls` */
export function stepLine(s: Step, good: string, word = 'version'): string {
  const what = `${word} ${s.label}`;
  if (s.status === 'skipped') return `${what}: skipped, ${s.why}`;
  const verdict =
    s.status === 'regressed'
      ? `regressed against ${word} ${good}`
      : s.status === 'good'
        ? s.verdict === 'improved'
          ? `improved on ${word} ${good}`
          : `no significant change from ${word} ${good}`
        : 'still undecided';
  return `${what} (preview copy): ${verdict} (${intervalText(s.comparison)}), ${s.calls} calls${s.retested ? ', tested again within the budget' : ''}`;
}

/** The result's headline and the lines under it. */
export function resultLines(r: BisectResult, word = 'version', good?: string): string[] {
  if (r.kind === 'found') {
    const who = r.first.subject ? `${r.first.changedBy}, ${r.first.changedAt}: ${r.first.subject}` : `changed by ${r.first.changedBy}, ${r.first.changedAt}`;
    return [
      `First bad ${word}: ${r.first.label} (${who}; ${r.diffText}), ${r.calls} of ${r.maxCalls} calls`,
      `  verdict: ${verdictText(r, word, good)}`,
      ...r.diff.instructions.lines.map((l) => `  ${l}`),
      ...(r.diff.voice ? [`  voice: ${r.diff.voice.from} → ${r.diff.voice.to}`] : []),
      ...(r.diff.tools ? [`  tools: ${[...r.diff.tools.added.map((t) => `+${t}`), ...r.diff.tools.removed.map((t) => `−${t}`)].join(', ')}`] : []),
    ];
  }
  if (r.kind === 'no regression')
    return [
      `No regression: the bad ${word} could not be told from the good one within ±${minEffectOf(r.comparison)} (${intervalText(r.comparison)}), ${r.calls} of ${r.maxCalls} calls; no ${word} is named`,
    ];
  const range = `the first bad ${word} is after ${r.range.lastGood} and at most ${r.range.firstBad}`;
  return [`${r.kind === 'undecided' ? 'Undecided' : 'Not found'}: ${r.why}; ${range}, ${r.calls} of ${r.maxCalls} calls; no ${word} is named`];
}

/** The decisive step was measured against the good one's runs, not the last good one's. */
function verdictText(r: Extract<BisectResult, { kind: 'found' }>, word: string, good = r.lastGood.label): string {
  const last = r.lastGood.label === good ? '' : `; the last good ${word} is ${r.lastGood.label}`;
  return `regressed against ${word} ${good} (${intervalText(r.comparison)})${last}`;
}

const minEffectOf = (c: RunComparison | undefined) => (c ? String(c.method.minEffect) : 'the minimum effect');

/** The whole search for `--json`. */
export function resultJson(r: BisectResult, extra: Record<string, unknown>): Record<string, unknown> {
  const step = (s: Step) => ({
    version: s.version,
    label: s.label,
    status: s.status,
    verdict: s.verdict ?? null,
    calls: s.calls,
    runs: s.runs,
    retested: Boolean(s.retested),
    why: s.why,
    overallChange: s.comparison?.overallChange ?? null,
  });
  const base = { ...extra, result: r.kind, calls: r.calls, maxCalls: r.maxCalls, plan: r.plan, steps: r.steps.map(step) };
  if (r.kind === 'found')
    return {
      ...base,
      firstBad: {
        version: r.first.version,
        label: r.first.label,
        changedBy: r.first.changedBy,
        changedAt: r.first.changedAt,
        ...(r.first.subject ? { subject: r.first.subject } : {}),
      },
      lastGood: { version: r.lastGood.version, label: r.lastGood.label },
      diff: r.diff,
      verdict: r.comparison,
    };
  if (r.kind === 'no regression') return { ...base, verdict: r.comparison ?? null };
  return { ...base, range: r.range, why: r.why };
}

/** `--report markdown=<path>`: for a pull request or an incident. */
export function markdownReport(r: BisectResult, title: string, undo: string | undefined, good: string, word = 'version'): string {
  const esc = (s: string) => safeText(s.replace(/\r?\n/g, ' ')).replace(/[\\`*_[\]<>|#]/g, (c) => `\\${c}`);
  const out = [`## ${esc(title)}`, ''];
  out.push(`**${esc(resultLines(r, word)[0]!)}**`, '');
  if (r.kind === 'found') {
    out.push(`Verdict: ${esc(verdictText(r, word, good))}.`, '');
    if (r.diff.instructions.lines.length) out.push('```diff', ...r.diff.instructions.lines.map((l) => safeText(l).replace(/```/g, '`\u200b``')), '```', '');
    if (r.diff.voice) out.push(`Voice: ${esc(r.diff.voice.from)} → ${esc(r.diff.voice.to)}`, '');
    if (r.diff.tools) out.push(`Tools: ${esc([...r.diff.tools.added.map((t) => `+${t}`), ...r.diff.tools.removed.map((t) => `−${t}`)].join(', '))}`, '');
    if (undo) out.push('To undo it:', '', '```sh', undo, '```', '');
  }
  out.push(`| ${word} | result | change (CI) | calls |`, '|---|---|---|---|');
  for (const s of r.steps)
    out.push(
      `| ${esc(s.label)} | ${s.status === 'skipped' ? `skipped: ${esc(s.why)}` : s.status === 'good' ? (s.verdict ?? 'good') : s.status} | ${intervalText(s.comparison)} | ${s.calls} |`,
    );
  out.push(
    '',
    `${r.calls} of at most ${r.maxCalls} calls (--max-calls), against ${word} ${esc(good)}. Every copy was a preview copy; no live agent was changed.`,
    '',
  );
  return out.join('\n');
}

/** Commander parser for `--report markdown=<path>` (the one kind a search writes). */
export function bisectReportOption(v: string): string {
  const m = /^markdown=(.+)$/.exec(v.trim());
  if (!m) throw new InvalidArgumentError('--report takes markdown=<path>.');
  return m[1]!;
}
