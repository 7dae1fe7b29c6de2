import { readFile } from 'node:fs/promises';
import { InvalidArgumentError } from 'commander';
import type { Campaign, CampaignCall, CampaignContact, Run } from '../../api/campaigns.js';
import type { Context } from '../../context.js';
import { ConflictError, UnprocessableEntityError } from '../../api/errors.js';
import { CliError, UsageError } from '../../errors.js';
import { withPolicy } from '../../ui/columns.js';
import type { Column } from '../../ui/format.js';
import { count, duration, shown, time } from '../../ui/values.js';

export const CAMPAIGN_COLUMNS: Column<Campaign>[] = withPolicy<Campaign>(
  [
    { header: 'id', value: (c) => c.id },
    { header: 'name', value: (c) => c.name },
    { header: 'status', value: (c) => c.status },
    { header: 'direction', value: (c) => c.direction },
    { header: 'type', value: (c) => c.type },
    { header: 'contacts', value: (c) => count(c.totalContacts) },
    { header: 'pending', value: (c) => count(c.pendingContacts) },
    { header: 'created', value: (c) => time(c.createdAt) },
  ],
  { keep: ['id', 'name', 'status'], dropFirst: ['type', 'direction', 'created'] },
);

export const CAMPAIGN_FIELDS: Column<Campaign>[] = [
  { header: 'id', value: (c) => c.id },
  { header: 'name', value: (c) => c.name },
  { header: 'description', value: (c) => c.description },
  { header: 'status', value: (c) => c.status },
  { header: 'direction', value: (c) => c.direction },
  { header: 'type', value: (c) => c.type },
  { header: 'agent', value: (c) => c.agentId + (c.agent?.type ? ` (${c.agent.type})` : '') },
  { header: 'contact list', value: (c) => (c.contactListId ? `${c.contactListName ?? ''} (${c.contactListId})` : '') },
  { header: 'contacts', value: (c) => count(c.totalContacts) },
  { header: 'pending', value: (c) => count(c.pendingContacts) },
  { header: 'phone number', value: (c) => (c.provisionedPhoneNumberId ? `${c.phoneNumber ?? ''} (${c.provisionedPhoneNumberId})` : '') },
  { header: 'workspace', value: (c) => c.workspaceId },
  { header: 'created', value: (c) => time(c.createdAt) },
  { header: 'updated', value: (c) => time(c.updatedAt) },
  { header: 'started', value: (c) => time(c.startedAt) },
  { header: 'completed', value: (c) => time(c.completedAt) },
];

export const CONTACT_COLUMNS: Column<CampaignContact>[] = withPolicy<CampaignContact>(
  [
    { header: 'contact', value: (c) => c.contactId },
    { header: 'name', value: (c) => c.name },
    { header: 'phone', value: (c) => c.phoneNumber },
    { header: 'status', value: (c) => c.status },
    { header: 'added', value: (c) => time(c.addedAt) },
    { header: 'last call', value: (c) => c.lastCallId },
  ],
  { keep: ['contact', 'name', 'status'], dropFirst: ['added', 'phone'] },
);

export const CALL_COLUMNS: Column<CampaignCall>[] = withPolicy<CampaignCall>(
  [
    { header: 'id', value: (c) => c.id },
    { header: 'status', value: (c) => c.status },
    { header: 'phone', value: (c) => c.phoneNumber },
    { header: 'name', value: (c) => c.calleeName },
    // A call still going has no duration yet: `—` on a terminal (as in `calls list`), its 0 piped.
    { header: 'duration', value: (c) => (c.endedAt || c.duration ? duration(c.duration) : shown(String(c.duration ?? ''), '—')) },
    { header: 'priority', value: (c) => c.priority },
    { header: 'scheduled', value: (c) => time(c.scheduledFor) },
    { header: 'created', value: (c) => time(c.createdAt) },
  ],
  { keep: ['id', 'status', 'name'], dropFirst: ['created', 'scheduled', 'priority'] },
);

/** Runs as rows; a run still open reads "(running)" in a table, and an empty field in TSV. */
export function runColumns(human: boolean): Column<Run>[] {
  return withPolicy<Run>(
    [
      { header: 'id', value: (r) => r.id },
      { header: 'started', value: (r) => time(r.startedAt) },
      { header: 'ended', value: (r) => (r.endedAt ? time(r.endedAt) : human ? '(running)' : null) },
      { header: 'calls', value: (r) => count(r.totalCalls) },
      { header: 'completed', value: (r) => count(r.completedCalls) },
    ],
    { keep: ['id', 'started', 'calls', 'completed'] },
  );
}

