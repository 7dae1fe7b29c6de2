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

Colour
  Turn colour off with --no-color, NO_COLOR=1 or TERM=dumb; FORCE_COLOR=1 forces it on.

Tables and machine output
  Tables are aligned with spaces. -o json, -o ndjson and -o tsv give the same data without
  tables, for a tool of your choice to read; --query picks fields (JMESPath).

Prompts
  Every question has a flag that answers it; --no-input never asks (a missing answer is
  then a one-line error naming the flag).

Tell us what gets in your way: accessibility issues are bugs.`;

const TOPICS: Array<{ name: string; alias?: string; summary: string; text: string }> = [
  { name: 'accessibility', alias: 'a11y', summary: 'screen readers, plain lines instead of spinners and bars (VAP_ACCESSIBLE), colour', text: ACCESSIBILITY },
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
