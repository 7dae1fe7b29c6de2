import type { ChalkInstance } from 'chalk';
import type { CallAnalysis, CallDetail, Objective } from '../api/calls.js';
import { wrapText } from '../ui/wrap.js';
import type { Column } from '../ui/format.js';
import { safeText } from '../ui/safe-text.js';
import { CALL_TSV_COLUMNS, formatCallDuration, paintStatus } from './format.js';
import { DEFAULT_PRESENTATION, formatTime, type Presentation } from '../ui/values.js';

/**
 * How one call reads on a terminal (`vap calls get`): a header, the call's facts, then the
 * analysis, the flags that need someone's attention (crisis, legal threat, do-not-call request)
 * first and in red.
 */

export interface AnalysisFlag {
  kind: 'crisis' | 'legal' | 'doNotCall';
  /** One line, e.g. `CRISIS detected (severity high, hopelessness)`. */
  text: string;
  /** What to do about it, when the analysis says. */
  action?: string;
}

const pct = (n: unknown): string => (typeof n === 'number' && Number.isFinite(n) ? `${Math.round(n * 100)}%` : '');
const yes = (b: unknown) => b === true;
const present = (s: unknown): s is string => typeof s === 'string' && s !== '' && s !== 'none';

/** The flags that need attention, most urgent first: crisis, legal threat, do-not-call request. */
export function analysisFlags(a: CallAnalysis | null | undefined): AnalysisFlag[] {
  if (!a) return [];
  const out: AnalysisFlag[] = [];
  if (yes(a.crisis?.detected)) {
    const bits = [
      a.crisis?.severity ? `severity ${a.crisis.severity}` : '',
      present(a.crisis?.indicatorType) ? a.crisis!.indicatorType! : '',
      a.crisis?.confidence !== undefined ? `confidence ${pct(a.crisis.confidence)}` : '',
    ].filter(Boolean);
    out.push({ kind: 'crisis', text: `CRISIS detected${bits.length ? ` (${bits.join(', ')})` : ''}`, action: a.crisis?.recommendedAction ?? undefined });
  }
  if (yes(a.legal?.threatened)) {
    const bits = [
      present(a.legal?.threatType) ? a.legal!.threatType! : '',
      a.legal?.severity ? `severity ${a.legal.severity}` : '',
      a.legal?.confidence !== undefined ? `confidence ${pct(a.legal.confidence)}` : '',
    ].filter(Boolean);
    out.push({ kind: 'legal', text: `LEGAL threat${bits.length ? ` (${bits.join(', ')})` : ''}` });
  }
  if (yes(a.doNotCall?.requested)) {
    const bits = [
      present(a.doNotCall?.requestType) ? a.doNotCall!.requestType! : '',
      a.doNotCall?.confidence !== undefined ? `confidence ${pct(a.doNotCall.confidence)}` : '',
    ].filter(Boolean);
    out.push({
      kind: 'doNotCall',
      text: `DO NOT CALL requested${bits.length ? ` (${bits.join(', ')})` : ''}`,
      action: 'keep this number off future campaigns',
    });
  }
  return out;
}

function humanContactText(a: CallAnalysis): string | undefined {
  const h = a.humanContact;
  if (!h) return undefined;
  const conf = h.confidence !== undefined ? ` (confidence ${pct(h.confidence)})` : '';
  if (yes(h.reachedHuman)) return `reached a person${conf}`;
  if (yes(h.reachedVoicemail)) return `reached voicemail, ${yes(h.leftMessage) ? 'left a message' : 'left no message'}${conf}`;
  return `nobody reached${conf}`;
}

function sentimentText(a: CallAnalysis): string | undefined {
  const s = a.sentiment;
  if (!s?.overallSentiment) return undefined;
  const tone = s.emotionalTone
    ? [
        present(s.emotionalTone.caller) ? `caller ${s.emotionalTone.caller}` : '',
        present(s.emotionalTone.recipient) ? `agent ${s.emotionalTone.recipient}` : '',
      ]
        .filter(Boolean)
        .join(', ')
    : '';
  return [`${s.overallSentiment}${s.confidence !== undefined ? ` (confidence ${pct(s.confidence)})` : ''}`, tone].filter(Boolean).join(' · ');
}

