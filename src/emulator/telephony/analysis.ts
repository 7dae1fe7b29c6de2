import type { AnalysisCore, CallRecord } from './types.js';
import { factsFor, type Facts, type Segment } from './script.js';
import { rngFor, round2 } from './rng.js';

/**
 * The after-call analysis, read from the conversation's facts (the same facts the
 * transcript was written from). The stored part (AnalysisCore) is small and shared
 * between calls with the same facts; the detail endpoint renders the full analysis.
 */

export function callFacts(seed: number, call: CallRecord): Facts | null {
  if (!call.answeredAt || !call.outcome) return null;
  return factsFor(seed, call.id, call.persona, call.outcome);
}

/** The facts analytics reads; for a call that never connected, a short "no contact" analysis. */
export function analysisCore(f: Facts | null): AnalysisCore {
  if (!f) {
    return {
      sentiment: { overallSentiment: 'neutral' },
      humanContact: { reachedHuman: false, reachedVoicemail: false, leftMessage: false },
      objectives: { primary: { status: 'Unknown' } },
      callback: { callbackRequested: false },
      doNotCall: { requested: false },
      legal: { threatened: false },
      crisis: { detected: false },
      resolution: { resolved: false },
    };
  }
  return {
    sentiment: { overallSentiment: f.sentiment },
    humanContact: { reachedHuman: !f.voicemail, reachedVoicemail: f.voicemail, leftMessage: f.voicemail },
    objectives: { primary: { status: f.objective } },
    callback: { callbackRequested: f.callback },
    doNotCall: { requested: f.dnc },
    legal: { threatened: f.legal },
    crisis: { detected: f.crisis },
    resolution: { resolved: f.resolved },
  };
}

/** The call's summary, one or two sentences. */
export function summaryOf(call: CallRecord, f: Facts | null): string {
  const who = call.calleeName || call.phoneNumber;
  if (call.status === 'failed') {
    const why =
      call.failureReason === 'busy' ? 'the line was busy' : call.failureReason === 'missed' ? 'the call was not answered by the agent' : 'nobody answered';
    return `The ${call.direction} call ${call.direction === 'outbound' ? 'to' : 'from'} ${who} did not connect: ${why}.`;
  }
  if (!f) return `The call with ${who} has no conversation to summarise.`;
  if (f.voicemail) return `The agent reached ${who}'s voicemail and left a message asking for a call back.`;
  const parts: string[] = [];
  switch (f.persona) {
    case 'dnc':
      parts.push(`${who} asked not to be called again; the agent confirmed the number was removed from the calling list.`);
      break;
    case 'legal':
      parts.push(`${who} said their lawyer was involved and objected to the calls; the agent referred the matter to the compliance team.`);
      break;
    case 'crisis':
      parts.push(`${who} expressed distress and hopelessness; the agent gave the 988 crisis line and transferred the call to a colleague.`);
      break;
    case 'callback':
      parts.push(`${who} could not talk and asked for a callback; the agent scheduled one.`);
      break;
    case 'angry':
      parts.push(
        `${who} was frustrated about repeated calls and unresolved problems${f.humanTransfer ? ' and asked for a supervisor; the call was transferred' : '; the agent logged a complaint'}.`,
      );
      break;
    default:
      parts.push(f.objective === 'True' ? `${who} agreed and the agent confirmed the request.` : `${who} did not commit during the call.`);
  }
  if (f.infoUpdate) parts.push('The caller updated their e-mail address.');
  if (f.promise) parts.push('The agent promised to send the details by e-mail.');
  return parts.join(' ');
}

