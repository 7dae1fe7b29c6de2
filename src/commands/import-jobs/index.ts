import type { CommandEntry } from '../types.js';

/** `vap import-jobs`, in the order of its help. Each verb's module is loaded only when it runs. */
export const verbs: readonly CommandEntry[] = [
  { name: 'list', aliases: ['ls'], load: async () => (await import('./list.js')).listCommand },
  { name: 'get', aliases: ['show'], load: async () => (await import('./get.js')).getCommand },
  { name: 'cancel', load: async () => (await import('./cancel.js')).cancelCommand },
  { name: 'watch', load: async () => (await import('./watch.js')).watchCommand },
];
