import type { ApiClient } from './client.js';
import { apiPath } from './path.js';
import type { StreamResponse } from './types.js';
import type { CallStatus } from '../spec/calls.js';

// Document 2: calls (listing with filters and summary, detail with analysis, transcript,
// recording metadata and audio, cancel). Every endpoint takes `x-api-key` and answers
// `{ data: {...} }` (the audio answers the bytes themselves). See /work/notes/calls-contract.md.

export type CallDirection = 'outbound' | 'inbound';

/** The values the listing's `status` filter takes (the spec spells the active one `in-progress`). */
export const CALL_STATUS_FILTERS = ['queued', 'in-progress', 'completed', 'failed', 'cancelled'] as const;
export type CallStatusFilter = (typeof CALL_STATUS_FILTERS)[number];
export const CALL_DIRECTIONS: readonly CallDirection[] = ['outbound', 'inbound'];
export const AUDIO_FORMATS = ['mp3', 'wav'] as const;
export type AudioFormat = (typeof AUDIO_FORMATS)[number];

/** Calls listing `pageSize`: default 50, max 100 (spec part 8). */
export const CALLS_MAX_PAGE_SIZE = 100;
export const CALLS_DEFAULT_PAGE_SIZE = 50;

/** A call as listings give it (the spec's fields; the server may add more). */
export interface Call {
  id: string;
  campaignId: string;
  phoneNumber: string;
  calleeName: string;
  status: CallStatus | string;
  direction: CallDirection | string;
  /** Seconds (0 until the call ends). */
  duration: number;
  createdAt: string;
  endedAt: string | null;
  failureReason?: string | null;
  agentId?: string;
  agentVersion?: number | null;
  [key: string]: unknown;
}

export interface Objective {
  status: 'True' | 'False' | 'Unknown' | string;
  confidence?: number;
  reasoning?: string;
  subObjectives?: Record<string, Objective>;
}

/** The after-call analysis (spec part 2, "Call analysis"); every group may be missing on another server. */
export interface CallAnalysis {
  analyzedAt?: string;
  sentiment?: {
    overallSentiment?: string;
    confidence?: number;
    summary?: string;
    emotionalTone?: { caller?: string; recipient?: string };
    communicationQuality?: { clarity?: number; effectiveness?: number; rapport?: number };
    keyMoments?: unknown[];
    recommendations?: string[];
  };
  humanContact?: { reachedHuman?: boolean; reachedVoicemail?: boolean; leftMessage?: boolean; confidence?: number };
  objectives?: Record<string, Objective>;
  callback?: {
    callbackRequested?: boolean;
    humanTransferRequested?: boolean;
    urgency?: string;
    summary?: string;
    confidence?: number;
    preferredContactMethod?: string | null;
    timeframe?: string | null;
    reason?: string | null;
  };
  doNotCall?: { requested?: boolean; confidence?: number; requestType?: string };
  legal?: { threatened?: boolean; confidence?: number; threatType?: string; severity?: string | null };
  crisis?: { detected?: boolean; confidence?: number; severity?: string | null; indicatorType?: string; recommendedAction?: string | null };
  resolution?: { resolved?: boolean; resolutionType?: string; escalated?: boolean; followUpRequired?: boolean; confidence?: number; summary?: string };
  [key: string]: unknown;
}

/** The detail adds `summary` and `analysis` (both null until the call is analysed). */
export interface CallDetail extends Call {
  summary: string | null;
  analysis: CallAnalysis | null;
}

export interface CallsSummary {
  total: number;
  completed: number;
  failed: number;
  active: number;
  queued: number;
}

export interface CallsPagination {
  page: number;
  pageSize: number;
  total: number;
  totalPages: number;
}

export interface CallsPage {
  calls: Call[];
  pagination: CallsPagination;
  summary: CallsSummary;
}

/** The filters of GET /api/v1/calls, named as the API names them. */
export interface CallFilters {
  status?: CallStatusFilter;
  campaignId?: string;
  direction?: CallDirection;
  dateFrom?: string;
  dateTo?: string;
  /** Seconds. */
  minDuration?: number;
  maxDuration?: number;
  search?: string;
}

export interface TranscriptMessage {
  role: 'agent' | 'user' | string;
  text: string;
  ordinal: number;
}

export interface Transcript {
  callId: string;
  messages: TranscriptMessage[];
  messageCount: number;
  duration: number;
}

export interface Recording {
  sid: string;
  duration: number;
  status: string;
  createdAt: string;
}

export interface RecordingMetadata {
  callId: string;
  recordings: Recording[];
  recordingCount: number;
  audioUrl: string;
}

const auth = 'x-api-key' as const;

function filterQuery(f: CallFilters): Record<string, string | number | undefined> {
  return {
    status: f.status,
    campaignId: f.campaignId,
    direction: f.direction,
    dateFrom: f.dateFrom,
    dateTo: f.dateTo,
    minDuration: f.minDuration,
    maxDuration: f.maxDuration,
    search: f.search,
  };
}

