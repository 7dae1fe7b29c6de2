import type { RegisterGroup } from '../types.js';
import { listCommand } from './list.js';
import { previewCommand } from './preview.js';

export const register: RegisterGroup = (group, makeContext) => {
  group.addCommand(listCommand(makeContext));
  group.addCommand(previewCommand(makeContext));
};
