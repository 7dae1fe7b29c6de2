import type { RegisterGroup } from '../types.js';
import { overviewCommand } from './overview.js';

export const register: RegisterGroup = (group, makeContext) => {
  group.addCommand(overviewCommand(makeContext));
};
