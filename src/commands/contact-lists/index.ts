import type { RegisterGroup } from '../types.js';
import { createCommand } from './create.js';
import { getCommand } from './get.js';
import { listCommand } from './list.js';
import { updateSchemaCommand } from './update-schema.js';

export const register: RegisterGroup = (group, makeContext) => {
  group.addCommand(listCommand(makeContext));
  group.addCommand(createCommand(makeContext));
  group.addCommand(getCommand(makeContext));
  group.addCommand(updateSchemaCommand(makeContext));
};
