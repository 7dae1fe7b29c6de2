import type { EmulatorModule } from '../types.js';

// PLACEHOLDER: replaced by the calls routes (issue 9).
export const callsModule: EmulatorModule = { name: 'calls', register() {} };
