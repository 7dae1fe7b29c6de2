import { InvalidArgumentError } from 'commander';
import type { SourceType } from '../../../api/eval-imports.js';
import { UsageError } from '../../../errors.js';
import { hasCalendarDay } from '../../../evals/imports/dates.js';

/** `--calls id,id,...` (commas or spaces; repeated ids kept once). */
export function parseCallIds(v: string, prev: string[] = []): string[] {
  const ids = v
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
  if (ids.length === 0) throw new InvalidArgumentError('--calls takes call ids separated by commas.');
  return [...new Set([...prev, ...ids])];
}

export function parseSourceType(v: string): SourceType {
  if (v === 'campaign' || v === 'call_center') return v;
  if (v === 'call-center') return 'call_center';
  throw new InvalidArgumentError('--source-type is campaign or call_center.');
}

/** The source type from `--source-type`, or guessed from the id (call centers are `cc_…`, campaigns UUIDs). */
export function resolveSourceType(opts: { sourceType?: SourceType; source?: string }): { sourceType: SourceType; sourceId: string } {
  const sourceId = opts.source?.trim();
  if (!sourceId) throw new UsageError('missing --source <id>', 'pick one from `vap evals imports sources <evalId> --agent <agentId>`');
  const sourceType = opts.sourceType ?? (sourceId.startsWith('cc_') ? 'call_center' : 'campaign');
  return { sourceType, sourceId };
}

/** `--from`/`--to`: an ISO date (YYYY-MM-DD) or timestamp. */
export function isoDate(flag: string) {
  return (v: string): string => {
    const s = v.trim();
    const ok = /^\d{4}-\d{2}-\d{2}$/.test(s) ? !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) : /^\d{4}-\d{2}-\d{2}T/.test(s) && !Number.isNaN(Date.parse(s));
    if (!ok || !hasCalendarDay(s)) throw new InvalidArgumentError(`${flag} takes an ISO date (2026-03-01) or timestamp (2026-03-01T09:00:00Z).`);
    return s;
  };
}

export function intIn(flag: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  return (v: string): number => {
    const n = Number(v);
    if (!/^\d+$/.test(v.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(
        max === Number.MAX_SAFE_INTEGER ? `${flag} must be a whole number of at least ${min}.` : `${flag} must be a whole number from ${min} to ${max}.`,
      );
    }
    return n;
  };
}

/** An import verb's ids: `<evalId> <importId>` or `<importId> --eval <evalId>`. */
export function resolveImportIds(args: (string | undefined)[], opts: { eval?: string }): { evalId: string; importId: string } {
  const given = args.filter((a): a is string => typeof a === 'string' && a.length > 0);
  if (given.length === 2) {
    const [evalId, importId] = given as [string, string];
    if (opts.eval && opts.eval !== evalId)
      throw new UsageError(
        `--eval ${opts.eval} disagrees with the suite argument ${evalId}`,
        'give the suite once: `<evalId> <importId>` or `<importId> --eval <evalId>`',
      );
    return { evalId, importId };
  }
  if (given.length === 1) {
    if (!opts.eval) throw new UsageError('missing the eval suite', 'use `<evalId> <importId>` or `<importId> --eval <evalId>`');
    return { evalId: opts.eval, importId: given[0]! };
  }
  throw new UsageError('missing the import id', 'use `<evalId> <importId>` or `<importId> --eval <evalId>` (see `vap evals imports list`)');
}
