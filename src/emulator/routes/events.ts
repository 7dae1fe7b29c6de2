import type { EmulatorModule } from '../types.js';

// PLACEHOLDER: replaced by the events routes.
export const eventsModule: EmulatorModule = { name: 'events', register() {} };
