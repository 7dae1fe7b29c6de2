import type { CommandEntry } from '../types.js';

/** `vap events`, in the order of its help. Each verb's module is loaded only when it runs. */
export const verbs: readonly CommandEntry[] = [
  { name: 'tail', load: async () => (await import('./tail.js')).tailCommand },
  { name: 'types', load: async () => (await import('./types.js')).typesCommand },
];
