import type { CommandEntry } from '../types.js';

/** `vap github`. Each verb's module is loaded only when it runs. */
export const verbs: readonly CommandEntry[] = [{ name: 'comment', load: async () => (await import('./comment.js')).commentCommand }];
