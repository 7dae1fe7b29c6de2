import type { CommandEntry } from '../types.js';

/** `vap campaigns`, in the order of its help, with its subgroups. Each verb's module is loaded only when it runs. */
export const verbs: readonly CommandEntry[] = [
  { name: 'list', aliases: ['ls'], load: async () => (await import('./list.js')).listCommand },
  { name: 'create', load: async () => (await import('./create.js')).createCommand },
  { name: 'get', load: async () => (await import('./get.js')).getCommand },
  { name: 'update', load: async () => (await import('./update.js')).updateCommand },
  { name: 'delete', aliases: ['rm'], load: async () => (await import('./delete.js')).deleteCommand },
  { name: 'start', load: async () => (await import('./start.js')).startCommand },
  { name: 'pause', load: async () => (await import('./pause.js')).pauseCommand },
  { name: 'trigger', load: async () => (await import('./trigger.js')).triggerCommand },
  {
    name: 'contacts',
    description: 'The contacts a campaign calls (taken from its contact list)',
    inheritSettings: false,
    verbs: [
      { name: 'list', aliases: ['ls'], load: async () => (await import('./contacts/list.js')).listCommand },
      { name: 'add', load: async () => (await import('./contacts/add.js')).addCommand },
      { name: 'remove', aliases: ['rm'], load: async () => (await import('./contacts/remove.js')).removeCommand },
    ],
  },
  {
    name: 'calls',
    description: 'A campaign’s calls: list them, queue more',
    inheritSettings: false,
    verbs: [
      { name: 'list', aliases: ['ls'], load: async () => (await import('./calls/list.js')).listCommand },
      { name: 'queue', load: async () => (await import('./calls/queue.js')).queueCommand },
    ],
  },
  { name: 'analytics', load: async () => (await import('./analytics.js')).analyticsCommand },
  { name: 'runs', load: async () => (await import('./runs.js')).runsCommand },
];
