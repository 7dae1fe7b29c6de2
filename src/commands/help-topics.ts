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

const TOPICS: Array<{ name: string; alias?: string; summary: string; text: string }> = [
  { name: 'accessibility', alias: 'a11y', summary: 'screen readers, plain lines instead of spinners and bars (VAP_ACCESSIBLE), colour never alone', text: ACCESSIBILITY },
];

/** Adds the help topics to the program, hidden. */
export function addHelpTopics(program: Command): void {
  for (const t of TOPICS) {
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
