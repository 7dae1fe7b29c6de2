import { Command, Option } from 'commander';
import { addScenario } from '../../../api/evals.js';
import type { Context } from '../../../context.js';
import { UsageError } from '../../../errors.js';
import { completes } from '../../../completion/takes.js';
import { action } from '../../action.js';
import type { ContextFactory } from '../../types.js';
import { agentOption, evalOption, resolveAgent, resolveEvalId } from '../options.js';
import { SCENARIO_CATEGORIES } from '../../../spec/evals.js';

interface AddOptions {
  agent?: string;
  eval?: string;
  name?: string;
  persona?: string;
  goal?: string;
  category?: string;
}

function text(flag: string, value: string | undefined, max: number, example: string): string {
  if (value === undefined) throw new UsageError(`missing ${flag}`, `pass ${flag} ${example}`);
  const v = value.trim();
  if (!v) throw new UsageError(`${flag} must not be empty`, `pass ${flag} ${example}`);
  if (v.length > max) throw new UsageError(`${flag} is ${v.length} characters long`, `use at most ${max}`);
  return v;
}

export function addCommand(makeContext: ContextFactory): Command {
  return new Command('add')
    .description('Add a hand-written scenario to a suite: who the tester plays, and what they pursue')
    .argument('[evalId]', 'the eval suite (or pass --eval)')
    .addOption(agentOption())
    .addOption(evalOption())
    .option('--name <name>', 'a short name (up to 200 characters)')
    .option('--persona <text>', 'who the tester plays (up to 2000 characters)')
    .option('--goal <text>', 'what the tester pursues on the call (up to 2000 characters)')
    .addOption(completes(new Option('--category <category>', SCENARIO_CATEGORIES.join(' | ')), SCENARIO_CATEGORIES))
    .addHelpText(
      'after',
      `
Examples:
  $ vap evals scenarios add ev_123 --agent ag_456 --name "Reschedule" --category happy_path \\
      --persona "A patient who booked for Monday" --goal "Move the appointment to Friday afternoon"
  $ vap evals scenarios add ev_123 --agent ag_456 --name "Angry refund" --category escalation \\
      --persona "A customer billed twice, in a hurry" --goal "Get a refund or a supervisor" -q`,
    )
    .action(action<AddOptions>(makeContext, (args, opts, ctx) => run(args[0], opts, ctx)));
}

export async function run(arg: string | undefined, opts: AddOptions, ctx: Context): Promise<void> {
  const agentId = resolveAgent(opts, ctx);
  const evalId = resolveEvalId(arg, opts);
  const missing = (['name', 'persona', 'goal', 'category'] as const).filter((k) => opts[k] === undefined).map((k) => `--${k}`);
  if (missing.length > 1) throw new UsageError(`missing ${missing.join(', ')}`, 'a scenario needs --name, --persona, --goal and --category');
  const name = text('--name', opts.name, 200, '"Reschedule"');
  const persona = text('--persona', opts.persona, 2000, '"A patient who booked for Monday"');
  const goal = text('--goal', opts.goal, 2000, '"Move the appointment to Friday"');
  if (opts.category === undefined) throw new UsageError('missing --category', `pass --category ${SCENARIO_CATEGORIES.join('|')}`);
  const category = opts.category.trim();
  if (!(SCENARIO_CATEGORIES as readonly string[]).includes(category)) {
    throw new UsageError(`--category "${opts.category}" is not a scenario category`, `use one of ${SCENARIO_CATEGORIES.join(', ')}`);
  }
  const api = await ctx.api();
  const created = await addScenario(api, agentId, evalId, { name, persona, goal, category });
  await ctx.out.item(created, {
    fields: [
      { header: 'id', value: (s) => s.id },
      { header: 'name', value: (s) => s.name },
      { header: 'category', value: (s) => s.category },
      { header: 'enabled', value: (s) => s.isEnabled },
    ],
  });
  await ctx.success(`Added scenario ${created.name} (${created.id}) to suite ${evalId}`);
}
