import type { EmulatorModule } from '../types.js';

// PLACEHOLDER: replaced by the eval-import routes (sources, candidates, imports, triage, scenarios from calls).
export const evalImportsModule: EmulatorModule = { name: 'eval-imports', register() {} };
