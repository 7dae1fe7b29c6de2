import type { CommandEntry } from '../types.js';

/** `vap calls`: list, get, transcript, recording, audio, cancel, and tail (CLI-EVENTS'). Each verb's module is loaded only when it runs. */
export const verbs: readonly CommandEntry[] = [
  { name: 'list', aliases: ['ls'], load: async () => (await import('./list.js')).listCommand },
  { name: 'get', load: async () => (await import('./get.js')).getCommand },
  { name: 'transcript', load: async () => (await import('./transcript.js')).transcriptCommand },
  { name: 'recording', load: async () => (await import('./recording.js')).recordingCommand },
  { name: 'audio', load: async () => (await import('./audio.js')).audioCommand },
  { name: 'cancel', load: async () => (await import('./cancel.js')).cancelCommand },
  { name: 'tail', load: async () => (await import('./tail.js')).tailCommand },
];
