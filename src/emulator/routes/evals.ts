import type { EmulatorModule } from '../types.js';

// PLACEHOLDER: replaced by the evals routes.
export const evalsModule: EmulatorModule = { name: 'evals', register() {} };
