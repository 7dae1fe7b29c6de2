import type { RegisterGroup } from '../types.js';
import { cancelCommand } from './cancel.js';
import { getCommand } from './get.js';
import { listCommand } from './list.js';
import { watchCommand } from './watch.js';

export const register: RegisterGroup = (group, makeContext) => {
  group.addCommand(listCommand(makeContext));
  group.addCommand(getCommand(makeContext));
  group.addCommand(cancelCommand(makeContext));
  group.addCommand(watchCommand(makeContext));
};
