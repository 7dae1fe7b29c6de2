import type { ToolSpec } from '../tool.js';
import { agentTools } from './agents.js';
import { ascodeTools } from './ascode.js';
import { callTools } from './calls.js';
import { campaignTools } from './campaigns.js';
import { contactTools } from './contacts.js';
import { evalTools } from './evals.js';
import { eventTools } from './events.js';
import { voiceTools } from './voices.js';
import { webhookTools } from './webhooks.js';

/** Every tool, by group, in the order tools/list gives them. */
export const TOOLS: readonly ToolSpec[] = [
  ...agentTools,
  ...voiceTools,
  ...evalTools,
  ...callTools,
  ...campaignTools,
  ...contactTools,
  ...webhookTools,
  ...eventTools,
  ...ascodeTools,
];
