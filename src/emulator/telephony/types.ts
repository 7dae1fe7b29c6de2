import type { CallStatus, CampaignStatus } from '../../spec/calls.js';

/**
 * Records of the simulated telephony (document 2: campaigns, campaign contacts,
 * runs, calls). Stored per organization in env.store; the routes render them.
 * Analytics (src/emulator/analytics) reads them through telephonyFor(env).
 */

export type Direction = 'outbound' | 'inbound';
export type CampaignType = 'standard' | 'api';

export interface CampaignRecord {
  id: string;
  name: string;
  description: string;
  status: CampaignStatus;
  direction: Direction;
  type: CampaignType;
  contactListId: string | null;
  /** The list's name when the campaign was created (kept if the list is renamed or gone). */
  contactListName: string | null;
  agentId: string;
  agent: { type: string } | null;
  workspaceId: string | null;
  provisionedPhoneNumberId: string | null;
  phoneNumber: string | null;
  createdAt: string;
  updatedAt: string;
  startedAt: string | null;
  completedAt: string | null;
  /** The open run while active (null otherwise). */
  currentRunId: string | null;
  /** Inbound: simulated ms at which the next caller rings (null unless active inbound). */
  nextInboundAt: number | null;
  /** Inbound calls received so far (draws the next caller). */
  inboundCount: number;
  /** True once the campaign placed (initiated) at least one call: completion needs it. */
  placedAny: boolean;
}

export type CampaignContactStatus = 'pending' | 'queued' | 'called' | 'failed';

export interface CampaignContactRecord {
  contactId: string;
  name: string;
  phoneNumber: string;
  status: CampaignContactStatus;
  addedAt: string;
  lastCallId: string | null;
}

/** A period during which the campaign was active. */
export interface RunRecord {
  id: string;
  campaignId: string;
  startedAt: string;
  endedAt: string | null;
}

/** A run as GET /campaigns/{id}/runs shows it (counts over the calls initiated during it). */
export interface RunView extends RunRecord {
  totalCalls: number;
  completedCalls: number;
}

export type FailureReason = 'no_answer' | 'busy' | 'voicemail_full' | 'missed' | 'network_error';

/** The caller persona the simulation drew: it shapes the transcript and the analysis. */
export type Persona = 'cooperative' | 'busy' | 'confused' | 'angry' | 'dnc' | 'legal' | 'crisis' | 'callback';

/** How a dialled call turns out (drawn when it is initiated). */
export type Outcome = 'answered' | 'voicemail' | 'no_answer' | 'busy' | 'missed';

export type Sentiment = 'positive' | 'neutral' | 'negative';
export type ObjectiveStatus = 'True' | 'False' | 'Unknown';

/**
 * The analysis facts kept on every analysed call, at the paths of the full analysis the detail
 * endpoint builds from them and the transcript, so that code reading them works on both.
 * Identical facts share one object in memory (seeded history is large).
 */
export interface AnalysisCore {
  sentiment: { overallSentiment: Sentiment };
  humanContact: { reachedHuman: boolean; reachedVoicemail: boolean; leftMessage: boolean };
  objectives: { primary: { status: ObjectiveStatus } };
  callback: { callbackRequested: boolean };
  doNotCall: { requested: boolean };
  legal: { threatened: boolean };
  crisis: { detected: boolean };
  resolution: { resolved: boolean };
}

export interface CallRecord {
  id: string;
  campaignId: string;
  phoneNumber: string;
  calleeName: string;
  status: CallStatus;
  direction: Direction;
  /** Seconds, 0 until the call ended. */
  duration: number;
  createdAt: string;
  endedAt: string | null;
  contactId: string | null;
  priority: number;
  scheduledFor: string | null;
  /** When the dialer initiated it (null while queued / when cancelled). */
  startedAt: string | null;
  /** When it started ringing (inbound: when it arrived). */
  ringingAt: string | null;
  /** When it connected (in_progress); null if never answered. */
  answeredAt: string | null;
  failureReason: FailureReason | null;
  agentId: string;
  agentVersion: number | null;
  /** The run during which it was initiated (null if never initiated). */
  runId: string | null;
  /** Dollars: $0.015 per started minute + $0.01 per dial, once ended; 0 before and when cancelled. */
  cost: number;
  /** Simulation inputs (deterministic for the seed and the call id). */
  persona: Persona;
  outcome: Outcome | null;
  /** Seconds of conversation planned for a connected call. */
  plannedSeconds: number;
  /** Short text from the agent's instructions at dial time: what the agent calls about. */
  topic: string;
  agentName: string;
  /** The agent's engine at dial time (call.ended carries it). */
  engine: string;
  /** Simulated ms timestamps of the planned phases (null while queued / for seeded calls). */
  plan: { ringAt: number; connectAt: number | null; endAt: number } | null;
  /** Transcript segments already published (live calls). */
  segmentsSent: number;
  /** intelligence.speaker.identified was published. */
  speakerSent: boolean;
  /** Set when call.analysis.completed was published (null until then). */
  analyzedAt: string | null;
  analysis: AnalysisCore | null;
  /** Seeded historical calls carry no events and no timers. */
  seeded?: boolean;
}

export interface PhoneNumber {
  id: string;
  phoneNumber: string;
  label: string;
}