/** The agent from --agent or $VAP_AGENT. */
export function resolveAgent(opts: { agent?: string }, ctx: Context): string {
  const agent = opts.agent?.trim() || ctx.env.VAP_AGENT?.trim();
  if (!agent) throw new UsageError('missing --agent <agentId>', 'pass --agent ag_… or set VAP_AGENT (a campaign calls with one agent)');
  return agent;
}

const E164 = /^\+[1-9]\d{1,14}$/;

export function e164(flag: string) {
  return (v: string): string => {
    const s = v.trim();
    if (!E164.test(s)) throw new InvalidArgumentError(`${flag} must be an E.164 number such as +14155550123 (got "${v}").`);
    return s;
  };
}

/** Commander parser for an ISO timestamp (with a time and a zone, or Z). */
export function isoTime(flag: string) {
  return (v: string): string => {
    const ok = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(v) && !Number.isNaN(Date.parse(v));
    if (!ok) throw new InvalidArgumentError(`${flag} must be an ISO time with a zone, such as 2026-11-23T09:30:00Z (got "${v}").`);
    return new Date(v).toISOString();
  };
}

/** Commander parser for a calendar day YYYY-MM-DD that exists. */
export function isoDay(flag: string) {
  return (v: string): string => {
    const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
    const d = m ? new Date(`${v}T00:00:00Z`) : undefined;
    if (!m || !d || Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== v) {
      throw new InvalidArgumentError(`${flag} must be a day as YYYY-MM-DD, such as 2026-11-01 (got "${v}").`);
    }
    return v;
  };
}

export function intRange(flag: string, min: number, max: number) {
  return (v: string): number => {
    const n = Number(v);
    if (!/^\d+$/.test(v.trim()) || !Number.isInteger(n) || n < min || n > max)
      throw new InvalidArgumentError(`${flag} must be a whole number from ${min} to ${max} (got "${v}").`);
    return n;
  };
}

/** Splits `a,b c` lists into ids. */
export function splitIds(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter((s) => s !== '' && !s.startsWith('#'));
}

/**
 * Contact ids from --contacts (comma-separated, repeatable) and --file (one id a line,
 * or comma-separated; `#` comments; `-` reads stdin). Duplicates are dropped, order kept.
 */
export async function contactIdsFrom(opts: { contacts?: string[]; file?: string }, ctx: Context): Promise<string[]> {
  const ids: string[] = [];
  for (const c of opts.contacts ?? []) ids.push(...splitIds(c));
  if (opts.file !== undefined) {
    let text: string;
    try {
      text = opts.file === '-' ? await readStream(ctx.io.stdin) : await readFile(opts.file, 'utf8');
    } catch (err) {
      throw new UsageError(`cannot read --file ${opts.file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
    }
    const lines = text.split(/\r?\n/).map((l) => l.replace(/#.*$/, ''));
    ids.push(...splitIds(lines.join('\n')));
  }
  return [...new Set(ids)];
}

async function readStream(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += chunk.toString();
  return text;
}

/** Whether the user asked for machine output or ids (so a verb prints data, not only a note). */
export function machine(ctx: Context): boolean {
  const g = ctx.globals;
  return Boolean(g.json || g.output || g.query || g.quiet);
}

/**
 * The API's refusals of a campaign's kind or state name its own paths (POST …/trigger);
 * a CLI user is told which command to run instead. Anything else is returned unchanged.
 */
export function campaignRefusal(err: unknown, id: string): unknown {
  if (err instanceof UnprocessableEntityError) {
    if (err.code === 'api_campaign')
      return new CliError(
        `campaign ${id} is an API campaign: it has no contacts and queues no calls`,
        undefined,
        `place each call with \`vap campaigns trigger ${id} --phone +1…\``,
      );
    if (err.code === 'not_api_campaign')
      return new CliError(
        `campaign ${id} is not an API campaign (type api)`,
        undefined,
        `queue its calls with \`vap campaigns calls queue ${id} --contacts ct_…\` or --all-pending`,
      );
    if (err.code === 'contacts_not_in_campaign')
      return new CliError(
        `${err.message.replace(/ \(add them with [^)]*\)/, '')}`,
        undefined,
        `add them first with \`vap campaigns contacts add ${id} --contacts …\``,
      );
  }
  if (err instanceof ConflictError && err.code === 'campaign_not_active') {
    return new CliError(`campaign ${id} is not active`, undefined, `start it with \`vap campaigns start ${id}\`, then trigger the call`);
  }
  return err;
}
