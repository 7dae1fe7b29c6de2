import type { RegisterGroup } from '../types.js';

// PLACEHOLDER: replaced by the group's verbs.
export const register: RegisterGroup = () => {};
