import type { EmulatorModule } from '../types.js';

// PLACEHOLDER: replaced by the campaigns routes (issue 9).
export const campaignsModule: EmulatorModule = { name: 'campaigns', register() {} };