function callbackText(a: CallAnalysis): string | undefined {
  const c = a.callback;
  if (!c) return undefined;
  if (!yes(c.callbackRequested) && !yes(c.humanTransferRequested)) return 'none requested';
  const what = [yes(c.callbackRequested) ? 'callback requested' : '', yes(c.humanTransferRequested) ? 'asked for a person' : ''].filter(Boolean).join(', ');
  const bits = [
    present(c.urgency) ? `urgency ${c.urgency}` : '',
    c.timeframe ? `when: ${c.timeframe}` : '',
    c.preferredContactMethod ? `by ${c.preferredContactMethod}` : '',
  ].filter(Boolean);
  return `${what}${bits.length ? ` (${bits.join(', ')})` : ''}${present(c.summary) ? ` — ${c.summary}` : ''}`;
}

function resolutionText(a: CallAnalysis): string | undefined {
  const r = a.resolution;
  if (!r) return undefined;
  const head = yes(r.resolved)
    ? `resolved${present(r.resolutionType) ? ` (${r.resolutionType})` : ''}`
    : `not resolved${present(r.resolutionType) && r.resolutionType !== 'unresolved' ? ` (${r.resolutionType})` : ''}`;
  const bits = [yes(r.escalated) ? 'escalated' : '', yes(r.followUpRequired) ? 'follow-up required' : ''].filter(Boolean);
  return `${[head, ...bits].join(', ')}${present(r.summary) ? ` — ${r.summary}` : ''}`;
}

/** One line per objective (sub-objectives indented): plain text, with its mark painted apart so wrapping counts visible columns only. */
function objectiveLines(
  objectives: Record<string, Objective> | undefined,
  chalk: ChalkInstance,
  depth = 0,
): Array<{ indent: string; mark: string; text: string }> {
  if (!objectives || typeof objectives !== 'object') return [];
  const out: Array<{ indent: string; mark: string; text: string }> = [];
  for (const [name, o] of Object.entries(objectives)) {
    if (!o || typeof o !== 'object') continue;
    const mark = o.status === 'True' ? chalk.green('✓') : o.status === 'False' ? chalk.red('✗') : chalk.dim('?');
    const conf = o.confidence !== undefined ? ` (${pct(o.confidence)})` : '';
    out.push({ indent: '  '.repeat(depth), mark, text: `${name}: ${o.status ?? 'Unknown'}${conf}${present(o.reasoning) ? ` — ${o.reasoning}` : ''}` });
    out.push(...objectiveLines(o.subObjectives, chalk, depth + 1));
  }
  return out;
}

/** The detail as printable text for a terminal; every text from the API is shown safe (here, or by wrapText). */
export function renderCallDetail(call: CallDetail, chalk: ChalkInstance, width = 80, p: Presentation = DEFAULT_PRESENTATION): string {
  // Times as the standard says (src/ui/values.ts): relative, or exact with --absolute-times; the API's text shown safe.
  const when = (iso: string) => safeText(formatTime(iso, p));
  const lines: string[] = [];
  const ended = Boolean(call.endedAt);
  lines.push(...headLines(call, chalk, width));
  const facts: Array<[string, string]> = [];
  const callee = [call.calleeName, call.phoneNumber ? `(${call.phoneNumber})` : ''].filter(Boolean).join(' ');
  facts.push([call.direction === 'inbound' ? 'Caller' : 'Callee', callee]);
  if (call.failureReason) facts.push(['Failure', String(call.failureReason).replace(/_/g, ' ')]);
  if (call.campaignId) facts.push(['Campaign', call.campaignId]);
  if (call.agentId) facts.push(['Agent', `${call.agentId}${call.agentVersion != null ? ` v${call.agentVersion}` : ''}`]);
  facts.push(['Created', when(call.createdAt)]);
  if (typeof call.scheduledFor === 'string' && call.scheduledFor) facts.push(['Scheduled', when(call.scheduledFor)]);
  if (call.endedAt) facts.push(['Ended', when(call.endedAt)]);
  if (typeof call.cost === 'number') facts.push(['Cost', `$${call.cost.toFixed(3)}`]);
  lines.push(...labelled(facts, chalk, width));

  const a = call.analysis;
  if (!a) {
    lines.push('');
    const why =
      call.status === 'cancelled'
        ? 'No analysis: the call was cancelled before it was dialled.'
        : call.status === 'failed'
          ? 'No analysis: the call did not connect, so there was no conversation to analyse.'
          : ended || call.status === 'completed'
            ? 'Not analysed yet: the analysis comes a couple of minutes after the call ends.'
            : `No analysis yet: the call is ${safeText(String(call.status).replace('_', ' '))}; it is analysed a couple of minutes after it ends.`;
    lines.push(chalk.dim(why));
    return lines.join('\n');
  }
  const flags = analysisFlags(a);
  if (flags.length) {
    lines.push('');
    for (const f of flags) {
      lines.push(chalk.red.bold(`! ${safeText(f.text)}`));
      if (f.action) lines.push(...wrapText(f.action, width - 4).map((l) => `  ${chalk.red(l)}`));
    }
  }
  lines.push('');
  const summary = call.summary ?? a.sentiment?.summary;
  if (summary) {
    lines.push(chalk.bold('Summary'));
    lines.push(...wrapText(summary, width - 2).map((l) => `  ${l}`));
    lines.push('');
  }
  const rows: Array<[string, string]> = [];
  const sentiment = sentimentText(a);
  if (sentiment) rows.push(['Sentiment', sentiment]);
  const human = humanContactText(a);
  if (human) rows.push(['Human contact', human]);
  const callback = callbackText(a);
  if (callback) rows.push(['Callback', callback]);
  const resolution = resolutionText(a);
  if (resolution) rows.push(['Resolution', resolution]);
  lines.push(...labelled(rows, chalk, width));
  const objectives = objectiveLines(a.objectives, chalk);
  if (objectives.length) {
    if (rows.length) lines.push('');
    lines.push(chalk.bold('Objectives'));
    for (const o of objectives) {
      lines.push(...wrapText(o.text, width - 6 - o.indent.length).map((l, i) => (i === 0 ? `  ${o.indent}${o.mark} ${l}` : `  ${o.indent}    ${l}`)));
    }
  }
  if (a.analyzedAt) {
    lines.push('');
    // Wrapped between words; the command stays on one line when it fits one, to be copied whole.
    const command = `vap calls get ${String(call.id)} --json`;
    lines.push(...wrapText(`Analysed ${formatTime(a.analyzedAt, p)} · ${command} for every field`, width, [command]).map((l) => chalk.dim(l)));
  }
  return lines.join('\n');
}

