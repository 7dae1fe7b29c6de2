import type { ChalkInstance } from 'chalk';
import { isDecimal, type StreamEvent } from '../api/sse.js';
import { tsvField, truncate } from '../ui/format.js';
import { DEFAULT_PRESENTATION, formatScore, formatSeconds, roleWord, shortId, stampTime, stampWidth, type Presentation } from '../ui/values.js';
import { wrapAfter, wrapText } from '../ui/wrap.js';
import { safeText } from '../ui/safe-text.js';
import { fitLine } from '../ui/fit.js';

/**
 * How events look on a terminal and in pipes, for `events tail`, `calls tail` and `webhooks
 * listen`: one line per event (time, type, call, a summary of its payload), and the call stream's
 * transcript as a chat, agent and caller each in a colour of their own.
 */

/** An event flattened from either stream's envelope. */
export interface EventRecord {
  id: string;
  type: string;
  callId: string | null;
  occurredAt?: string;
  organizationId?: string;
  data: Record<string, unknown>;
}

/** The record of a stream event: `{ id, ...envelope }`, whatever the stream. */
export function toRecord(event: StreamEvent): EventRecord {
  const env = event.data && typeof event.data === 'object' && !Array.isArray(event.data) ? (event.data as Record<string, unknown>) : { data: event.data };
  const inner = env.data && typeof env.data === 'object' && !Array.isArray(env.data) ? (env.data as Record<string, unknown>) : { value: env.data };
  return {
    id: event.id,
    type: typeof env.type === 'string' ? env.type : event.type,
    callId: typeof env.callId === 'string' ? env.callId : null,
    ...(typeof env.occurredAt === 'string' ? { occurredAt: env.occurredAt } : {}),
    ...(typeof env.organizationId === 'string' ? { organizationId: env.organizationId } : {}),
    data: inner,
  };
}

const C0 = /[\x00-\x1f]/;

/** The JSON line for --json / -o ndjson: the id, then the envelope as the server sent it. */
export function jsonLine(event: StreamEvent): string {
  // The envelope is passed on as received (one line of JSON): no parse, no stringify. JSON
  // never holds a raw control character (it escapes them), so text that does is not JSON
  // and is not passed on as it is: it is written as JSON below, escaped.
  const raw = event.raw;
  if (raw && raw.charCodeAt(0) === 123 /* { */ && !C0.test(raw) && isDecimal(event.id)) {
    return raw.length === 2 && raw === '{}' ? `{"id":"${event.id}"}` : `{"id":"${event.id}",${raw.slice(1)}`;
  }
  const body = event.data && typeof event.data === 'object' && !Array.isArray(event.data) ? event.data : { type: event.type, data: event.data };
  return JSON.stringify({ id: event.id, ...(body as object) });
}

/** The TSV line when piped without a format: id, time, type, call id, summary. */
export function tsvLine(rec: EventRecord): string {
  return [rec.id, rec.occurredAt ?? '', rec.type, rec.callId ?? '', summarize(rec, { kind: 'data' })].map(tsvField).join('\t');
}

const str = (v: unknown): string | undefined =>
  typeof v === 'string' && v !== '' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;

/** How a summary is written: for people (a terminal) or for programs (TSV). */
export interface SummaryOptions {
  /** `human`: the roles' words for people and the whole text (a terminal wraps it); `data`: the API's words, long texts cut to one bounded line (TSV). */
  kind?: 'human' | 'data';
  /** Ids inside the summary (a campaign's) in their short form (a terminal without --wide). */
  shortIds?: boolean;
}

/** The analysis flags that need someone's attention, as `vap calls get` words them, most urgent first. */
const ALERTS: Array<[key: string, words: string]> = [
  ['crisisDetected', 'CRISIS detected'],
  ['legalThreatened', 'LEGAL threat'],
  ['doNotCallRequested', 'DO NOT CALL requested'],
];

/** The alerts an event carries (a call's analysis: crisis, legal threat, do-not-call request). */
export function alertsOf(rec: EventRecord): string[] {
  if (rec.type !== 'call.analysis.completed') return [];
  return ALERTS.filter(([k]) => rec.data[k] === true).map(([, words]) => words);
}

