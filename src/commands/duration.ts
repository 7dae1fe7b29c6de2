import { InvalidArgumentError } from 'commander';
import { formatDuration } from '../ui/values.js';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;

/**
 * Parses a duration such as `500ms`, `30s`, `10m`, `1h` or `1h30m` into
 * milliseconds; a bare number is seconds. Returns undefined when the text is not one.
 */
export function parseDuration(text: string): number | undefined {
  const s = text.trim().toLowerCase();
  if (/^\d+(\.\d+)?$/.test(s)) return Number(s) * 1000;
  if (!s) return undefined;
  PART.lastIndex = 0;
  let total = 0;
  let end = 0;
  for (let m = PART.exec(s); m; m = PART.exec(s)) {
    total += Number(m[1]) * UNITS[m[2]!]!;
    end = PART.lastIndex;
  }
  return end === s.length && end > 0 ? total : undefined;
}

/** A Commander argument parser for a duration flag (exit 2 on a bad value). */
export function durationOption(flag: string, opts: { min?: number } = {}) {
  return (v: string): number => {
    const ms = parseDuration(v);
    if (ms === undefined) throw new InvalidArgumentError(`${flag} takes a duration such as 500ms, 30s, 10m or 1h.`);
    if (opts.min !== undefined && ms < opts.min) throw new InvalidArgumentError(`${flag} must be at least ${formatDuration(opts.min)}.`);
    return ms;
  };
}
