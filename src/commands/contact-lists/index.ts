import type { CommandEntry } from '../types.js';

/** `vap contact-lists`, in the order of its help. Each verb's module is loaded only when it runs. */
export const verbs: readonly CommandEntry[] = [
  { name: 'list', aliases: ['ls'], load: async () => (await import('./list.js')).listCommand },
  { name: 'create', load: async () => (await import('./create.js')).createCommand },
  { name: 'get', aliases: ['show'], load: async () => (await import('./get.js')).getCommand },
  { name: 'update-schema', load: async () => (await import('./update-schema.js')).updateSchemaCommand },
];