/** One line saying what an event means, by type; unknown types show their payload's fields. */
export function summarize(rec: EventRecord, opts: SummaryOptions = {}): string {
  const d = rec.data;
  const human = opts.kind === 'human';
  const cut = (text: string, max: number) => (human ? text.replace(/\s+/g, ' ') : truncate(text, max));
  const id = (v: unknown) => {
    const s = str(v);
    return s && opts.shortIds ? shortId(s) : s;
  };
  switch (rec.type) {
    case 'call.started': {
      const who = [str(d.calleeName), str(d.phoneNumber)].filter(Boolean).join(' ');
      const agent = str(d.agentId) ? `agent ${str(d.agentId)}${d.agentVersion !== undefined ? ` v${str(d.agentVersion)}` : ''}` : '';
      return [
        str(d.direction) ?? 'call',
        who ? `${str(d.direction) === 'inbound' ? 'from' : 'to'} ${who}` : '',
        agent ? `· ${agent}` : '',
        str(d.campaignId) ? `· campaign ${id(d.campaignId)}` : '',
      ]
        .filter(Boolean)
        .join(' ');
    }
    case 'call.status.updated':
    case 'campaign.status.updated': {
      const subject = rec.type === 'campaign.status.updated' && str(d.campaignId) ? `${id(d.campaignId)} ` : '';
      return `${subject}${str(d.previousStatus) ? `${str(d.previousStatus)} → ` : ''}${str(d.status) ?? '?'}`;
    }
    case 'call.transcript.updated':
      return `${roleWord(d.role, human ? 'human' : 'data')}: ${cut(str(d.text) ?? '', 160)}`;
    case 'call.voice.updated':
      return str(d.speaking) === 'none' || !str(d.speaking) ? 'silence' : `${roleWord(d.speaking, human ? 'human' : 'data')} speaking`;
    case 'call.ended':
      return [
        str(d.status) ?? 'ended',
        d.durationSeconds !== undefined ? `after ${formatSeconds(Number(d.durationSeconds))}` : '',
        str(d.engine) ? `(${str(d.engine)})` : '',
      ]
        .filter(Boolean)
        .join(' ');
    case 'intelligence.speaker.identified':
      return str(d.status) === 'unknown'
        ? `speaker unknown${str(d.source) ? ` (${str(d.source)})` : ''}`
        : `${str(d.name) ?? 'speaker'}${d.timesSpokenBefore !== undefined ? `, spoken ${str(d.timesSpokenBefore)} time${d.timesSpokenBefore === 1 ? '' : 's'} before` : ''}${str(d.source) ? ` (${str(d.source)?.replace(/_/g, ' ')})` : ''}`;
    case 'call.analysis.completed': {
      // On a terminal the alerts (crisis, legal threat, do-not-call) are lines of their own (alertsOf); in TSV they are words here.
      const alerting = new Set(human ? ALERTS.map(([k]) => k) : []);
      const flags = ['resolved', 'doNotCallRequested', 'crisisDetected', 'legalThreatened', 'callbackRequested'].filter(
        (k) => d[k] === true && !alerting.has(k),
      );
      const head = [str(d.overallSentiment), flags.length ? flags.map(flagName).join(', ') : ''].filter(Boolean).join(' · ');
      return [head, str(d.summary) ? cut(str(d.summary)!, 120) : ''].filter(Boolean).join(' — ');
    }
    case 'eval.run.completed': {
      const score =
        typeof d.overallScore === 'number' ? ` score ${formatScore(d.overallScore)}` : typeof d.score === 'number' ? ` score ${formatScore(d.score)}` : '';
      return [str(d.runId) ?? str(d.id) ?? 'run', str(d.status) ?? '', score.trim(), str(d.evalId) ? `· eval ${str(d.evalId)}` : ''].filter(Boolean).join(' ');
    }
    default:
      return cut(
        Object.entries(d)
          .filter(([, v]) => v === null || typeof v !== 'object')
          .map(([k, v]) => `${k}=${String(v)}`)
          .join(' '),
        160,
      );
  }
}

