import type { Suite } from '../../api/evals.js';
import type { Column } from '../../ui/format.js';
import { count, score, time } from '../../ui/values.js';
import type { Criterion as ScoringCriterion, Noise } from '../../spec/evals.js';

type SuiteLike = Partial<Suite> & { id: string };

/** A weight as the suite stores it (normalised), without trailing zeros: 0.4, 0.333. */
export function fmtWeight(w: number): string {
  return Number.isFinite(w) ? String(Number(w.toFixed(3))) : String(w);
}

/** The criteria one per line: `key  weight  name`. */
export function criteriaText(criteria: readonly ScoringCriterion[] | undefined): string {
  if (!criteria || criteria.length === 0) return '';
  const kw = Math.max(...criteria.map((c) => c.key.length));
  const ww = Math.max(...criteria.map((c) => fmtWeight(c.weight).length));
  return criteria.map((c) => `${c.key.padEnd(kw)}  ${fmtWeight(c.weight).padStart(ww)}  ${c.name}`).join('\n');
}

export function noiseText(noise: Noise | null | undefined): string {
  return noise ? `${noise.type}:${noise.level}` : 'off';
}

/** The detail view of a suite (get, create, update). Fields a service leaves out print empty. */
export const SUITE_FIELDS: Column<SuiteLike>[] = [
  { header: 'id', value: (s) => s.id },
  { header: 'name', value: (s) => s.name },
  { header: 'status', value: (s) => s.status },
  { header: 'iterations', value: (s) => s.iterationsPerScenario },
  { header: 'noise', value: (s) => ('noise' in s ? noiseText(s.noise) : undefined) },
  { header: 'scenarios', value: (s) => s.scenarioCount },
  { header: 'runs', value: (s) => count(s.runCount) },
  { header: 'latest score', value: (s) => ('latestRunScore' in s ? score(s.latestRunScore) : undefined) },
  { header: 'criteria', value: (s) => criteriaText(s.scoringCriteria) },
  { header: 'created', value: (s) => time(s.createdAt) },
  { header: 'updated', value: (s) => time(s.updatedAt) },
];
