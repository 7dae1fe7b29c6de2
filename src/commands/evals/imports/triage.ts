import { Command } from 'commander';
import { AuthenticationError, NotFoundError, PermissionDeniedError } from '../../../api/errors.js';
import type { Context } from '../../../context.js';
import { InterruptedError } from '../../../errors.js';
import { drawsInPlace } from '../../../ui/accessible.js';
import { triageAll, TriageInterruptedError, type TriageProgress } from '../../../evals/imports/triage.js';
import { action } from '../../action.js';
import { LiveLine } from '../../../ui/live-line.js';
import { safeText } from '../../../ui/safe-text.js';
import { formatDuration } from '../../../ui/values.js';
import type { ContextFactory } from '../../types.js';
import { agentOption, evalOption, resolveAgent } from '../options.js';
import { intIn, resolveImportIds } from './common.js';

interface Options {
  agent?: string;
  eval?: string;
  batchSize?: number;
}

export function triageCommand(makeContext: ContextFactory): Command {
  return new Command('triage')
    .description('Triage an import batch after batch until every call has a category, a summary and a suggested scenario')
    .argument('<evalIdOrImportId>', '`<evalId> <importId>`, or `<importId> --eval <evalId>`')
    .argument('[importId]')
    .addOption(agentOption())
    .addOption(evalOption())
    .option('--batch-size <n>', 'calls per batch, 1 to 50', intIn('--batch-size', 1, 50), 10)
    .addHelpText(
      'after',
      `
Each batch is committed before the next starts. Progress is a live bar on stderr on
a terminal, a line per batch otherwise; the import goes to stdout at the end.
Ctrl-C stops between batches (exit 130): the batches done stay triaged, and running
the same command again resumes where it stopped. After a failure, too.

Examples:
  $ vap evals imports triage ev_123 imp_789 --agent ag_456
  $ vap evals imports triage imp_789 --eval ev_123 --agent ag_456 --batch-size 25
  $ vap evals imports triage imp_789 --eval ev_123 --agent ag_456 -q && vap evals imports calls imp_789 --eval ev_123 --agent ag_456`,
    )
    .action(action<Options>(makeContext, (args, opts, ctx) => run(args, opts, ctx)));
}

export async function run(args: (string | undefined)[], opts: Options, ctx: Context): Promise<void> {
  const agentId = resolveAgent(opts, ctx);
  const { evalId, importId } = resolveImportIds(args, opts);
  const batchSize = opts.batchSize ?? 10;
  const api = await ctx.api();
  const resume = `vap evals imports triage ${importId} --eval ${evalId} --agent ${agentId}${batchSize !== 10 ? ` --batch-size ${batchSize}` : ''}`;
  const started = Date.now();
  const progress = ctx.globals.quiet ? null : drawsInPlace(ctx) ? new Bar(ctx, started) : new Lines(ctx);
  let last: TriageProgress | undefined;
  let result: { triaged: number; total: number };
  try {
    result = await triageAll(api, {
      agentId,
      evalId,
      importId,
      batchSize,
      signal: ctx.signal,
      onProgress: (p) => {
        last = p;
        progress?.update(p);
      },
    });
  } catch (err) {
    progress?.stop();
    if (err instanceof TriageInterruptedError || ctx.signal.aborted) {
      const done = last ? `${last.triaged} of ${last.total} calls triaged` : 'no batch finished';
      throw new InterruptedError(`triage stopped: ${done}; the committed batches are kept. Resume with \`${resume}\``);
    }
    // The error goes on typed (exit code by kind); the way back in is said first.
    // Not for a wrong id or a refused key, where resuming would fail the same way.
    if (err instanceof NotFoundError || err instanceof AuthenticationError || err instanceof PermissionDeniedError) throw err;
    const done = last ? `${last.triaged} of ${last.total} calls are triaged` : 'no batch finished in this run';
    await ctx.warn(`triage of ${importId} stopped by an error: ${done} (committed). Resume with \`${resume}\``);
    throw err;
  } finally {
    progress?.stop();
  }
  await ctx.out.item(
    { id: importId, status: 'triaged', triagedCalls: result.triaged, totalCalls: result.total },
    {
      fields: [
        { header: 'id', value: (i) => i.id },
        { header: 'status', value: (i) => i.status },
        { header: 'triaged calls', value: (i) => `${i.triagedCalls}/${i.totalCalls}` },
      ],
    },
  );
  await ctx.success(
    `Triaged ${result.triaged} call${result.triaged === 1 ? '' : 's'} of ${importId}; review them with \`vap evals imports calls ${importId} --eval ${evalId} --agent ${agentId}\``,
  );
}

/** A live bar redrawn in place on a terminal's stderr (like `import-jobs watch`). */
class Bar {
  private readonly line: LiveLine;
  constructor(
    ctx: Context,
    private readonly started: number,
  ) {
    this.line = new LiveLine(ctx.io.stderr);
  }

  update(p: TriageProgress): void {
    const ratio = p.total > 0 ? Math.min(1, p.triaged / p.total) : 1;
    this.line.drawBar(ratio, `${safeText(`${p.triaged}/${p.total}`)} triaged  ${formatDuration(Date.now() - this.started)}`);
  }

  stop(): void {
    this.line.keep();
  }
}

/** A line per batch, for logs. */
class Lines {
  constructor(private readonly ctx: Context) {}
  update(p: TriageProgress): void {
    this.ctx.io.stderr.write(`${safeText(`triaged ${p.triaged}/${p.total} (+${p.processed}, ${p.remaining} remaining)`)}\n`);
  }
  stop(): void {}
}
