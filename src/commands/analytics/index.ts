import type { RegisterGroup } from '../types.js';

// PLACEHOLDER: replaced by the group's verbs (issue 9).
export const register: RegisterGroup = () => {};