/**
 * `Call <id>  completed · outbound · 3m 7s` on one line when it fits; else the facts under
 * the id; and where not even `Call <id>` fits, the facts after `Call` and the id on a line
 * of its own (never split, so that it can be copied).
 */
function headLines(call: CallDetail, chalk: ChalkInstance, width: number): string[] {
  const id = safeText(String(call.id));
  const status = safeText(String(call.status));
  const rest = `${safeText(String(call.direction))} · ${formatCallDuration(call.duration, Boolean(call.endedAt))}`;
  const facts = `${paintStatus(String(call.status), chalk, status)} · ${rest}`;
  const factsWidth = status.length + 3 + rest.length;
  const title = `Call ${id}`;
  if (title.length + 2 + factsWidth <= width) return [`${chalk.bold(title)}  ${facts}`];
  if (title.length <= width) return [chalk.bold(title), facts];
  return [`${chalk.bold('Call')}  ${facts}`, chalk.bold(id)];
}

function labelled(rows: Array<[string, string]>, chalk: ChalkInstance, width: number): string[] {
  const w = Math.max(0, ...rows.map(([k]) => k.length));
  const out: string[] = [];
  for (const [k, v] of rows) {
    const parts = wrapText(v, Math.max(20, width - w - 2));
    parts.forEach((p, i) => out.push(`${i === 0 ? chalk.bold(k.padEnd(w)) : ' '.repeat(w)}  ${p}`.trimEnd()));
  }
  return out;
}

/** Fields for `calls get` piped as TSV (one `field<TAB>value` line each): flat and greppable. */
export const CALL_DETAIL_FIELDS: Column<CallDetail>[] = [
  // the listing's columns (id … duration, campaignId, createdAt), then the detail's own
  ...CALL_TSV_COLUMNS.filter((col) => col.header !== 'createdAt'),
  { header: 'createdAt', value: (c) => c.createdAt },
  { header: 'endedAt', value: (c) => c.endedAt },
  { header: 'failureReason', value: (c) => c.failureReason ?? '' },
  {
    header: 'flags',
    value: (c) =>
      analysisFlags(c.analysis)
        .map((f) => f.kind)
        .join(','),
  },
  { header: 'summary', value: (c) => c.summary ?? '' },
  { header: 'sentiment', value: (c) => c.analysis?.sentiment?.overallSentiment ?? '' },
  { header: 'reachedHuman', value: (c) => c.analysis?.humanContact?.reachedHuman ?? '' },
  { header: 'objective', value: (c) => c.analysis?.objectives?.primary?.status ?? '' },
  { header: 'callbackRequested', value: (c) => c.analysis?.callback?.callbackRequested ?? '' },
  { header: 'resolved', value: (c) => c.analysis?.resolution?.resolved ?? '' },
];