/** The full analysis of the detail endpoint: every group of the spec's table, consistent with the facts and the transcript. */
export function fullAnalysis(seed: number, call: CallRecord, f: Facts | null, segments: Segment[]): Record<string, unknown> {
  const core = call.analysis ?? analysisCore(f);
  const rng = rngFor(seed, call.id, 'analysis');
  const conf = (lo: number) => round2(lo + rng() * (0.99 - lo));
  const summary = summaryOf(call, f);
  const connected = Boolean(f && !f.voicemail);
  const sentiment = core.sentiment.overallSentiment;
  const userText = segments
    .filter((s) => s.role === 'user')
    .map((s) => s.text)
    .join(' ');
  const email = userText.match(/[\w.+-]+@[\w.-]+\.[a-z]+/i)?.[0] ?? null;
  const timeframe = f?.callback
    ? (segments.find((s) => s.role === 'agent' && /scheduled a callback for (.+?)\./.test(s.text))?.text.match(/scheduled a callback for (.+?)\./)?.[1] ?? null)
    : null;
  const tone = sentiment === 'positive' ? 'friendly' : sentiment === 'negative' ? (f?.crisis ? 'distressed' : 'frustrated') : connected ? 'calm' : 'none';
  const keyMoments = segments
    .filter(
      (s) =>
        s.role === 'user' &&
        (f?.dnc || f?.legal || f?.crisis || f?.callback || f?.humanTransfer ? /call|lawyer|attorney|go on|point|manager|back/i.test(s.text) : s.ordinal <= 3),
    )
    .slice(0, 3)
    .map((s) => ({ ordinal: s.ordinal, offsetSeconds: s.offsetSeconds, description: s.text }));
  const objectives: Record<string, unknown> = {
    primary: {
      status: core.objectives.primary.status,
      confidence: conf(0.7),
      reasoning:
        core.objectives.primary.status === 'True'
          ? 'The contact agreed and the agent confirmed the outcome.'
          : core.objectives.primary.status === 'False'
            ? 'The contact declined or ended the conversation before the objective could be met.'
            : connected
              ? 'The conversation did not reach a decision on the objective.'
              : 'No conversation took place.',
      subObjectives: {
        identity_confirmed: {
          status: connected ? 'True' : 'Unknown',
          confidence: conf(0.7),
          reasoning: connected ? 'The contact confirmed who they were at the start of the call.' : 'Nobody was reached.',
        },
      },
    },
  };
  return {
    analyzedAt: call.analyzedAt,
    sentiment: {
      overallSentiment: sentiment,
      confidence: conf(0.7),
      summary: summary,
      emotionalTone: { caller: tone, recipient: connected ? 'professional' : 'none' },
      communicationQuality: {
        clarity: connected ? conf(0.75) : 0,
        effectiveness: core.resolution.resolved ? conf(0.75) : connected ? round2(0.4 + rng() * 0.3) : 0,
        rapport: sentiment === 'positive' ? conf(0.75) : connected ? round2(0.3 + rng() * 0.4) : 0,
      },
      keyMoments,
      recommendations: f?.dnc
        ? ['Keep the number on the do-not-call list.']
        : f?.legal
          ? ['Route further contact through the compliance team.']
          : f?.crisis
            ? ['Follow up on the welfare referral.']
            : sentiment === 'negative'
              ? ['Review the complaint before the next contact.']
              : [],
    },
    humanContact: { ...core.humanContact, confidence: conf(0.8) },
    objectives,
    callback: {
      callbackRequested: core.callback.callbackRequested,
      humanTransferRequested: Boolean(f?.humanTransfer),
      urgency: f?.crisis ? 'high' : f?.callback ? 'medium' : 'low',
      summary: f?.callback ? `Asked to be called back ${timeframe ?? 'later'}.` : f?.humanTransfer ? 'Asked to speak to a person.' : 'No callback requested.',
      confidence: conf(0.75),
      preferredContactMethod: f?.callback ? 'phone' : f?.promise ? 'email' : null,
      timeframe,
      reason: f?.callback ? 'The contact was busy at the time of the call.' : null,
    },
    doNotCall: {
      requested: core.doNotCall.requested,
      confidence: conf(core.doNotCall.requested ? 0.85 : 0.7),
      requestType: core.doNotCall.requested ? 'explicit' : 'none',
    },
    legal: {
      threatened: core.legal.threatened,
      confidence: conf(0.75),
      threatType: core.legal.threatened ? 'lawyer' : 'none',
      severity: core.legal.threatened ? 'medium' : null,
    },
    crisis: {
      detected: core.crisis.detected,
      confidence: conf(0.75),
      severity: core.crisis.detected ? 'high' : null,
      indicatorType: core.crisis.detected ? 'hopelessness' : 'none',
      recommendedAction: core.crisis.detected ? 'Transfer to a trained colleague and share the 988 crisis line.' : null,
    },
    resolution: {
      resolved: core.resolution.resolved,
      resolutionType: core.resolution.resolved ? 'full' : core.objectives.primary.status === 'Unknown' && connected ? 'partial' : 'unresolved',
      escalated: Boolean(f?.humanTransfer || f?.legal),
      followUpRequired: Boolean(f?.callback || f?.legal || f?.crisis || f?.promise || (connected && !core.resolution.resolved)),
      confidence: conf(0.7),
      summary: core.resolution.resolved
        ? 'The purpose of the call was met.'
        : connected
          ? 'The purpose of the call was not met on this call.'
          : 'No conversation took place.',
    },
    ivr: { encountered: false, stuck: false, escaped: false, navigationPath: [] },
    informationUpdates: f?.infoUpdate && email ? [{ field: 'email', originalValue: null, correctedValue: email }] : [],
    communicationPromises: f?.promise ? [{ type: 'send_information', channel: 'email', description: 'Send the details of the call by e-mail.' }] : [],
    callerIntent:
      call.direction === 'inbound' && f
        ? {
            primaryIntent: f.dnc
              ? 'opt_out'
              : f.legal
                ? 'complaint'
                : f.crisis
                  ? 'support'
                  : f.callback
                    ? 'callback_request'
                    : f.persona === 'angry'
                      ? 'complaint'
                      : 'inquiry',
            urgency: f.crisis ? 'high' : f.persona === 'angry' || f.legal ? 'medium' : 'low',
            keywords: keywordsOf(userText),
            summary,
          }
        : { primaryIntent: null, urgency: null, keywords: [], summary: null },
  };
}

const STOP = new Set([
  'about',
  'again',
  'their',
  'there',
  'these',
  'thing',
  'think',
  'would',
  'could',
  'right',
  'still',
  'thank',
  'thanks',
  'that’s',
  "that's",
  'please',
  'really',
  'going',
]);

function keywordsOf(text: string): string[] {
  const words = text.toLowerCase().match(/[a-z']{5,}/g) ?? [];
  return [...new Set(words.filter((w) => !STOP.has(w)))].slice(0, 5);
}

/** Dollars: $0.015 per started minute + $0.01 per dial; a failed call costs the dial only; cancelled / never dialled 0. */
export function costOf(call: Pick<CallRecord, 'status' | 'duration' | 'startedAt'>): number {
  if (call.status === 'failed') return 0.01;
  if (call.status !== 'completed') return 0;
  return Math.round((0.01 + Math.ceil(call.duration / 60) * 0.015) * 1000) / 1000;
}
