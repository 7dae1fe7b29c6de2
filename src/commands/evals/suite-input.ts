import { UsageError } from '../../errors.js';
import { NOISE_LEVELS, NOISE_TYPES, type Criterion as ScoringCriterion, type Noise } from '../../spec/evals.js';

export const MAX_ITERATIONS = 20;
export const MAX_CRITERIA = 10;
const CRITERION_KEY = /^[a-z][a-z0-9_]{0,39}$/;

/** `--noise type:level`, checked here so that nothing is sent when it is wrong. */
export function parseNoise(value: string): Noise {
  const [type = '', level = '', ...rest] = value
    .trim()
    .split(':')
    .map((s) => s.trim());
  const fix = `use --noise <type>:<level> with a type of ${NOISE_TYPES.join(', ')} and a level of ${NOISE_LEVELS.join(', ')} (e.g. --noise cafe:medium)`;
  if (rest.length > 0 || !type || !level) throw new UsageError(`--noise "${value}" is not of the form type:level`, fix);
  if (!(NOISE_TYPES as readonly string[]).includes(type)) throw new UsageError(`--noise: unknown noise type "${type}"`, `use one of ${NOISE_TYPES.join(', ')}`);
  if (!(NOISE_LEVELS as readonly string[]).includes(level))
    throw new UsageError(`--noise: unknown noise level "${level}"`, `use one of ${NOISE_LEVELS.join(', ')}`);
  return { type, level };
}

/** `--iterations k`: a whole number from 1 to 20. */
export function parseIterations(value: string): number {
  const n = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || !Number.isInteger(n) || n < 1 || n > MAX_ITERATIONS) {
    throw new UsageError(`--iterations "${value}" is out of range`, `use a whole number from 1 to ${MAX_ITERATIONS} (calls placed per scenario in a run)`);
  }
  return n;
}

/** "goal_completion" → "Goal completion". */
export function humanize(key: string): string {
  const words = key.replace(/_+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * The scoring criteria from `--criterion key=weight[:name]`: 1..10, keys lowercase
 * snake_case and distinct, weights > 0 (the service normalises them to sum 1).
 */
export function parseCriteria(values: readonly string[]): ScoringCriterion[] {
  const fix = 'use --criterion key=weight[:name], e.g. --criterion goal_completion=0.5:"Goal completion"';
  if (values.length > MAX_CRITERIA) throw new UsageError(`${values.length} criteria given; a suite has at most ${MAX_CRITERIA}`, 'drop some --criterion flags');
  const out: ScoringCriterion[] = [];
  for (const raw of values) {
    const eq = raw.indexOf('=');
    if (eq < 0) throw new UsageError(`--criterion "${raw}" has no weight`, fix);
    const key = raw.slice(0, eq).trim();
    const rest = raw.slice(eq + 1);
    const colon = rest.indexOf(':');
    const weightText = (colon < 0 ? rest : rest.slice(0, colon)).trim();
    const name = colon < 0 ? humanize(key) : rest.slice(colon + 1).trim();
    if (!CRITERION_KEY.test(key)) {
      throw new UsageError(`--criterion: the key "${key}" is not valid`, 'a key is lowercase letters, digits and _ (up to 40), starting with a letter');
    }
    const weight = Number(weightText);
    if (weightText === '' || !Number.isFinite(weight) || weight <= 0) {
      throw new UsageError(`--criterion ${key}: the weight "${weightText}" is not a number above 0`, fix);
    }
    if (!name) throw new UsageError(`--criterion ${key}: the name after ":" is empty`, 'leave out ":name" to use the key');
    if (out.some((c) => c.key === key)) throw new UsageError(`--criterion ${key} is given twice`, 'give each key once');
    out.push({ key, name, weight });
  }
  return out;
}

/** A non-blank --name, at most 200 characters. */
export function parseName(value: string): string {
  const name = value.trim();
  if (!name) throw new UsageError('--name must not be empty');
  if (name.length > 200) throw new UsageError(`--name is ${name.length} characters long`, 'use at most 200');
  return name;
}
