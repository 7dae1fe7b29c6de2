import type { RegisterGroup } from '../types.js';
import { loginCommand } from './login.js';
import { logoutCommand } from './logout.js';
import { statusCommand } from './status.js';

export const register: RegisterGroup = (group, makeContext) => {
  group.addCommand(loginCommand(makeContext));
  group.addCommand(statusCommand(makeContext));
  group.addCommand(logoutCommand(makeContext));
};
