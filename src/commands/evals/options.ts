import { Option } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';

/** `--agent <agentId>`, defaulting to $VAP_AGENT: every evals path is under one agent. */
export function agentOption(): Option {
  return new Option('--agent <agentId>', 'the agent the suite belongs to (default: $VAP_AGENT)');
}

/** The agent id from `--agent` or `VAP_AGENT`; a usage error naming the flag when neither is set. */
export function resolveAgent(opts: { agent?: string }, ctx: Context): string {
  const agent = opts.agent?.trim() || ctx.env.VAP_AGENT?.trim();
  if (!agent) throw new UsageError('missing --agent <agentId>', 'pass --agent ag_… or set VAP_AGENT (eval suites live under an agent)');
  return agent;
}

/** `--eval <evalId>`, the suite, for verbs that also accept it as their first argument. */
export function evalOption(): Option {
  return new Option('--eval <evalId>', 'the eval suite (instead of the first argument)');
}

/**
 * A run verb's ids: `<evalId> <runId>` (CLI.md) or `<runId> --eval <evalId>`.
 * Two positionals plus a different --eval, or no suite at all, is a usage error.
 */
export function resolveRunIds(args: (string | undefined)[], opts: { eval?: string }): { evalId: string; runId: string } {
  const given = args.filter((a): a is string => typeof a === 'string' && a.length > 0);
  if (given.length === 2) {
    const [evalId, runId] = given as [string, string];
    if (opts.eval && opts.eval !== evalId) {
      throw new UsageError(
        `--eval ${opts.eval} disagrees with the suite argument ${evalId}`,
        'give the suite once: `<evalId> <runId>` or `<runId> --eval <evalId>`',
      );
    }
    return { evalId, runId };
  }
  if (given.length === 1) {
    if (!opts.eval) throw new UsageError('missing the eval suite', 'use `<evalId> <runId>` or `<runId> --eval <evalId>`');
    return { evalId: opts.eval, runId: given[0]! };
  }
  throw new UsageError('missing the run id', 'use `<evalId> <runId>` or `<runId> --eval <evalId>`');
}

/** A suite verb's id: `<evalId>` or `--eval <evalId>`. */
export function resolveEvalId(arg: string | undefined, opts: { eval?: string }): string {
  if (arg && opts.eval && arg !== opts.eval) {
    throw new UsageError(`--eval ${opts.eval} disagrees with the suite argument ${arg}`, 'give the suite once');
  }
  const evalId = arg || opts.eval;
  if (!evalId) throw new UsageError('missing the eval suite id', 'pass <evalId> (see `vap evals list --agent <agentId>`)');
  return evalId;
}
