import type { CommandEntry } from '../types.js';

/** `vap webhooks`, in the order of its help. Each verb's module is loaded only when it runs. */
export const verbs: readonly CommandEntry[] = [
  { name: 'list', aliases: ['ls'], load: async () => (await import('./list.js')).listCommand },
  { name: 'create', load: async () => (await import('./create.js')).createCommand },
  { name: 'get', load: async () => (await import('./get.js')).getCommand },
  { name: 'update', load: async () => (await import('./update.js')).updateCommand },
  { name: 'enable', load: async () => (await import('./enable.js')).enableCommand },
  { name: 'disable', load: async () => (await import('./disable.js')).disableCommand },
  { name: 'rotate-secret', load: async () => (await import('./rotate-secret.js')).rotateSecretCommand },
  { name: 'deliveries', load: async () => (await import('./deliveries.js')).deliveriesCommand },
  { name: 'delete', aliases: ['rm'], load: async () => (await import('./delete.js')).deleteCommand },
  { name: 'verify', load: async () => (await import('./verify.js')).verifyCommand },
  { name: 'listen', load: async () => (await import('./listen.js')).listenCommand },
];
