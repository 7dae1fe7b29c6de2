import type { RegisterGroup } from '../types.js';
import { createCommand } from './create.js';
import { deleteCommand } from './delete.js';
import { getCommand } from './get.js';
import { importCommand } from './import.js';
import { registerImports } from './imports/index.js';
import { listCommand } from './list.js';
import { runCommand } from './run.js';
import { registerRuns } from './runs/index.js';
import { registerScenarios } from './scenarios/index.js';
import { updateCommand } from './update.js';

export const register: RegisterGroup = (group, makeContext) => {
  group.addCommand(listCommand(makeContext));
  group.addCommand(createCommand(makeContext));
  group.addCommand(getCommand(makeContext));
  group.addCommand(updateCommand(makeContext));
  group.addCommand(deleteCommand(makeContext));
  registerScenarios(group.command('scenarios').description('List and add the scenarios of a suite'), makeContext);
  group.addCommand(runCommand(makeContext));
  registerRuns(group.command('runs').description('List, inspect, compare and delete the runs of a suite'), makeContext);
  group.addCommand(importCommand(makeContext));
  registerImports(group.command('imports').description('Each step of the import wizard on its own: sources, candidates, imports, triage, scenarios'), makeContext);
};
