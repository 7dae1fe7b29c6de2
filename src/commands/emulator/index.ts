import type { CommandEntry } from '../types.js';

/** `vap emulator`. Each verb's module is loaded only when it runs. */
export const verbs: readonly CommandEntry[] = [{ name: 'start', load: async () => (await import('./start.js')).startCommand }];
