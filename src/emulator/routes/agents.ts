import type { EmulatorModule } from '../types.js';

// Placeholder: the agents, voices and tools routes of document 1 go here.
export const agentsModule: EmulatorModule = { name: 'agents', register() {} };
