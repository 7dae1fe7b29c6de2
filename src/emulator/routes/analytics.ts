import type { EmulatorModule } from '../types.js';

// PLACEHOLDER: replaced by the analytics routes (issue 9).
export const analyticsModule: EmulatorModule = { name: 'analytics', register() {} };
