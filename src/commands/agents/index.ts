import type { RegisterGroup } from '../types.js';
import { createCommand } from './create.js';
import { deleteCommand } from './delete.js';
import { getCommand } from './get.js';
import { listCommand } from './list.js';
import { rollbackCommand } from './rollback.js';
import { toolsCommand } from './tools.js';
import { updateCommand } from './update.js';
import { versionsCommand } from './versions.js';
import { voiceCommand } from './voice.js';

export const register: RegisterGroup = (group, makeContext) => {
  group.addCommand(listCommand(makeContext));
  group.addCommand(createCommand(makeContext));
  group.addCommand(getCommand(makeContext));
  group.addCommand(updateCommand(makeContext));
  group.addCommand(deleteCommand(makeContext));
  group.addCommand(versionsCommand(makeContext));
  group.addCommand(rollbackCommand(makeContext));
  group.addCommand(toolsCommand(makeContext));
  group.addCommand(voiceCommand(makeContext));
};
