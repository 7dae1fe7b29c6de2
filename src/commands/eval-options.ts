import { type Command, Option } from 'commander';
import { baselineOption } from '../evals/baseline.js';
import { allowanceOption, alphaOption, criterionGateOption, maxCallsOption, scoreOption } from '../evals/gates.js';
import { reportOption } from '../evals/reports.js';
import { type BudgetOptions, DEFAULT_TIMEOUT_MS, type GateOptions } from '../evals/settings.js';
import { durationOption } from './duration.js';

/** The options of the commands that start, follow and gate eval runs: evals run, runs get, runs diff, push, preview, promote. */

/** --min-score, --min-criterion (repeatable), --allow-failed-iterations, --min-pass-rate. */
export function addGateOptions(cmd: Command): Command {
  return cmd
    .option('--min-score <score>', 'exit 3 when the overall score is below this (0..1)', scoreOption('--min-score'))
    .option('--min-criterion <key=score>', 'exit 3 when this criterion averages below the score (repeatable)', criterionGateOption)
    .option(
      '--allow-failed-iterations <n|p%>',
      'failed iterations (a number, or a share like 10%) that do not fail the gate (default: fewer than 20%, and with a baseline not significantly more than its share)',
      allowanceOption,
    )
    .option(
      '--min-pass-rate <x>',
      "exit 3 when pass^k is below x: the estimate that all k repeated calls of a scenario pass (k: a run's iterations per scenario; passing: completed, at --min-score or above when given)",
      scoreOption('--min-pass-rate'),
    );
}

/** --baseline, --fail-on-regression, --min-effect, --alpha: the comparison with another run and its gate. */
export function addBaselineOptions(cmd: Command, what = 'the run'): Command {
  return cmd
    .option(
      '--baseline <runId|previous|version:n|live>',
      `compare ${what} with a run: its id, previous (the newest completed run before it), version:<n> (the newest completed run on agent version n), or live (the live agent's newest completed run); previous and version:<n> pool every completed run of that agent version; a verdict overall, per scenario and per criterion`,
      baselineOption,
    )
    .option(
      '--fail-on-regression',
      'exit 3 when the change regressed significantly against the baseline: overall, then per scenario and criterion (default baseline: previous)',
    )
    .option(
      '--min-effect <score>',
      'the smallest change that matters: a change shown to be smaller is no significant change (default 0.05)',
      scoreOption('--min-effect'),
    )
    .option('--alpha <a>', 'the family-wise rate of a false "regressed" over every row the gate tests (default 0.01)', alphaOption);
}

/** --until-decided, --max-calls: more runs while the verdict is undecided, within a budget of calls. */
export function addBudgetOptions(cmd: Command): Command {
  return cmd
    .option(
      '--until-decided',
      'with --wait and a baseline: while the verdict is undecided, start another run of the suite on the same agent version and pool it, until regressed, improved or no significant change, or the budget',
    )
    .option(
      '--max-calls <n>',
      'the most calls this command may place: a run that would pass it is refused (exit 2) before it starts (also VAP_MAX_CALLS)',
      maxCallsOption,
    );
}

/** --wait, --timeout, --report (repeatable) and the hidden --poll. */
export function addWaitOptions(cmd: Command): Command {
  return addFollowOptions(cmd.option('--wait', 'follow the run until it ends, then print the scores and apply the gates'), {
    timeout: 'with --wait: give up after this long with exit 124; the run goes on',
    report: 'when the run ends (or the wait does), write junit=<path>, json=<path>, markdown=<path> (a pull-request comment) or html=<path> (repeatable)',
    poll: 'learn of the end by polling only, not from the event stream',
  });
}

/** How a command that follows runs to their end says so in its help: --timeout, --report and the hidden --poll. */
export interface FollowHelp {
  /** What --timeout does (its examples are added). */
  timeout: string;
  report: string;
  /** What --poll does (VAP_WAIT_POLL is added). */
  poll: string;
}

/** --timeout (default 30m), --report (repeatable) and the hidden --poll of a command that follows runs: evals run, push, promote and preview. */
export function addFollowOptions(cmd: Command, help: FollowHelp): Command {
  return cmd
    .addOption(
      new Option('--timeout <duration>', `${help.timeout} (30s, 10m, 1h)`)
        .argParser(durationOption('--timeout', { min: 1 }))
        .default(DEFAULT_TIMEOUT_MS, '30m'),
    )
    .option('--report <kind=path>', help.report, reportOption)
    .addOption(new Option('--poll', `${help.poll} (also VAP_WAIT_POLL=1)`).hideHelp());
}

/** The gate, baseline and report flags given (what needs the run to be followed to be of any use). */
export function gateFlagsGiven(opts: GateOptions & { report?: unknown[] }): string[] {
  return [
    opts.minScore !== undefined && '--min-score',
    opts.minCriterion?.length && '--min-criterion',
    opts.allowFailedIterations !== undefined && '--allow-failed-iterations',
    opts.minPassRate !== undefined && '--min-pass-rate',
    opts.report?.length && '--report',
    opts.baseline && '--baseline',
    opts.failOnRegression && '--fail-on-regression',
    opts.minEffect !== undefined && '--min-effect',
    opts.alpha !== undefined && '--alpha',
    (opts as BudgetOptions).untilDecided && '--until-decided',
  ].filter((x): x is string => typeof x === 'string');
}

export const GATES_HELP = `Gates (with --wait): exit 0 when the run completed and passed every gate,
3 when it completed below one (each failed gate is printed on stderr), 1 when the
run failed or the API did, 124 when --timeout ran out (the run goes on; the
command that keeps waiting is printed), 130 on Ctrl-C (the run goes on).
Failed iterations (dropped calls) fail the gate when 20% or more of the run's
iterations failed, or, with a baseline, when their share is significantly above
the baseline's; --allow-failed-iterations n|p% sets an allowance instead.

Baseline: --baseline previous|version:<n>|<runId> compares the run with another
(previous and version:<n> pool every completed run of that agent version): the
overall change stratified by scenario first, then each scenario and criterion
(Holm), with a family-wise false-alarm rate of 1% (--alpha). The verdict:
regressed, improved, no significant change (shown to be within ±0.05, or
--min-effect), or too few iterations (with the iterations per scenario that would
decide). --fail-on-regression exits 3 on a significant regression only.

Budget: before any call the calls a run places (at most, with --until-decided)
and the call minutes of the suite's recent runs are printed. --max-calls N (or
VAP_MAX_CALLS) refuses a run that would pass it (exit 2, nothing started).
--until-decided starts another run on the same agent version while the verdict
is undecided and the next run fits the budget, pooling them; each look is tested
against a Lan-DeMets Pocock boundary, so looking again adds no false
alarms (vap help ci).

Reports: --report junit=<path> writes a JUnit file (a suite per scenario, a case
per iteration with the transcript, and a "gates" suite), json=<path> the --json
document, markdown=<path> a pull-request comment (verdicts, gates, the worst
transcripts), html=<path> a self-contained page (charts, every transcript). They
are written also when the wait times out or the run fails, saying why. In GitHub
Actions, the Markdown report is appended to $GITHUB_STEP_SUMMARY, and failed
scenarios, gates, runs and timeouts are printed as ::error annotations (not with
--json, -o or -q, which keep stdout for data).`;
