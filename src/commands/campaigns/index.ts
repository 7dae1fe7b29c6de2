import type { RegisterGroup } from '../types.js';
import { analyticsCommand } from './analytics.js';
import { callsCommand } from './calls/index.js';
import { contactsCommand } from './contacts/index.js';
import { createCommand } from './create.js';
import { deleteCommand } from './delete.js';
import { getCommand } from './get.js';
import { listCommand } from './list.js';
import { pauseCommand } from './pause.js';
import { runsCommand } from './runs.js';
import { startCommand } from './start.js';
import { triggerCommand } from './trigger.js';
import { updateCommand } from './update.js';

export const register: RegisterGroup = (group, makeContext) => {
  group.addCommand(listCommand(makeContext));
  group.addCommand(createCommand(makeContext));
  group.addCommand(getCommand(makeContext));
  group.addCommand(updateCommand(makeContext));
  group.addCommand(deleteCommand(makeContext));
  group.addCommand(startCommand(makeContext));
  group.addCommand(pauseCommand(makeContext));
  group.addCommand(triggerCommand(makeContext));
  group.addCommand(contactsCommand(makeContext));
  group.addCommand(callsCommand(makeContext));
  group.addCommand(analyticsCommand(makeContext));
  group.addCommand(runsCommand(makeContext));
};
