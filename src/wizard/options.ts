import type { SourceType } from '../api/eval-imports.js';
import { UsageError } from '../errors.js';
import { hasCalendarDay } from '../evals/imports/dates.js';

/** The wizard's flags, one (or two) per step, as Commander parses them. */
export interface WizardFlags {
  agent?: string;
  eval?: string;
  import?: string;
  resume?: boolean;
  sourceType?: string;
  source?: string;
  from?: string;
  to?: string;
  minDuration?: string;
  direction?: string;
  search?: string;
  calls?: string;
  allCandidates?: boolean;
  pageSize?: string;
  batchSize?: string;
  create?: string;
}

/** The user-facing source kinds, in the order the wizard lists them. */
export type SourceKind = 'outbound' | 'inbound' | 'call-center';

export const SOURCE_KINDS: Record<SourceKind, { label: string; sourceType: SourceType }> = {
  outbound: { label: 'Outbound campaign', sourceType: 'campaign' },
  inbound: { label: 'Inbound campaign', sourceType: 'campaign' },
  'call-center': { label: 'Call center', sourceType: 'call_center' },
};

/** `--source-type`: outbound | inbound | call-center, or the API's own campaign | call_center. */
export function parseSourceType(v: string): { kind?: SourceKind; sourceType: SourceType } {
  const s = v.trim().toLowerCase().replace(/_/g, '-');
  if (s === 'outbound' || s === 'inbound' || s === 'call-center') return { kind: s, sourceType: SOURCE_KINDS[s].sourceType };
  if (s === 'campaign') return { sourceType: 'campaign' };
  throw new UsageError(`--source-type ${v} is not a source type`, 'use outbound, inbound, call-center (or the API names campaign, call_center)');
}

const DATE = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/;

export function parseDateFlag(flag: string, v: string | undefined): string | undefined {
  if (v === undefined || v.trim() === '') return undefined;
  const s = v.trim();
  if (!DATE.test(s) || Number.isNaN(Date.parse(s)) || !hasCalendarDay(s))
    throw new UsageError(`${flag} ${v} is not a date`, `use YYYY-MM-DD or an ISO timestamp, e.g. ${flag} 2026-11-01`);
  return s;
}

/** `--min-duration`: seconds, or with a unit: 90, 90s, 2m, 1m30s. */
export function parseMinDuration(v: string | undefined): number | undefined {
  if (v === undefined || v.trim() === '') return undefined;
  const s = v.trim().toLowerCase();
  if (/^\d+$/.test(s)) return Number(s);
  const m = /^(?:(\d+)m)?(?:(\d+)s)?$/.exec(s);
  if (m && (m[1] || m[2])) return Number(m[1] ?? 0) * 60 + Number(m[2] ?? 0);
  throw new UsageError(`--min-duration ${v} is not a duration`, 'give seconds (90) or minutes and seconds (1m30s)');
}

export function parseDirection(v: string | undefined): 'inbound' | 'outbound' | undefined {
  if (v === undefined || v.trim() === '' || v.trim().toLowerCase() === 'any') return undefined;
  const s = v.trim().toLowerCase();
  if (s === 'inbound' || s === 'outbound') return s;
  throw new UsageError(`--direction ${v} is not a direction`, 'use inbound, outbound or any');
}

export function parseIntFlag(flag: string, v: string | undefined, min: number, max: number): number | undefined {
  if (v === undefined) return undefined;
  const s = v.trim();
  const n = Number(s);
  if (!/^\d+$/.test(s) || n < min || n > max) throw new UsageError(`${flag} ${v} is not an integer from ${min} to ${max}`, `pass ${flag} <${min}..${max}>`);
  return n;
}

