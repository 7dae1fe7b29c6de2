import type { ApiClient } from '../api/client.js';
import type { Run } from '../api/evals.js';
import type { Env } from '../context.js';
import type { RunProgress } from './progress.js';

/**
 * What following a run tells on its way, as `src/ascode/apply.ts`'s Reporter does for a
 * push: the CLI prints it on stderr (src/evals/render-outcome.ts), the MCP tools keep it as
 * their log. Lines are vap's words around the platform's: the sink makes them safe.
 */
export interface RunReporter {
  /** A line of information: `Calls: …`, `Wrote evals.xml (JUnit)`. */
  info(line: string): void;
  /** A warning: `no baseline: …; the verdicts are left out`. */
  warn(line: string): void | Promise<void>;
  /** A run was started and will be followed (`line` says so; with -q the CLI prints its id instead). */
  started(run: Run, line: string): void;
  /** A look of `--until-decided` at the runs so far. */
  look(line: string): void;
  /** The progress of a wait (null: none shown). */
  progress(): Promise<RunProgress | null>;
}

/** What following and gating a run needs: the client, the environment (VAP_WAIT_POLL, $GITHUB_STEP_SUMMARY), Ctrl-C, and where to tell. */
export interface RunDeps {
  api: ApiClient;
  signal: AbortSignal;
  env: Env;
  reporter: RunReporter;
}
