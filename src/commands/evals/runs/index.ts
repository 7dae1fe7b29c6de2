import type { RegisterGroup } from '../../types.js';
import { deleteCommand } from './delete.js';
import { diffCommand } from './diff.js';
import { getCommand } from './get.js';
import { listCommand } from './list.js';
import { resultsCommand } from './results.js';

export const registerRuns: RegisterGroup = (group, makeContext) => {
  group.addCommand(listCommand(makeContext));
  group.addCommand(getCommand(makeContext));
  group.addCommand(resultsCommand(makeContext));
  group.addCommand(deleteCommand(makeContext));
  group.addCommand(diffCommand(makeContext));
};
