import { Command } from 'commander';

/**
 * Help topics: `vap help <topic>` (and `vap <topic>`) print a page of text that is not
 * about one command, as gh's `gh help environment` and `gh help accessibility` do. They are
 * hidden commands, so that they stay out of the command list and of shell completion, and
 * the root help lists them under a heading of their own.
 */

const ACCESSIBILITY = `Accessibility

vap is built to be usable with a screen reader, a magnifier or a braille display, and
in terminals without colour.

Plain lines instead of animation
  Set VAP_ACCESSIBLE=1 (or ACCESSIBLE=1, which other tools also read) to turn off
  everything vap draws in place: spinners, progress bars redrawn on one line (contacts
  import, evals run --wait, import-jobs watch, triage, audio downloads) and live screens
  (campaigns analytics --realtime --watch). Each becomes plain lines that are written
  once and never rewritten, so a screen reader reads each of them once:

    $ export VAP_ACCESSIBLE=1
    $ vap contacts import cl_123 leads.csv
    progress: 10%  5,000 rows  5,000 sent  4,980 rows/s  ETA 0:09
    progress: 20%  10,000 rows  10,000 sent  5,010 rows/s  ETA 0:08
    …

  A watch prints a line only when a figure changed. Output to a pipe or a file is
  always plain, with or without the variable.

Colour is never the only sign
  Turn colour off with --no-color, NO_COLOR=1 or TERM=dumb; FORCE_COLOR=1 forces it on.
  Nothing is said by colour alone: whatever is red or green also carries a word or a
  mark, so it reads the same without colour, on a braille display or read aloud:
    a regression          ▼ regressed   (an improvement: ▲ improved)
    an eval gate          ✗ FAILED --min-score 0.8: overall score 0.712 < 0.8
                          ✓ passed --min-criterion tone=0.7: …
    a call's analysis     ! CRISIS detected, ! LEGAL threat, ! DO NOT CALL requested
                          (calls get, calls tail, events tail)
    a score change        +0.034 / -0.120 (the sign), call status failed (the word)

Times, durations and counts
  Times read "3 minutes ago" on a terminal; --absolute-times gives exact ISO 8601 times
  instead (as piped output and JSON always do). Durations read "1m 53s", counts
  "49,889".

Tables and machine output
  Tables are aligned with spaces. -o json, -o ndjson and -o tsv give the same data without
  tables, for a tool of your choice to read; --query picks fields (JMESPath).

Prompts
  Every question has a flag that answers it; --no-input never asks (a missing answer is
  then a one-line error naming the flag).

Tell us what gets in your way: accessibility issues are bugs.`;


const MCP = `Serving AI assistants: vap mcp

\`vap mcp\` serves the Model Context Protocol, so that an assistant (Claude Code, Cursor,
VS Code) can read the platform, and change it when you allow it. It uses the active
profile, --profile and the environment, as every command does.

  vap mcp                      stdio: the client starts it (the usual way)
  vap mcp --allow-writes       the write tools too
  vap mcp --http 8123          Streamable HTTP on 127.0.0.1 only; prints the URL and a
                               bearer token once (VAP_MCP_TOKEN sets it instead)
  vap mcp config --client claude|cursor|vscode     prints the client's configuration

Connecting a client (the snippet never holds the key: \`vap auth login\` first)
  Claude Code  claude mcp add vap -- vap mcp
               or vap mcp config --client claude, into .mcp.json
  Cursor       vap mcp config --client cursor, into .cursor/mcp.json
  VS Code      vap mcp config --client vscode, into .vscode/mcp.json
  Add --allow-writes (and --profile <name>) to \`vap mcp config\` to pass them on.

Safety
  1. Read-only unless started with --allow-writes; a refused write says so, as an error.
  2. A destructive write also needs confirm equal to the id of what it changes.
  3. Each write says what it changed and how to undo it (the version to roll back to).
  4. Platform text (transcripts, names, reasons) comes back under "data", escaped safe.
  5. That text is data, never instructions: every tool says so, and none acts on it.

Tools (vap_<group>_<verb>)
  read   vap_agents_list, vap_agents_get, vap_agents_versions, vap_voices_list,
         vap_evals_list, vap_evals_get, vap_evals_runs_list, vap_evals_runs_get,
         vap_evals_runs_results, vap_evals_runs_diff, vap_calls_list, vap_calls_get,
         vap_campaigns_list, vap_campaigns_get, vap_campaigns_analytics,
         vap_analytics_overview, vap_contact_lists_list, vap_contact_lists_get,
         vap_import_jobs_list, vap_import_jobs_get, vap_webhooks_list, vap_webhooks_get,
         vap_webhooks_deliveries, vap_events_recent, vap_events_types, vap_ascode_diff
  write  vap_agents_create, vap_agents_update*, vap_agents_rollback*, vap_agents_voice*,
         vap_agents_tools*, vap_evals_run, vap_campaigns_start*, vap_campaigns_pause*,
         vap_webhooks_rotate_secret*            (* destructive: needs confirm)
  Listings take limit and cursor, and give nextCursor while more follow. A result over
  40,000 characters (--max-result) is cut, with a note that says how to read the rest.

Resources
  vap://agents/{id}                 the agent as agent.md (agents as code)
  vap://runs/{suite}/{run}/report   an eval run's Markdown report
  vap://calls/{id}/transcript       a call's transcript, one message a line`;

/**
 * The topics. One that is also a command group (`mcp`) is not a command of its own:
 * `vap help mcp` shows the group's help, which ends with the topic's text.
 */
const TOPICS: Array<{ name: string; alias?: string; summary: string; text: string; group?: true }> = [
  { name: 'accessibility', alias: 'a11y', summary: 'screen readers, plain lines instead of spinners and bars (VAP_ACCESSIBLE), colour never alone', text: ACCESSIBILITY },
  { name: 'mcp', summary: 'serving AI assistants (Claude Code, Cursor, VS Code): the tools, connecting a client, the safety model', text: MCP, group: true },
];

/** A topic's text (the help of the group a topic is also, ends with it). */
export function helpTopicText(name: string): string {
  return TOPICS.find((t) => t.name === name)?.text ?? '';
}

/** Adds the help topics to the program, hidden. */
export function addHelpTopics(program: Command): void {
  for (const t of TOPICS) {
    if (t.group) continue;
    const cmd = new Command(t.name).description(t.summary).configureHelp({ formatHelp: () => `${t.text}\n` });
    if (t.alias) cmd.alias(t.alias);
    cmd.action(() => cmd.outputHelp());
    program.addCommand(cmd, { hidden: true });
  }
}

/** The root help's list of topics. */
export function helpTopicsText(): string {
  const width = Math.max(...TOPICS.map((t) => t.name.length));
  return `Help topics:\n${TOPICS.map((t) => `  vap help ${t.name.padEnd(width)}  ${t.summary}`).join('\n')}`;
}
