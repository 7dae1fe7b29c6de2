import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { alphaOption, maxCallsOption, scoreOption } from '../evals/gates.js';
import { DEFAULT_ALPHA, DEFAULT_MIN_EFFECT } from '../evals/verdict.js';

/** What `vap agents bisect` and `vap bisect` share: the budget, each step's verdict, the report. */
export interface SearchOptions {
  maxCalls?: number;
  alpha?: number;
  minEffect?: number;
  report?: string;
}

/** The options of SearchOptions, in the order both commands' help lists them. */
export function addSearchOptions(cmd: Command): Command {
  return cmd
    .option('--max-calls <n>', 'the most calls the whole search may place (or VAP_MAX_CALLS)', maxCallsOption)
    .option('--min-effect <score>', 'the smallest change that matters (default 0.05)', scoreOption('--min-effect'))
    .option('--alpha <a>', 'the rate of a false "regressed" at each step (default 0.01)', alphaOption)
    .option('--report <markdown=path>', 'write the search as Markdown, for a pull request or an incident');
}

/** Each step's verdict settings, the defaults of `evals run` where not given. */
export function stepVerdict(opts: SearchOptions): { alpha: number; minEffect: number } {
  return { alpha: opts.alpha ?? DEFAULT_ALPHA, minEffect: opts.minEffect ?? DEFAULT_MIN_EFFECT };
}

/** A search without a budget is refused before anything is read. */
export function noBudgetError(): UsageError {
  return new UsageError('bisect needs a budget: --max-calls <n> (or VAP_MAX_CALLS)', 'give the most calls the whole search may place, e.g. --max-calls 600');
}
