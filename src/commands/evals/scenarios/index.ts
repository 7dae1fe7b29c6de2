import type { RegisterGroup } from '../../types.js';
import { addCommand } from './add.js';
import { listCommand } from './list.js';

export const registerScenarios: RegisterGroup = (group, makeContext) => {
  group.addCommand(listCommand(makeContext));
  group.addCommand(addCommand(makeContext));
};
