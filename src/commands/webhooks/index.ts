import type { RegisterGroup } from '../types.js';
import { createCommand } from './create.js';
import { deleteCommand } from './delete.js';
import { deliveriesCommand } from './deliveries.js';
import { disableCommand } from './disable.js';
import { enableCommand } from './enable.js';
import { getCommand } from './get.js';
import { listCommand } from './list.js';
import { listenCommand } from './listen.js';
import { rotateSecretCommand } from './rotate-secret.js';
import { updateCommand } from './update.js';
import { verifyCommand } from './verify.js';

export const register: RegisterGroup = (group, makeContext) => {
  group.addCommand(listCommand(makeContext));
  group.addCommand(createCommand(makeContext));
  group.addCommand(getCommand(makeContext));
  group.addCommand(updateCommand(makeContext));
  group.addCommand(enableCommand(makeContext));
  group.addCommand(disableCommand(makeContext));
  group.addCommand(rotateSecretCommand(makeContext));
  group.addCommand(deliveriesCommand(makeContext));
  group.addCommand(deleteCommand(makeContext));
  group.addCommand(verifyCommand(makeContext));
  group.addCommand(listenCommand(makeContext));
};
