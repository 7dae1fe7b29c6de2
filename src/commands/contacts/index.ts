import type { RegisterGroup } from '../types.js';
import { importCommand } from './import.js';
import { listCommand } from './list.js';

export const register: RegisterGroup = (group, makeContext) => {
  group.addCommand(listCommand(makeContext));
  group.addCommand(importCommand(makeContext));
};
