/** Wire types of the agents group (document 1, part 2): what the service answers and takes. */

export type Engine = 'realtime' | 'pipeline' | 'speech-to-speech';
export const ENGINES: readonly Engine[] = ['realtime', 'pipeline', 'speech-to-speech'];

export interface Variable {
  name: string;
  description: string;
}

export interface Voice {
  id: string;
  name: string;
  description: string;
  language: string;
  previewUrl: string;
}

export interface Tool {
  id: string;
  name: string;
  /** "Other tool fields: not shown"; the emulator's tools carry a description. */
  description?: string;
}
