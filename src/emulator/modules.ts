import type { EmulatorModule } from './types.js';
import { agentsModule } from './routes/agents.js';
import { analyticsModule } from './routes/analytics.js';
import { callsModule } from './routes/calls.js';
import { campaignsModule } from './routes/campaigns.js';
import { contactsModule } from './routes/contacts.js';
import { evalImportsModule } from './routes/eval-imports.js';
import { evalsModule } from './routes/evals.js';
import { eventsModule } from './routes/events.js';
import { webhooksModule } from './routes/webhooks.js';

/** Every route group the emulator serves. */
export const MODULES: EmulatorModule[] = [
  agentsModule,
  contactsModule,
  evalsModule,
  evalImportsModule,
  eventsModule,
  webhooksModule,
  campaignsModule,
  callsModule,
  analyticsModule,
];
