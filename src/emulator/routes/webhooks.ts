import type { EmulatorModule } from '../types.js';

// PLACEHOLDER: replaced by the webhooks routes.
export const webhooksModule: EmulatorModule = { name: 'webhooks', register() {} };
