import type { CommandEntry } from '../types.js';

/** `vap tools`: the tools vap can see. The verb's module is loaded only when it runs. */
export const verbs: readonly CommandEntry[] = [{ name: 'list', aliases: ['ls'], load: async () => (await import('./list.js')).listCommand }];
