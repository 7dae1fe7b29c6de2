import { percent, regressions, verdictPhrase, type RunComparison } from './verdict.js';

/** `+0.034`, `-0.120`, `0.000`. */
function signed(v: number): string {
  const t = Math.abs(v) < 0.0005 ? '0.000' : v.toFixed(3);
  return v > 0 && t !== '0.000' ? `+${t}` : t;
}

/** `run #13 and 5 more of version 7`: the baseline as pooled. */
export function againstText(c: RunComparison): string {
  const more = c.pooled.baseline.runs - 1;
  return `run #${c.baseline.runNumber}${more > 0 ? ` and ${more} more` : ''} (version ${c.baseline.agentVersion ?? '?'}${more > 0 ? `, ${c.pooled.baseline.calls} calls` : ''})`;
}

/** `overall -0.052 (98% CI -0.087 to -0.017)`. */
export function overallText(c: RunComparison): string {
  const o = c.overallChange;
  if (o.delta === null) return 'no overall change to estimate';
  return `overall ${signed(o.delta)}${o.ci ? ` (${percent(c.method.confidence)} CI ${signed(o.ci[0])} to ${signed(o.ci[1])})` : ''}`;
}

/**
 * One look of a comparison, in a line: `against run #13 (version 7): undecided (overall
 * -0.031, 98% CI -0.078 to +0.016)`, `regressed: overall -0.052 (98% CI -0.087 to -0.017);
 * instruction_adherence -0.094`.
 */
export function lookText(c: RunComparison): string {
  const o = overallText(c);
  if (c.verdict === 'regressed' || c.verdict === 'improved') {
    const rows = (c.verdict === 'regressed' ? regressions(c) : [...c.scenarios, ...c.criteria].filter((r) => r.verdict === 'improved')).map((r) =>
      `${'scenarioId' in r ? r.name : r.key} ${r.delta === null ? '' : signed(r.delta)}`.trim(),
    );
    return `against ${againstText(c)}: ${c.verdict}: ${o}${rows.length ? `; ${rows.join(', ')}` : ''}`;
  }
  return `against ${againstText(c)}: ${verdictPhrase(c.verdict)} (${o.replace(/ \(/, ', ').replace(/\)$/, '')})`;
}
