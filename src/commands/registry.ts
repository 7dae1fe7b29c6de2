/**
 * The command groups and their verbs, small and part of the entry module. Only what the command
 * line names is loaded (`vap agents list`: the agents group and `list`'s module), so that
 * `--version` and `<group> --help` never load the HTTP client, prompts, CSV parser or emulator.
 */
import type { CommandEntry, RegisterGroup } from './types.js';
import { verbs as agents } from './agents/index.js';
import { verbs as analytics } from './analytics/index.js';
import { verbs as auth } from './auth/index.js';
import { verbs as calls } from './calls/index.js';
import { verbs as campaigns } from './campaigns/index.js';
import { verbs as config } from './config/index.js';
import { verbs as contactLists } from './contact-lists/index.js';
import { verbs as contacts } from './contacts/index.js';
import { verbs as emulator } from './emulator/index.js';
import { verbs as evals } from './evals/index.js';
import { verbs as events } from './events/index.js';
import { verbs as github } from './github/index.js';
import { verbs as importJobs } from './import-jobs/index.js';
import { verbs as tools } from './tools/index.js';
import { verbs as voices } from './voices/index.js';
import { verbs as webhooks } from './webhooks/index.js';

export interface GroupEntry {
  name: string;
  description: string;
  /** Other names the group answers to (`vap plan` is `vap diff`). */
  aliases?: string[];
  /** A group of verbs: its table (src/commands/<group>/index.ts). */
  verbs?: readonly CommandEntry[];
  /** A group that is itself a verb (pull, api, completion): its module adds its own arguments, options and action. */
  load?: () => Promise<{ register: RegisterGroup }>;
  /** A group that is itself a verb and has verbs of its own (`vap mcp`, `vap mcp config`): their names, as its module adds them. */
  subcommands?: readonly string[];
}

export const GROUPS: GroupEntry[] = [
  { name: 'auth', description: 'Log in with an API key, check it, log out', verbs: auth },
  { name: 'config', description: 'Read and change settings of the active profile', verbs: config },
  { name: 'agents', description: 'Create, change, version and roll back voice agents', verbs: agents },
  { name: 'voices', description: 'List voices and play their previews', verbs: voices },
  { name: 'tools', description: 'List the tools vap can see (those of the agents the key can read), with their ids', verbs: tools },
  { name: 'evals', description: 'Eval suites, scenarios, runs that gate CI, and importing real calls as scenarios', verbs: evals },
  { name: 'events', description: "Follow the organization's events live, and list the event types", verbs: events },
  { name: 'webhooks', description: 'Webhook endpoints, their deliveries, a signed local forwarder and signature checks', verbs: webhooks },
  { name: 'calls', description: 'Calls: list, read, listen to, cancel, and follow one live', verbs: calls },
  { name: 'campaigns', description: 'Outbound, inbound and API campaigns: contacts, queued calls, runs and analytics', verbs: campaigns },
  { name: 'analytics', description: 'The workspace at a glance', verbs: analytics },
  { name: 'contact-lists', description: 'Contact lists and their schemas', verbs: contactLists },
  { name: 'contacts', description: 'List contacts and bulk-import them from CSV or JSON', verbs: contacts },
  { name: 'import-jobs', description: 'Follow, inspect and cancel contact import jobs', verbs: importJobs },
  { name: 'pull', description: 'Write agents, eval suites and webhook endpoints as files (agents as code)', load: () => import('./ascode/pull.js') },
  {
    name: 'diff',
    aliases: ['plan'],
    description: 'Compare the files, the last sync and the platform: what a push would change, and drift',
    load: () => import('./ascode/diff.js'),
  },
  {
    name: 'push',
    description: 'Apply the files to a profile; with --eval, gate on the eval suites and roll back on failure',
    load: () => import('./ascode/push.js'),
  },
  { name: 'mv', description: 'Rename an agent, suite or webhook in the files and the state', load: () => import('./ascode/mv.js') },
  {
    name: 'preview',
    description: 'Evaluate the branch on preview copies of the changed agents; live agents untouched',
    load: () => import('./ascode/preview.js'),
  },
  { name: 'promote', description: 'Apply to one profile exactly what passed its evals in another', load: () => import('./ascode/promote.js') },
  {
    name: 'bisect',
    description: 'Find the commit that made an agent worse, over the git history of its files, on preview copies',
    load: () => import('./ascode/bisect.js'),
  },
  { name: 'emulator', description: 'Run a local emulator of the platform API', verbs: emulator },
  {
    name: 'mcp',
    description: "Serve AI assistants (Model Context Protocol): read-only unless --allow-writes; and print a client's configuration",
    load: () => import('./mcp/index.js'),
    subcommands: ['config'],
  },
  { name: 'api', description: 'Send a raw request (auth header and envelope handled)', load: () => import('./api/index.js') },
  { name: 'github', description: "Keep a pull request's comment up to date from a Markdown report (GitHub Actions)", verbs: github },
  { name: 'completion', description: 'Print a shell completion script (bash, zsh, fish)', load: () => import('./completion/index.js') },
];
