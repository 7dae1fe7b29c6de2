import { fail, objectBody as bodyOf, onlyFields as only, text as textOf, type Body } from '../agents/validate.js';
import { NOISE_LEVELS, NOISE_TYPES, SCENARIO_CATEGORIES, type Criterion, type ScenarioCategory } from '../../spec/evals.js';
import type { CheckedNoise, ScoreShift } from './types.js';

/** Body checks for suites and scenarios (400 `validation_error` naming the field). */

export { fail, objectBody, onlyFields, text, type Body } from '../agents/validate.js';

export const LIMITS = { name: 200, persona: 2000, goal: 2000, criteria: 10, criterionName: 200, iterations: 20 } as const;
export const CRITERION_KEY = /^[a-z][a-z0-9_]{0,39}$/;

export function iterations(body: Body, field = 'iterationsPerScenario'): number | undefined {
  const x = body[field];
  if (x === undefined) return undefined;
  if (typeof x !== 'number' || !Number.isInteger(x) || x < 1 || x > LIMITS.iterations) fail(field, `must be an integer from 1 to ${LIMITS.iterations}`);
  return x;
}

export function bool(body: Body, field: string): boolean | undefined {
  const x = body[field];
  if (x === undefined) return undefined;
  if (typeof x !== 'boolean') fail(field, 'must be true or false');
  return x;
}

export function category(value: unknown, field = 'category'): ScenarioCategory {
  if (value === undefined) fail(field, `is required (one of: ${SCENARIO_CATEGORIES.join(', ')})`);
  if (typeof value !== 'string' || !(SCENARIO_CATEGORIES as readonly string[]).includes(value))
    fail(field, `must be one of: ${SCENARIO_CATEGORIES.join(', ')}`);
  return value as ScenarioCategory;
}

/** `noise`: `{ type, level }` or null (switches it off); undefined when absent. */
export function noise(body: Body, field = 'noise'): CheckedNoise | null | undefined {
  const x = body[field];
  if (x === undefined) return undefined;
  if (x === null) return null;
  if (typeof x !== 'object' || Array.isArray(x))
    fail(field, `must be an object { type, level } or null (type one of: ${NOISE_TYPES.join(', ')}; level one of: ${NOISE_LEVELS.join(', ')})`);
  const o = x as Body;
  for (const k of Object.keys(o)) if (k !== 'type' && k !== 'level') fail(`${field}.${k}`, 'is not a noise field (type, level)');
  if (typeof o.type !== 'string' || !(NOISE_TYPES as readonly string[]).includes(o.type)) fail(`${field}.type`, `must be one of: ${NOISE_TYPES.join(', ')}`);
  if (typeof o.level !== 'string' || !(NOISE_LEVELS as readonly string[]).includes(o.level))
    fail(`${field}.level`, `must be one of: ${NOISE_LEVELS.join(', ')}`);
  return { type: o.type, level: o.level } as CheckedNoise;
}

/** `scoringCriteria`: 1..10 of `{ key, name, weight }`, keys unique; weights normalised to sum 1. */
export function criteria(body: Body, field = 'scoringCriteria'): Criterion[] | undefined {
  const x = body[field];
  if (x === undefined) return undefined;
  if (!Array.isArray(x)) fail(field, 'must be an array of { key, name, weight }');
  if (x.length < 1 || x.length > LIMITS.criteria) fail(field, `must have from 1 to ${LIMITS.criteria} criteria`);
  const seen = new Set<string>();
  const out = x.map((item, i) => {
    const at = `${field}[${i}]`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) fail(at, 'must be an object { key, name, weight }');
    const o = item as Body;
    for (const k of Object.keys(o)) if (!['key', 'name', 'weight'].includes(k)) fail(`${at}.${k}`, 'is not a criterion field (key, name, weight)');
    if (typeof o.key !== 'string' || !CRITERION_KEY.test(o.key)) fail(`${at}.key`, 'must be a lowercase key: a letter, then letters, digits or _ (40 at most)');
    if (seen.has(o.key)) fail(`${at}.key`, `duplicates the criterion "${o.key}"`);
    seen.add(o.key);
    if (typeof o.name !== 'string' || o.name.trim() === '') fail(`${at}.name`, 'must be a non-empty string');
    if (o.name.length > LIMITS.criterionName) fail(`${at}.name`, `must be at most ${LIMITS.criterionName} characters`);
    if (typeof o.weight !== 'number' || !Number.isFinite(o.weight) || o.weight <= 0) fail(`${at}.weight`, 'must be a number greater than 0');
    return { key: o.key, name: o.name.trim(), weight: o.weight };
  });
  const total = out.reduce((s, c) => s + c.weight, 0);
  return out.map((c) => ({ ...c, weight: Math.round((c.weight / total) * 1e6) / 1e6 }));
}

/** `POST /_emulator/evals/score-shift`: `{ shift, criterion?, agentId?, fromVersion?, instructionsContain? }`, one selector at least. */
export function scoreShift(raw: unknown): Omit<ScoreShift, 'id'> {
  const body = bodyOf(raw);
  only(body, ['shift', 'criterion', 'agentId', 'fromVersion', 'instructionsContain']);
  const shift = body.shift;
  if (typeof shift !== 'number' || !Number.isFinite(shift) || shift < -1 || shift > 1)
    fail('shift', 'must be a number from -1 to 1 (added to every selected score, then clamped to 0..1)');
  const criterion = textOf(body, 'criterion', { max: 40 }) ?? null;
  if (criterion !== null && !CRITERION_KEY.test(criterion)) fail('criterion', 'must be a criterion key: a letter, then lowercase letters, digits or _');
  const agentId = textOf(body, 'agentId', { max: 200 }) ?? null;
  const fromVersion = body.fromVersion;
  if (fromVersion !== undefined && (typeof fromVersion !== 'number' || !Number.isInteger(fromVersion) || fromVersion < 1))
    fail('fromVersion', 'must be an agent version, a whole number ≥ 1');
  if (fromVersion !== undefined && agentId === null) fail('fromVersion', 'needs agentId (the version of which agent)');
  const instructionsContain = textOf(body, 'instructionsContain', { max: 2000 }) ?? null;
  if (agentId === null && instructionsContain === null) fail('agentId', 'or instructionsContain is required: which runs to shift');
  return { shift: shift as number, criterion, agentId, fromVersion: (fromVersion as number | undefined) ?? null, instructionsContain };
}
