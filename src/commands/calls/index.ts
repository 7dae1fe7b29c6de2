import type { RegisterGroup } from '../types.js';
import { tailCommand } from './tail.js';

/** The calls group: `tail` for now; list, get, transcript, recording, audio and cancel join it here. */
export const register: RegisterGroup = (group, makeContext) => {
  group.addCommand(tailCommand(makeContext));
};
