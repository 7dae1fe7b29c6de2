import { Command, Option } from 'commander';
import { completes } from '../../completion/takes.js';
import type { Context, GlobalOptions } from '../../context.js';
import type { WizardFlags, WizardResult } from '../../wizard/index.js';
import { action } from '../action.js';
import type { ContextFactory } from '../types.js';
import { agentOption } from './options.js';

export function importCommand(makeContext: ContextFactory): Command {
  return new Command('import')
    .description('The import wizard: pick real calls, import them into a suite, triage them and turn them into scenarios')
    .addOption(agentOption())
    .addOption(new Option('--eval <evalId>', 'the eval suite to import into (asked, or created, on a terminal)'))
    .addOption(new Option('--import <importId>', 'resume this import (triage what is left, then scenarios)'))
    .option('--resume', "resume the suite's newest import that was not triaged to the end")
    .addOption(
      completes(new Option('--source-type <type>', 'where the calls come from: outbound, inbound, call-center (or the API names campaign, call_center)'), [
        'outbound',
        'inbound',
        'call-center',
        'campaign',
        'call_center',
      ]),
    )
    .addOption(new Option('--source <sourceId>', 'the campaign or call center (see `vap evals imports sources`)'))
    .option('--from <date>', 'candidate calls started on or after this date (YYYY-MM-DD or ISO timestamp)')
    .option('--to <date>', 'candidate calls started on or before this date (a date includes the whole day)')
    .option('--min-duration <seconds>', 'candidate calls lasting at least this long (90, 1m30s)')
    .addOption(completes(new Option('--direction <dir>', 'inbound, outbound or any'), ['inbound', 'outbound', 'any']))
    .option('--search <text>', 'text in the transcript, caller intent or sentiment')
    .addOption(new Option('--calls <ids>', 'import these call ids (comma-separated)').conflicts('allCandidates'))
    .option('--all-candidates', 'import every candidate call matching the filters (at most 500)')
    .option('--page-size <n>', 'calls per page when ticking them on a terminal, 1..100 (default 10)')
    .option('--batch-size <n>', 'calls triaged per request, 1..50 (default 10)')
    .option('--create <which>', 'which triaged calls become scenarios: all, none, or call ids (comma-separated)')
    .addHelpText(
      'after',
      `
On a terminal every step the flags leave open is asked: agent, suite (or a new one),
source (with its call count), filters, calls (paged, ticked with space), then the
triage with a progress bar, a review of each call, and which become scenarios.
Without a terminal (piped, --no-input, CI) nothing is asked: a missing flag is an
error naming it, before anything is sent. Ctrl-C during triage keeps the triaged
batches; run the wizard again (or pass --import <importId>) to resume.
--agent defaults to $VAP_AGENT.

Examples:
  $ vap evals import
  $ vap evals import --agent ag_123 --eval ev_456
  $ vap evals import --agent ag_123 --eval ev_456 --source-type inbound --source 6f1c… \\
      --from 2026-11-01 --min-duration 60 --search refund --all-candidates --create all
  $ vap evals import --agent ag_123 --eval ev_456 --source-type call-center --source cc_1 \\
      --calls 0b7e…,9c2d… --batch-size 5 --create none --json
  $ vap evals import --agent ag_123 --eval ev_456 --resume --create all`,
    )
    .action(action<WizardFlags>(makeContext, (_args, opts, ctx) => run(opts, ctx)));
}

export async function run(opts: WizardFlags & GlobalOptions, ctx: Context): Promise<void> {
  const { runImportWizard } = await import('../../wizard/index.js');
  const r = await runImportWizard(opts, ctx);
  await ctx.out.item<WizardResult>(r, {
    id: (x) => x.scenarioIds.join('\n'),
    fields: [
      { header: 'import', value: (x) => x.importId },
      { header: 'suite', value: (x) => x.evalId },
      { header: 'agent', value: (x) => x.agentId },
      { header: 'calls imported', value: (x) => x.importedCalls },
      { header: 'calls triaged', value: (x) => x.triagedCalls },
      { header: 'scenarios created', value: (x) => x.created },
      { header: 'skipped', value: (x) => x.skipped },
      { header: 'scenario ids', value: (x) => x.scenarioIds.join(', ') },
    ],
  });
}
