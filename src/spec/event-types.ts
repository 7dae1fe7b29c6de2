/**
 * The event types of document 1, part 6, and the emulator's where the spec's list is "not shown":
 * the emulator's catalog (GET /api/v1/events/types) and the CLI's help text. The CLI checks
 * `--types` against the live catalog, never against this list alone.
 */
export type Delivery = 'stream' | 'webhook';

export interface EventTypeInfo {
  type: string;
  description: string;
  delivery: Delivery[];
  /** Carried by the call stream only: never on the organization stream or a webhook. */
  streamOnly: boolean;
}

export const EVENT_TYPES: readonly EventTypeInfo[] = [
  { type: 'call.started', description: 'the call connected', delivery: ['stream', 'webhook'], streamOnly: false },
  {
    type: 'call.status.updated',
    description: 'the call moved to another status (initiated, ringing, in progress, completed, failed, cancelled)',
    delivery: ['stream', 'webhook'],
    streamOnly: false,
  },
  { type: 'call.transcript.updated', description: 'a transcript segment was finalized', delivery: ['stream'], streamOnly: true },
  { type: 'call.voice.updated', description: 'live voice activity: who is speaking now', delivery: ['stream'], streamOnly: true },
  { type: 'call.ended', description: 'the call ended', delivery: ['stream', 'webhook'], streamOnly: false },
  { type: 'intelligence.speaker.identified', description: 'the analyzer identified the speaker', delivery: ['stream', 'webhook'], streamOnly: false },
  {
    type: 'call.analysis.completed',
    description: 'call analysis finished (the last after-call event of a call)',
    delivery: ['stream', 'webhook'],
    streamOnly: false,
  },
  { type: 'eval.run.completed', description: 'an eval run finished (completed or failed)', delivery: ['stream', 'webhook'], streamOnly: false },
  { type: 'campaign.status.updated', description: 'a campaign was started, paused or completed', delivery: ['stream', 'webhook'], streamOnly: false },
];

/** The names, as flags that take event types offer them for completion. */
export const EVENT_TYPE_NAMES: readonly string[] = EVENT_TYPES.map((t) => t.type);
/** The names a webhook endpoint can be sent (the call stream's own are never delivered). */
export const WEBHOOK_EVENT_TYPE_NAMES: readonly string[] = EVENT_TYPES.filter((t) => !t.streamOnly).map((t) => t.type);

export function eventTypeInfo(type: string): EventTypeInfo | undefined {
  return EVENT_TYPES.find((t) => t.type === type);
}

/** The stream's heartbeat interval ("not shown" by the spec): the emulator's, and the client's when no `x-heartbeat-interval` header says otherwise. */
export const DEFAULT_HEARTBEAT_MS = 15_000;
