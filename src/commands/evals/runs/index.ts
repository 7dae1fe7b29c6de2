import type { RegisterGroup } from '../../types.js';

// PLACEHOLDER: replaced by the subgroup's registration.
export const registerRuns: RegisterGroup = () => {};
