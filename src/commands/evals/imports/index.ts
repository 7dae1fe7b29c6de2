import type { RegisterGroup } from '../../types.js';
import { callsCommand } from './calls.js';
import { candidatesCommand } from './candidates.js';
import { createScenariosCommand } from './create-scenarios.js';
import { createCommand } from './create.js';
import { listCommand } from './list.js';
import { sourcesCommand } from './sources.js';
import { triageCommand } from './triage.js';

export const registerImports: RegisterGroup = (group, makeContext) => {
  group.addCommand(sourcesCommand(makeContext));
  group.addCommand(candidatesCommand(makeContext));
  group.addCommand(listCommand(makeContext));
  group.addCommand(createCommand(makeContext));
  group.addCommand(triageCommand(makeContext));
  group.addCommand(callsCommand(makeContext));
  group.addCommand(createScenariosCommand(makeContext));
};
