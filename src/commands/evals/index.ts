import type { CommandEntry } from '../types.js';

/** `vap evals`, in the order of its help, with its subgroups. Each verb's module is loaded only when it runs. */
export const verbs: readonly CommandEntry[] = [
  { name: 'list', aliases: ['ls'], load: async () => (await import('./list.js')).listCommand },
  { name: 'create', load: async () => (await import('./create.js')).createCommand },
  { name: 'get', load: async () => (await import('./get.js')).getCommand },
  { name: 'update', load: async () => (await import('./update.js')).updateCommand },
  { name: 'delete', aliases: ['rm'], load: async () => (await import('./delete.js')).deleteCommand },
  {
    name: 'scenarios',
    description: 'List and add the scenarios of a suite',
    inheritSettings: true,
    verbs: [
      { name: 'list', aliases: ['ls'], load: async () => (await import('./scenarios/list.js')).listCommand },
      { name: 'add', load: async () => (await import('./scenarios/add.js')).addCommand },
    ],
  },
  { name: 'run', load: async () => (await import('./run.js')).runCommand },
  {
    name: 'runs',
    description: 'List, inspect, compare and delete the runs of a suite',
    inheritSettings: true,
    verbs: [
      { name: 'list', aliases: ['ls'], load: async () => (await import('./runs/list.js')).listCommand },
      { name: 'get', load: async () => (await import('./runs/get.js')).getCommand },
      { name: 'results', load: async () => (await import('./runs/results.js')).resultsCommand },
      { name: 'delete', aliases: ['rm'], load: async () => (await import('./runs/delete.js')).deleteCommand },
      { name: 'diff', load: async () => (await import('./runs/diff.js')).diffCommand },
    ],
  },
  { name: 'import', load: async () => (await import('./import.js')).importCommand },
  {
    name: 'imports',
    description: 'Each step of the import wizard on its own: sources, candidates, imports, triage, scenarios',
    inheritSettings: true,
    verbs: [
      { name: 'sources', load: async () => (await import('./imports/sources.js')).sourcesCommand },
      { name: 'candidates', load: async () => (await import('./imports/candidates.js')).candidatesCommand },
      { name: 'list', aliases: ['ls'], load: async () => (await import('./imports/list.js')).listCommand },
      { name: 'create', load: async () => (await import('./imports/create.js')).createCommand },
      { name: 'triage', load: async () => (await import('./imports/triage.js')).triageCommand },
      { name: 'calls', load: async () => (await import('./imports/calls.js')).callsCommand },
      { name: 'create-scenarios', load: async () => (await import('./imports/create-scenarios.js')).createScenariosCommand },
    ],
  },
];