function flagName(k: string): string {
  return k.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`);
}

/**
 * The time column of the call view: the call stream's data has no occurredAt (shown when a server
 * adds it), so transcript segments show their offset into the call (`+1:05`) and other lines none,
 * rather than stamping a replayed call with the time it was printed.
 */
function callTime(rec: EventRecord, p: Presentation): string {
  const w = stampWidth(p);
  if (rec.occurredAt) return stampTime(rec.occurredAt, p).padStart(w);
  const off = rec.data.offsetSeconds;
  if (typeof off === 'number' && Number.isFinite(off) && off >= 0) {
    const m = Math.floor(off / 60);
    return `+${m}:${String(Math.floor(off % 60)).padStart(2, '0')}`.padStart(w);
  }
  return ' '.repeat(w);
}

/** The colour of a type's family (call, intelligence, eval, campaign). */
function typeColor(chalk: ChalkInstance, type: string): (s: string) => string {
  if (type === 'call.ended' || type === 'call.analysis.completed') return chalk.magenta;
  if (type.startsWith('call.')) return chalk.blue;
  if (type.startsWith('intelligence.')) return chalk.magenta;
  if (type.startsWith('eval.')) return chalk.green;
  return chalk.cyan;
}

/** The widest event type the catalog names (`intelligence.speaker.identified`): the type column's width. */
const TYPE_WIDTH = 31;
/** A UUID's short form (its first eight digits): the call column's width on a terminal. */
const SHORT_ID_WIDTH = 8;
/** A full UUID: the call column's width with --wide. */
const FULL_ID_WIDTH = 36;
/** Below this many columns of text, a summary starts on the next line under the type instead. */
const MIN_TEXT = 20;

/** How a live view is drawn: the terminal's width (undefined: one line per event, never wrapped), full ids, exact times. */
export interface LineOptions {
  width?: number;
  /** Full call ids (`--wide`); otherwise a UUID shows its first eight digits. */
  wide?: boolean;
  present?: Presentation;
}

/**
 * Lines for a terminal: `text` wrapped to the room left after a `lead` of `indent`
 * columns; the first line follows the lead and the rest hang under it. Too narrow a room
 * puts the text under the lead, at `fallback` columns in. The text is data: wrapText makes it safe.
 */
function hanging(lead: string, indent: number, text: string, width: number | undefined, paint: (s: string) => string = (s) => s, fallback = 10): string[] {
  if (width === undefined) return [`${lead}${paint(safeText(text.replace(/\s+/g, ' ')))}`.trimEnd()];
  const room = width - indent;
  if (room >= MIN_TEXT) {
    return wrapText(text, room).map((l, i) => (i === 0 ? `${lead}${paint(l)}` : `${' '.repeat(indent)}${paint(l)}`).trimEnd());
  }
  const under = Math.min(fallback, Math.max(0, width - MIN_TEXT));
  return [lead.trimEnd(), ...wrapText(text, Math.max(1, width - under)).map((l) => `${' '.repeat(under)}${paint(l)}`.trimEnd())];
}

/** The alert lines of an event (`! CRISIS detected`, in bold red as in `vap calls get`): a word and a mark, not colour alone. */
function alertLines(rec: EventRecord, chalk: ChalkInstance, indent: number, width?: number): string[] {
  // On a pane too narrow for the alert at its column, it moves left rather than being cut.
  return alertsOf(rec).map(
    (a) => `${' '.repeat(width === undefined ? indent : Math.max(0, Math.min(indent, width - a.length - 2)))}${chalk.red.bold(`! ${a}`)}`,
  );
}

/**
 * The lines of one event in `events tail` on a terminal: time, type, call (a UUID's first eight
 * digits unless --wide), summary; a long summary wraps under itself, so the columns stay aligned
 * at any width. Every part from the stream is shown safe.
 */
export function organizationLine(rec: EventRecord, chalk: ChalkInstance, opts: LineOptions = {}): string {
  const p = opts.present ?? DEFAULT_PRESENTATION;
  const idWidth = opts.wide ? FULL_ID_WIDTH : SHORT_ID_WIDTH;
  const call = rec.callId ? (opts.wide ? rec.callId : shortId(rec.callId, SHORT_ID_WIDTH)) : '—';
  const stamp = stampTime(rec.occurredAt, p);
  const type = typeColor(chalk, rec.type);
  const text = summarize(rec, { kind: 'human', shortIds: !opts.wide });
  const indent = stampWidth(p) + 2 + Math.max(TYPE_WIDTH, safeText(rec.type).length) + 1 + Math.max(idWidth, safeText(call).length) + 1;
  if (opts.width !== undefined && opts.width - indent < MIN_TEXT) {
    // Too narrow for the columns side by side: the type after the time, then the call and the
    // summary on the lines under it, hanging under their own column.
    const under = stampWidth(p) + 2;
    const second = `${' '.repeat(under)}${chalk.dim(safeText(call).padEnd(idWidth))} `;
    const lines = [
      `${chalk.dim(stamp.padEnd(stampWidth(p)))}  ${type(safeText(rec.type))}`,
      ...hanging(second, under + Math.max(idWidth, safeText(call).length) + 1, text, opts.width),
    ];
    lines.push(...alertLines(rec, chalk, under + idWidth + 1, opts.width));
    return fitLines(lines, opts.width);
  }
  const lead = `${chalk.dim(stamp.padEnd(stampWidth(p)))}  ${type(safeText(rec.type).padEnd(TYPE_WIDTH))} ${chalk.dim(safeText(call).padEnd(idWidth))} `;
  const lines = hanging(lead, indent, text, opts.width);
  lines.push(...alertLines(rec, chalk, indent, opts.width));
  return fitLines(lines, opts.width);
}

/** The lines of a live view, each cut to the terminal's width as a last resort (a type name longer than a narrow pane, say): a line wider than the pane would wrap and break the view's columns. */
function fitLines(lines: string[], width: number | undefined): string {
  return (width === undefined ? lines : lines.map((l) => fitLine(l, width))).join('\n');
}

/** Width of the role label in the call view (`caller`, `agent`). */
const ROLE_WIDTH = 6;

/**
 * The lines of one event in `calls tail` on a terminal: transcript segments as a chat, wrapped
 * under their own text at any width; other events dimmed with their summary; an analysis's
 * alerts in bold red, as `vap calls get` shows them.
 */
export function callLine(rec: EventRecord, chalk: ChalkInstance, opts: LineOptions = {}): string {
  const p = opts.present ?? DEFAULT_PRESENTATION;
  const time = chalk.dim(callTime(rec, p));
  const indent = stampWidth(p) + 2 + ROLE_WIDTH + 2;
  if (rec.type === 'call.transcript.updated') {
    const role = roleWord(rec.data.role, 'human');
    const colour = role === 'agent' ? chalk.cyan : chalk.yellow;
    const label = safeText(role);
    const lead = `${time}  ${colour.bold(label.padEnd(ROLE_WIDTH))}  `;
    return fitLines(
      hanging(lead, indent + Math.max(0, label.length - ROLE_WIDTH), str(rec.data.text) ?? '', opts.width, (l) => colour(l)),
      opts.width,
    );
  }
  // Other events: `·`, the type, then the summary, whose further lines hang at the chat's text column.
  const type = safeText(rec.type);
  const lead = `${time}  ${chalk.dim('·'.padEnd(ROLE_WIDTH))}  ${typeColor(chalk, rec.type)(type)}  `;
  const text = summarize(rec, { kind: 'human', shortIds: !opts.wide });
  let lines: string[];
  if (opts.width === undefined) lines = [`${lead}${chalk.dim(safeText(text.replace(/\s+/g, ' ')))}`.trimEnd()];
  else if (indent + type.length > opts.width) {
    // A type too long for the line after the chat's columns: it follows the mark, and the summary hangs under the text column.
    // With no time to show (a call's own events), the type starts the line when it would not fit after the time's column.
    const blank = !callTime(rec, p).trim() && stampWidth(p) + 4 + type.length > opts.width;
    lines = [
      `${blank ? '' : `${time}  `}${chalk.dim('·')} ${typeColor(chalk, rec.type)(type)}`,
      ...wrapText(text, Math.max(MIN_TEXT, opts.width - indent)).map((l) => `${' '.repeat(indent)}${chalk.dim(l)}`),
    ];
  } else {
    const [head = '', ...rest] = wrapAfter(text, opts.width - (indent + type.length + 2), Math.max(MIN_TEXT, opts.width - indent));
    lines = [`${lead}${chalk.dim(head)}`.trimEnd(), ...rest.map((l) => `${' '.repeat(indent)}${chalk.dim(l)}`)];
  }
  lines.push(...alertLines(rec, chalk, indent, opts.width));
  return fitLines(lines, opts.width);
}
