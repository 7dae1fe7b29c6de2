import type { CommandEntry } from '../types.js';

/** `vap analytics`. Each verb's module is loaded only when it runs. */
export const verbs: readonly CommandEntry[] = [{ name: 'overview', load: async () => (await import('./overview.js')).overviewCommand }];
