import type { CommandEntry } from '../types.js';

/** `vap voices`, in the order of its help. Each verb's module is loaded only when it runs. */
export const verbs: readonly CommandEntry[] = [
  { name: 'list', aliases: ['ls'], load: async () => (await import('./list.js')).listCommand },
  { name: 'preview', load: async () => (await import('./preview.js')).previewCommand },
];
