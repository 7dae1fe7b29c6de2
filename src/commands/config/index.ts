import type { CommandEntry } from '../types.js';

/** `vap config`, in the order of its help. Each verb's module is loaded only when it runs. */
export const verbs: readonly CommandEntry[] = [
  { name: 'list', aliases: ['ls'], load: async () => (await import('./list.js')).listCommand },
  { name: 'get', load: async () => (await import('./get.js')).getCommand },
  { name: 'set', load: async () => (await import('./set.js')).setCommand },
];
