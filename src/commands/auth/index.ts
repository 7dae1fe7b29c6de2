import type { CommandEntry } from '../types.js';

/** `vap auth`, in the order of its help. Each verb's module is loaded only when it runs. */
export const verbs: readonly CommandEntry[] = [
  { name: 'login', load: async () => (await import('./login.js')).loginCommand },
  { name: 'status', load: async () => (await import('./status.js')).statusCommand },
  { name: 'logout', load: async () => (await import('./logout.js')).logoutCommand },
];
