import type { Context } from '../context.js';
import { createPrompter, type Prompter } from '../ui/prompter.js';

/**
 * The wizard asks many questions in a row. src/ui/prompter.ts shares one output view among
 * its prompts and inquirer ends that view after the first one, so a second prompt draws
 * nothing. Until that is fixed there (a fresh view per prompt), each question here goes
 * through a prompter of its own; the no-terminal guard is ctx.prompter's (canPrompt).
 */
export function wizardPrompter(ctx: Context): Prompter {
  const base = ctx.prompter;
  if (!base.canPrompt) return base;
  const fresh = () => createPrompter({ canPrompt: true, input: ctx.io.stdin, output: ctx.io.stderr });
  return {
    canPrompt: true,
    confirm: (m, o) => fresh().confirm(m, o),
    input: (m, o) => fresh().input(m, o),
    password: (m, o) => fresh().password(m, o),
    select: (m, c, o) => fresh().select(m, c, o),
    checkbox: (m, c, o) => fresh().checkbox(m, c, o),
  };
}
