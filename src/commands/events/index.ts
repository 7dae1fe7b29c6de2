import type { RegisterGroup } from '../types.js';
import { tailCommand } from './tail.js';
import { typesCommand } from './types.js';

export const register: RegisterGroup = (group, makeContext) => {
  group.addCommand(tailCommand(makeContext));
  group.addCommand(typesCommand(makeContext));
};
