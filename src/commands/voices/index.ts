import type { RegisterGroup } from '../types.js';

export const register: RegisterGroup = () => {};
