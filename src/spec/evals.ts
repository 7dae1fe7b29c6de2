/** Wire types of eval suites, scenarios and runs (document 1), with the values the emulator accepts where the spec leaves them open. */

export type SuiteStatus = 'draft' | 'ready';

/** Run statuses: the spec shows `pending` and `completed`; `running` and `failed` are the emulator's (src/emulator/README.md). */
export type RunStatus = 'pending' | 'running' | 'completed' | 'failed';

/** The scenario categories the emulator accepts (the spec names only edge_case; src/emulator/README.md). */
export const SCENARIO_CATEGORIES = ['happy_path', 'edge_case', 'adversarial', 'escalation', 'compliance'] as const;
export type ScenarioCategory = (typeof SCENARIO_CATEGORIES)[number];

/** The noise types and levels the emulator accepts (the spec says `{ type: string, level: string }`). */
export const NOISE_TYPES = ['office', 'cafe', 'street', 'call_center', 'static', 'wind'] as const;
export const NOISE_LEVELS = ['low', 'medium', 'high'] as const;
export type NoiseType = (typeof NOISE_TYPES)[number];
export type NoiseLevel = (typeof NOISE_LEVELS)[number];

/** A suite's background sound, as the spec types it. */
export interface Noise {
  type: string;
  level: string;
}

/** One of a suite's weighted scoring criteria. */
export interface Criterion {
  key: string;
  name: string;
  weight: number;
}

/** The body of a new scenario. */
export interface ScenarioInput {
  name: string;
  persona: string;
  goal: string;
  category: string;
}

/** One line of a result's transcript: field names "not shown" by the spec, the emulator's (those of document 2's transcripts). */
export interface TranscriptLine {
  role: 'agent' | 'user';
  text: string;
  ordinal: number;
}
