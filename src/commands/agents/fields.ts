import type { Agent } from '../../api/agents.js';
import { listOf, type Column } from '../../ui/format.js';
import { time } from '../../ui/values.js';
import type { Tool } from '../../spec/agents.js';

/** An agent as `vap agents get` shows it: the API's agent and its tools (read beside it). */
export type AgentWithTools = Agent & { tools?: Tool[] };

/** The fields of `vap agents get` (and the detail views of the other verbs). */
export const AGENT_FIELDS: Column<AgentWithTools>[] = [
  { header: 'id', value: (a) => a.id },
  { header: 'name', value: (a) => a.name },
  { header: 'engine', value: (a) => a.engine },
  { header: 'modality', value: (a) => a.modality },
  { header: 'version', value: (a) => a.currentVersion },
  { header: 'voice', value: (a) => (a.voice ? `${a.voice.name} (${a.voice.language})` : '') },
  { header: 'tools', value: (a) => listOf((a.tools ?? []).map((t) => t.name)) },
  { header: 'description', value: (a) => a.description },
  { header: 'tags', value: (a) => a.tags },
  { header: 'variables', value: (a) => (a.variables ?? []).map((v) => (v.description ? `${v.name}: ${v.description}` : v.name)).join('\n') },
  { header: 'created', value: (a) => time(a.createdAt) },
  { header: 'updated', value: (a) => time(a.updatedAt) },
  { header: 'instructions', value: (a) => a.instructions },
];
