import type { RegisterGroup } from '../types.js';
import { startCommand } from './start.js';

export const register: RegisterGroup = (group, makeContext) => {
  group.addCommand(startCommand(makeContext));
};