/** One page of the calls listing, with its pagination and the summary over every match. */
export async function listCalls(api: ApiClient, req: { page?: number; pageSize?: number } & CallFilters, signal?: AbortSignal): Promise<CallsPage> {
  const res = await api.request<Partial<CallsPage>>({
    method: 'GET',
    path: '/api/v1/calls',
    auth,
    envelope: 'data',
    query: { page: req.page, pageSize: req.pageSize, ...filterQuery(req) },
    signal,
  });
  const d = res.data ?? {};
  const calls = Array.isArray(d.calls) ? d.calls : [];
  const page = num(d.pagination?.page) ?? req.page ?? 1;
  const pageSize = num(d.pagination?.pageSize) ?? req.pageSize ?? CALLS_DEFAULT_PAGE_SIZE;
  const total = num(d.pagination?.total) ?? num(d.summary?.total) ?? calls.length;
  const totalPages = num(d.pagination?.totalPages) ?? Math.ceil(total / pageSize);
  const s = d.summary;
  const summary: CallsSummary = {
    total: num(s?.total) ?? total,
    completed: num(s?.completed) ?? 0,
    failed: num(s?.failed) ?? 0,
    active: num(s?.active) ?? 0,
    queued: num(s?.queued) ?? 0,
  };
  return { calls, pagination: { page, pageSize, total, totalPages }, summary };
}

/**
 * The listing page after page from `startPage`, each page yielded as it arrives (nothing
 * is kept), until the last page or an empty one. The caller stops early by breaking out.
 */
export async function* callPages(
  api: ApiClient,
  req: { startPage?: number; pageSize?: number } & CallFilters,
  signal?: AbortSignal,
): AsyncGenerator<CallsPage> {
  const pageSize = req.pageSize ?? CALLS_MAX_PAGE_SIZE;
  for (let page = req.startPage ?? 1; ; page++) {
    signal?.throwIfAborted();
    const res = await listCalls(api, { ...req, page, pageSize }, signal);
    yield res;
    if (res.calls.length === 0 || page >= res.pagination.totalPages) return;
  }
}

export async function getCall(api: ApiClient, callId: string, signal?: AbortSignal): Promise<CallDetail> {
  return (await api.request<CallDetail>({ method: 'GET', path: apiPath`/api/v1/calls/${callId}`, auth, envelope: 'data', signal })).data;
}

export async function getTranscript(api: ApiClient, callId: string, signal?: AbortSignal): Promise<Transcript> {
  const d =
    (await api.request<Partial<Transcript>>({ method: 'GET', path: apiPath`/api/v1/calls/${callId}/transcript`, auth, envelope: 'data', signal })).data ?? {};
  const messages = Array.isArray(d.messages) ? d.messages : [];
  return { ...d, callId: d.callId ?? callId, messages, messageCount: d.messageCount ?? messages.length, duration: d.duration ?? 0 };
}

export async function getRecording(api: ApiClient, callId: string, signal?: AbortSignal): Promise<RecordingMetadata> {
  const d =
    (await api.request<Partial<RecordingMetadata>>({ method: 'GET', path: apiPath`/api/v1/calls/${callId}/recording`, auth, envelope: 'data', signal })).data ??
    {};
  const recordings = Array.isArray(d.recordings) ? d.recordings : [];
  return {
    ...d,
    callId: d.callId ?? callId,
    recordings,
    recordingCount: d.recordingCount ?? recordings.length,
    audioUrl: d.audioUrl ?? apiPath`/api/v1/calls/${callId}/recording/audio`,
  };
}

export interface CallAudio extends StreamResponse {
  /** Bytes announced by `content-length`, when the server gave it. */
  contentLength?: number;
  /** The file name of `content-disposition`, when given. */
  filename?: string;
}

/** The recording's audio as a stream (never read whole): the body with its content headers. */
export async function streamCallAudio(
  api: ApiClient,
  callId: string,
  opts: { format?: AudioFormat; recordingSid?: string } = {},
  signal?: AbortSignal,
): Promise<CallAudio> {
  const res = await api.stream({
    method: 'GET',
    path: apiPath`/api/v1/calls/${callId}/recording/audio`,
    auth,
    query: { format: opts.format, recordingSid: opts.recordingSid },
    accept: opts.format === 'wav' ? 'audio/wav, audio/*' : 'audio/mpeg, audio/*',
    signal,
  });
  const len = Number(header(res.headers['content-length']));
  const disposition = header(res.headers['content-disposition']);
  const filename = disposition ? /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(disposition)?.[1] : undefined;
  return { ...res, contentLength: Number.isFinite(len) && len >= 0 && header(res.headers['content-length']) !== undefined ? len : undefined, filename };
}

/** Cancels a queued call; the server refuses (409 `call_not_cancellable`) any other status. */
export async function cancelCall(api: ApiClient, callId: string, signal?: AbortSignal): Promise<Call> {
  return (await api.request<Call>({ method: 'POST', path: apiPath`/api/v1/calls/${callId}/cancel`, auth, envelope: 'data', signal })).data;
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function header(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
