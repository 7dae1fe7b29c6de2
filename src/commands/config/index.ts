import type { RegisterGroup } from '../types.js';
import { getCommand } from './get.js';
import { listCommand } from './list.js';
import { setCommand } from './set.js';

export const register: RegisterGroup = (group, makeContext) => {
  group.addCommand(listCommand(makeContext));
  group.addCommand(getCommand(makeContext));
  group.addCommand(setCommand(makeContext));
};