export function parseIdList(flag: string, v: string): string[] {
  const ids = [
    ...new Set(
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
  if (ids.length === 0) throw new UsageError(`${flag} names no ids`, `pass ${flag} id1,id2,…`);
  return ids;
}

/** `--create all|none|id,...` */
export type CreateChoice = 'all' | 'none' | string[];

export function parseCreate(v: string | undefined): CreateChoice | undefined {
  if (v === undefined) return undefined;
  const s = v.trim();
  if (s === 'all' || s === 'none') return s;
  return parseIdList('--create', s);
}

/** The flags, checked before anything is sent: every bad value is a usage error up front. */
export interface WizardPlan {
  agent?: string;
  evalId?: string;
  importId?: string;
  resume: boolean;
  source?: { kind?: SourceKind; sourceType?: SourceType; sourceId?: string };
  filter: { from?: string; to?: string; minDuration?: number; direction?: 'inbound' | 'outbound'; search?: string };
  /** Whether any filter flag was given (then the wizard does not ask for filters). */
  filterGiven: boolean;
  calls?: string[] | 'all';
  pageSize: number;
  batchSize: number;
  create?: CreateChoice;
}

export function planFromFlags(f: WizardFlags, env: Record<string, string | undefined>): WizardPlan {
  if (f.calls !== undefined && f.allCandidates)
    throw new UsageError('--calls and --all-candidates both given', 'pick the calls one way: --calls id,… or --all-candidates');
  if (f.import !== undefined && f.resume) throw new UsageError('--import and --resume both given', 'pass one of them');
  const typed = f.sourceType !== undefined ? parseSourceType(f.sourceType) : undefined;
  const from = parseDateFlag('--from', f.from);
  const to = parseDateFlag('--to', f.to);
  if (from && to && Date.parse(from) > Date.parse(to)) throw new UsageError(`--from ${from} is after --to ${to}`, 'swap them');
  const filter = { from, to, minDuration: parseMinDuration(f.minDuration), direction: parseDirection(f.direction), search: f.search?.trim() || undefined };
  const filterGiven = [f.from, f.to, f.minDuration, f.direction, f.search].some((v) => v !== undefined);
  const calls = f.allCandidates ? ('all' as const) : f.calls !== undefined ? parseIdList('--calls', f.calls) : undefined;
  const create = parseCreate(f.create);
  if (Array.isArray(create) && Array.isArray(calls)) {
    const stray = create.filter((id) => !calls.includes(id));
    if (stray.length > 0)
      throw new UsageError(`--create names calls that --calls does not import: ${stray.join(', ')}`, 'list them in --calls too, or use --create all');
  }
  return {
    agent: f.agent?.trim() || env.VAP_AGENT?.trim() || undefined,
    evalId: f.eval?.trim() || undefined,
    importId: f.import?.trim() || undefined,
    resume: Boolean(f.resume),
    source: typed || f.source ? { kind: typed?.kind, sourceType: typed?.sourceType, sourceId: f.source?.trim() || undefined } : undefined,
    filter,
    filterGiven,
    calls,
    pageSize: parseIntFlag('--page-size', f.pageSize, 1, 100) ?? 10,
    batchSize: parseIntFlag('--batch-size', f.batchSize, 1, 50) ?? 10,
    create,
  };
}

/**
 * Without a terminal every step needs its flag: the first missing one, in step order, is a
 * usage error before anything is sent.
 */
export function requireScriptedFlags(p: WizardPlan): void {
  const missing = (flag: string, hint: string): never => {
    throw new UsageError(`missing ${flag} (nothing is asked without a terminal, with --no-input or in CI)`, hint);
  };
  if (!p.agent) missing('--agent <agentId>', 'pass --agent ag_… or set VAP_AGENT (see `vap agents list`)');
  if (!p.evalId) missing('--eval <evalId>', 'pass --eval ev_… (see `vap evals list --agent <agentId>`)');
  const resuming = Boolean(p.importId || p.resume);
  if (!resuming) {
    if (!p.source?.sourceId) missing('--source <sourceId>', 'pass --source-type outbound|inbound|call-center --source <id> (see `vap evals imports sources`)');
    if (!p.calls) missing('--calls id,… or --all-candidates', 'pick the calls to import (see `vap evals imports candidates`)');
  }
  if (!p.create) missing('--create all|none|id,…', 'say which triaged calls become scenarios');
}
