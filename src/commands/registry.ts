/**
 * The command groups. Only the group named on the command line is loaded; the
 * others stay as a name and a line of help, so `vap --version` and `vap <group>
 * --help` never load the HTTP client, prompts, CSV parser, spinner or emulator.
 */
export interface GroupEntry {
  name: string;
  description: string;
  /** Other names the group answers to (`vap plan` is `vap diff`). */
  aliases?: string[];
  load: () => Promise<{ register: import('./types.js').RegisterGroup }>;
}

export const GROUPS: GroupEntry[] = [
  { name: 'auth', description: 'Log in with an API key, check it, log out', load: () => import('./auth/index.js') },
  { name: 'config', description: 'Read and change settings of the active profile', load: () => import('./config/index.js') },
  { name: 'agents', description: 'Create, change, version and roll back voice agents', load: () => import('./agents/index.js') },
  { name: 'voices', description: 'List voices and play their previews', load: () => import('./voices/index.js') },
  { name: 'evals', description: 'Eval suites, scenarios, runs that gate CI, and importing real calls as scenarios', load: () => import('./evals/index.js') },
  { name: 'events', description: 'Follow the organization\'s events live, and list the event types', load: () => import('./events/index.js') },
  { name: 'webhooks', description: 'Webhook endpoints, their deliveries, a signed local forwarder and signature checks', load: () => import('./webhooks/index.js') },
  { name: 'calls', description: 'Calls: list, read, listen to, cancel, and follow one live', load: () => import('./calls/index.js') },
  { name: 'campaigns', description: 'Outbound, inbound and API campaigns: contacts, queued calls, runs and analytics', load: () => import('./campaigns/index.js') },
  { name: 'analytics', description: 'The workspace at a glance', load: () => import('./analytics/index.js') },
  { name: 'contact-lists', description: 'Contact lists and their schemas', load: () => import('./contact-lists/index.js') },
  { name: 'contacts', description: 'List contacts and bulk-import them from CSV or JSON', load: () => import('./contacts/index.js') },
  { name: 'import-jobs', description: 'Follow, inspect and cancel contact import jobs', load: () => import('./import-jobs/index.js') },
  { name: 'pull', description: 'Write agents, eval suites and webhook endpoints as files (agents as code)', load: () => import('./ascode/pull.js') },
  { name: 'diff', aliases: ['plan'], description: 'Compare the files, the last sync and the platform: what a push would change, and drift', load: () => import('./ascode/diff.js') },
  { name: 'push', description: 'Apply the files to a profile; with --eval, gate on the eval suites and roll back on failure', load: () => import('./ascode/push.js') },
  { name: 'mv', description: 'Rename an agent, suite or webhook in the files and the state', load: () => import('./ascode/mv.js') },
  { name: 'emulator', description: 'Run a local emulator of the platform API', load: () => import('./emulator/index.js') },
  { name: 'api', description: 'Send a raw request (auth header and envelope handled)', load: () => import('./api/index.js') },
  { name: 'completion', description: 'Print a shell completion script (bash, zsh, fish)', load: () => import('./completion/index.js') },
];
