import type { ChalkInstance } from 'chalk';
import { isDecimal, type StreamEvent } from '../api/sse.js';
import { tsvField, truncate } from '../ui/format.js';
import { safeText } from '../ui/safe-text.js';

/**
 * How events look on a terminal and in pipes, shared by `events tail`, `calls tail` and
 * `webhooks listen`: one line per event (time, type, call, a one-line summary of its
 * payload), and on the call stream the transcript as a chat, agent and caller each in a
 * colour of their own.
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
  return [rec.id, rec.occurredAt ?? '', rec.type, rec.callId ?? '', summarize(rec)].map(tsvField).join('\t');
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined);

/** One line saying what an event means, by type; unknown types show their payload's fields. */
export function summarize(rec: EventRecord): string {
  const d = rec.data;
  switch (rec.type) {
    case 'call.started': {
      const who = [str(d.calleeName), str(d.phoneNumber)].filter(Boolean).join(' ');
      const agent = str(d.agentId) ? `agent ${str(d.agentId)}${d.agentVersion !== undefined ? ` v${str(d.agentVersion)}` : ''}` : '';
      return [str(d.direction) ?? 'call', who ? `${str(d.direction) === 'inbound' ? 'from' : 'to'} ${who}` : '', agent ? `· ${agent}` : '', str(d.campaignId) ? `· campaign ${str(d.campaignId)}` : '']
        .filter(Boolean)
        .join(' ');
    }
    case 'call.status.updated':
    case 'campaign.status.updated': {
      const subject = rec.type === 'campaign.status.updated' && str(d.campaignId) ? `${str(d.campaignId)} ` : '';
      return `${subject}${str(d.previousStatus) ? `${str(d.previousStatus)} → ` : ''}${str(d.status) ?? '?'}`;
    }
    case 'call.transcript.updated':
      return `${roleName(d.role)}: ${truncate(str(d.text) ?? '', 160)}`;
    case 'call.voice.updated':
      return str(d.speaking) === 'none' || !str(d.speaking) ? 'silence' : `${roleName(d.speaking)} speaking`;
    case 'call.ended':
      return [str(d.status) ?? 'ended', d.durationSeconds !== undefined ? `after ${formatSeconds(Number(d.durationSeconds))}` : '', str(d.engine) ? `(${str(d.engine)})` : ''].filter(Boolean).join(' ');
    case 'intelligence.speaker.identified':
      return str(d.status) === 'unknown'
        ? `speaker unknown${str(d.source) ? ` (${str(d.source)})` : ''}`
        : `${str(d.name) ?? 'speaker'}${d.timesSpokenBefore !== undefined ? `, spoken ${str(d.timesSpokenBefore)} time${d.timesSpokenBefore === 1 ? '' : 's'} before` : ''}${str(d.source) ? ` (${str(d.source)?.replace(/_/g, ' ')})` : ''}`;
    case 'call.analysis.completed': {
      const flags = ['resolved', 'doNotCallRequested', 'crisisDetected', 'legalThreatened', 'callbackRequested'].filter((k) => d[k] === true);
      const head = [str(d.overallSentiment), flags.length ? flags.map(flagName).join(', ') : ''].filter(Boolean).join(' · ');
      return [head, str(d.summary) ? truncate(str(d.summary)!, 120) : ''].filter(Boolean).join(' — ');
    }
    case 'eval.run.completed': {
      const score = typeof d.overallScore === 'number' ? ` score ${d.overallScore}` : typeof d.score === 'number' ? ` score ${d.score}` : '';
      return [str(d.runId) ?? str(d.id) ?? 'run', str(d.status) ?? '', score.trim(), str(d.evalId) ? `· eval ${str(d.evalId)}` : ''].filter(Boolean).join(' ');
    }
    default:
      return truncate(
        Object.entries(d)
          .filter(([, v]) => v === null || typeof v !== 'object')
          .map(([k, v]) => `${k}=${String(v)}`)
          .join(' '),
        160,
      );
  }
}

function roleName(role: unknown): string {
  return role === 'user' || role === 'caller' ? 'caller' : role === 'agent' ? 'agent' : String(role ?? '?');
}

function flagName(k: string): string {
  return k.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`);
}

function formatSeconds(s: number): string {
  if (!Number.isFinite(s)) return '?';
  const m = Math.floor(s / 60);
  return m ? `${m}m ${String(Math.round(s % 60)).padStart(2, '0')}s` : `${Math.round(s)}s`;
}

/** `HH:MM:SS` of the event's time (local), or of now when the event has none. */
export function clock(iso?: string): string {
  const d = iso ? new Date(iso) : new Date();
  const t = Number.isNaN(d.getTime()) ? new Date() : d;
  return [t.getHours(), t.getMinutes(), t.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

/**
 * The time column of the call view. The call stream's data object has no occurredAt (the
 * spec's `type`, `callId`, `data`); when the server adds it, it is shown. Otherwise transcript
 * segments show their offset into the call (`+1:05`) and other lines none, so that a call's
 * history replayed now is not stamped with the time it was printed.
 */
function callTime(rec: EventRecord): string {
  if (rec.occurredAt) return clock(rec.occurredAt);
  const off = rec.data.offsetSeconds;
  if (typeof off === 'number' && Number.isFinite(off) && off >= 0) {
    const m = Math.floor(off / 60);
    return `+${m}:${String(Math.floor(off % 60)).padStart(2, '0')}`.padStart(8);
  }
  return ' '.repeat(8);
}

/** The colour of a type's family (call, intelligence, eval, campaign). */
function typeColor(chalk: ChalkInstance, type: string): (s: string) => string {
  if (type === 'call.ended' || type === 'call.analysis.completed') return chalk.magenta;
  if (type.startsWith('call.')) return chalk.blue;
  if (type.startsWith('intelligence.')) return chalk.magenta;
  if (type.startsWith('eval.')) return chalk.green;
  return chalk.cyan;
}

const TYPE_WIDTH = 31;

/** A line of `events tail` on a terminal: time, type, call, summary (every part from the stream shown safe). */
export function organizationLine(rec: EventRecord, chalk: ChalkInstance): string {
  const type = typeColor(chalk, rec.type)(safeText(rec.type).padEnd(TYPE_WIDTH));
  return `${chalk.dim(clock(rec.occurredAt))}  ${type} ${chalk.dim(safeText(rec.callId ?? '—').padEnd(22))} ${safeText(summarize(rec))}`;
}

/**
 * A line of `calls tail` on a terminal. Transcript segments read as a chat (agent in
 * cyan, caller in yellow); other events as a dimmed line with their summary.
 */
export function callLine(rec: EventRecord, chalk: ChalkInstance): string {
  const time = chalk.dim(callTime(rec));
  if (rec.type === 'call.transcript.updated') {
    const role = roleName(rec.data.role);
    const colour = role === 'agent' ? chalk.cyan : chalk.yellow;
    const text = safeText(str(rec.data.text) ?? '');
    return `${time}  ${colour.bold(safeText(role).padEnd(6))}  ${colour(text)}`;
  }
  return `${time}  ${chalk.dim('·'.padEnd(6))}  ${typeColor(chalk, rec.type)(safeText(rec.type))}  ${chalk.dim(safeText(summarize(rec)))}`;
}
