import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { ApiClient } from '../api/client.js';
import type { Context } from '../context.js';
import { CliError, GateError, UsageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { safeText } from '../ui/safe-text.js';
import { checkWriteTarget } from '../write-target.js';
import { writeFileAtomic } from '../write-atomic.js';
import { cleanCopies, type CopyStore } from './copies.js';
import { markdownReport, planLine, resultJson, resultLines, stepLine } from './report.js';
import { bisect, type BisectInput, type BisectResult } from './search.js';

/**
 * A search run from a command line, shared by `vap agents bisect` and `vap bisect`: what an earlier search left is removed first, then the plan
 * is printed before any call. Exit 0 for a first bad version found or no regression, 3 when the search could not decide.
 */
export interface SessionOptions {
  json: boolean;
  report?: string;
  /** The command that undoes the first bad version (`vap agents rollback …`), given its result. */
  undo(r: Extract<BisectResult, { kind: 'found' }>): string | undefined;
  title: string;
  /** `version` or `commit`. */
  word: string;
  /** What the JSON document says besides the search (the agent, the suite). */
  extra: Record<string, unknown>;
}

/** Removes what earlier searches left (a kill); exit 1 when something could not be removed. */
export async function cleanLeft(ctx: Context, api: ApiClient, store: CopyStore, only: boolean): Promise<void> {
  const c = await cleanCopies(api, store);
  if (c.removed) ctx.info(`Removed ${c.removed} preview cop${c.removed === 1 ? 'y' : 'ies'} an earlier bisect left`);
  for (const l of c.left) await ctx.warn(`left ${safeText(l)}`);
  if (c.left.length)
    throw new CliError(`${c.left.length} recorded bisect cop${c.left.length === 1 ? 'y was' : 'ies were'} left in place (said above)`, ExitCode.FAILURE);
  if (only && !c.removed) await ctx.success('No bisect copy is left');
}

export async function runSession(ctx: Context, api: ApiClient, store: CopyStore, input: BisectInput, o: SessionOptions): Promise<BisectResult> {
  if (o.report)
    await checkWriteTarget(o.report, (why) => new UsageError(`cannot write --report markdown=${o.report}: ${why}`, 'pass a path in a folder you can write'));
  await cleanLeft(ctx, api, store, false);
  const good = input.versions[0]!.label;
  const bad = input.versions.at(-1)!.label;
  const result = await bisect(
    {
      api,
      signal: ctx.signal,
      store,
      reporter: {
        planned: (p) => ctx.info(`Plan: ${planLine(p, good, bad, `${o.word}s`)}`),
        baseline: (calls, pooled) =>
          ctx.info(
            calls
              ? `Baseline: ${o.word} ${good} on a preview copy, ${calls} calls (with ${pooled} pooled)`
              : `Baseline: ${o.word} ${good}, ${pooled} calls pooled from the live suite`,
          ),
        step: (s) => ctx.info(stepLine(s, good, o.word)),
      },
    },
    input,
  );
  const undo = result.kind === 'found' ? o.undo(result) : undefined;
  if (ctx.globals.json) await ctx.out.data(resultJson(result, { ...o.extra, good, bad, ...(undo ? { undo } : {}) }));
  else {
    const lines = resultLines(result, o.word, good);
    ctx.io.stdout.write(`${lines.map(safeText).join('\n')}\n`);
    if (undo) ctx.io.stdout.write(`${safeText(undo)}   # to undo it\n`);
  }
  if (o.report) {
    await mkdir(dirname(o.report), { recursive: true });
    await writeFileAtomic(o.report, markdownReport(result, o.title, undo, good, o.word));
    ctx.info(`Wrote ${o.report}`);
  }
  if (result.kind === 'undecided' || result.kind === 'skipped') throw new GateError(`bisect could not name a ${o.word}: ${result.why}`);
  return result;
}
