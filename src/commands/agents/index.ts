import type { CommandEntry } from '../types.js';

/** `vap agents`, in the order of its help. Each verb's module is loaded only when it runs. */
export const verbs: readonly CommandEntry[] = [
  { name: 'list', aliases: ['ls'], load: async () => (await import('./list.js')).listCommand },
  { name: 'create', load: async () => (await import('./create.js')).createCommand },
  { name: 'get', load: async () => (await import('./get.js')).getCommand },
  { name: 'update', load: async () => (await import('./update.js')).updateCommand },
  { name: 'delete', aliases: ['rm'], load: async () => (await import('./delete.js')).deleteCommand },
  { name: 'versions', load: async () => (await import('./versions.js')).versionsCommand },
  { name: 'rollback', load: async () => (await import('./rollback.js')).rollbackCommand },
  { name: 'bisect', load: async () => (await import('./bisect.js')).bisectCommand },
  { name: 'tools', load: async () => (await import('./tools.js')).toolsCommand },
  { name: 'voice', load: async () => (await import('./voice.js')).voiceCommand },
];
