import type { Command, Help, HelpConfiguration } from 'commander';

/**
 * A command's help: Commander's layout with three changes (src/help/README.md): descriptions
 * start at most halfway across, wrap at any width, and a group lists its commands before the
 * global options.
 */

const INDENT = 2;
const SPACER = 2;
/** The fewest columns a description is wrapped to beside its term; with less, it goes under the term. */
const MIN_ROOM = 20;
/** A description under its term starts this far in. */
const UNDER = 6;

const width = (h: Help) => h.helpWidth ?? 80;

/** The description column never starts past the middle of the help. */
function padWidth(this: Help, cmd: Command, helper: Help): number {
  const longest = Math.max(
    helper.longestOptionTermLength(cmd, helper),
    helper.longestGlobalOptionTermLength(cmd, helper),
    helper.longestSubcommandTermLength(cmd, helper),
    helper.longestArgumentTermLength(cmd, helper),
  );
  return Math.min(longest, Math.floor(width(this) / 2) - INDENT - SPACER);
}

/** Lines of `text` wrapped to `room` columns, each after `lead` spaces but the first; a word longer than a line is split. */
function wrapped(helper: Help, text: string, room: number, lead: number): string {
  const w = Math.max(1, room);
  const lines = helper
    .boxWrap(text, w)
    .split('\n')
    .flatMap((l) => (l.length <= w ? [l] : (l.match(new RegExp(`.{1,${w}}`, 'g')) ?? [l])));
  return lines.join(`\n${' '.repeat(lead)}`);
}

const longestWord = (text: string) => Math.max(0, ...text.split(/\s+/).map((w) => w.length));

function formatItem(this: Help, term: string, termWidth: number, description: string, helper: Help): string {
  const total = width(this);
  const termText = helper.displayWidth(term) > total - INDENT ? wrapped(helper, term, total - INDENT - 2, INDENT + 2) : term;
  if (!description) return ' '.repeat(INDENT) + termText;
  // Written with its own line breaks and indentation: as it is (Commander's rule).
  if (helper.preformatted(description))
    return `${' '.repeat(INDENT)}${term.padEnd(termWidth + term.length - helper.displayWidth(term))}${' '.repeat(SPACER)}${description}`;
  const start = INDENT + termWidth + SPACER;
  if (total - start < MIN_ROOM || longestWord(description) > total - start)
    return `${' '.repeat(INDENT)}${termText}\n${' '.repeat(UNDER)}${wrapped(helper, description, total - UNDER, UNDER)}`;
  const text = wrapped(helper, description, total - start, start);
  if (helper.displayWidth(term) > termWidth) return `${' '.repeat(INDENT)}${termText}\n${' '.repeat(start)}${text}`;
  return `${' '.repeat(INDENT)}${term.padEnd(termWidth + term.length - helper.displayWidth(term))}${' '.repeat(SPACER)}${text}`;
}

/** Commander's formatHelp, the commands listed before the global options. */
function formatHelp(this: Help, cmd: Command, helper: Help): string {
  const termWidth = helper.padWidth(cmd, helper);
  const item = (term: string, description: string) => helper.formatItem(term, termWidth, description, helper);
  // A usage line wider than the help wraps between its words, further lines indented.
  const usage = helper.commandUsage(cmd);
  const usageLines =
    helper.displayWidth(`Usage: ${usage}`) > width(helper) ? wrapped(helper, usage, width(helper) - 'Usage: '.length, 'Usage: '.length) : usage;
  let output = [`${helper.styleTitle('Usage:')} ${helper.styleUsage(usageLines)}`, ''];
  const description = helper.commandDescription(cmd);
  if (description.length > 0) output = output.concat([helper.boxWrap(helper.styleCommandDescription(description), width(helper)), '']);

  const args = helper
    .visibleArguments(cmd)
    .map((a) => item(helper.styleArgumentTerm(helper.argumentTerm(a)), helper.styleArgumentDescription(helper.argumentDescription(a))));
  output = output.concat(helper.formatItemList('Arguments:', args, helper));

  const optionGroups = helper.groupItems([...cmd.options], helper.visibleOptions(cmd), (o) => o.helpGroupHeading ?? 'Options:');
  optionGroups.forEach((options, group) => {
    const list = options.map((o) => item(helper.styleOptionTerm(helper.optionTerm(o)), helper.styleOptionDescription(helper.optionDescription(o))));
    output = output.concat(helper.formatItemList(group, list, helper));
  });

  const commandGroups = helper.groupItems([...cmd.commands], helper.visibleCommands(cmd), (sub) => sub.helpGroup() || 'Commands:');
  commandGroups.forEach((commands, group) => {
    const list = commands.map((sub) =>
      item(helper.styleSubcommandTerm(helper.subcommandTerm(sub)), helper.styleSubcommandDescription(helper.subcommandDescription(sub))),
    );
    output = output.concat(helper.formatItemList(group, list, helper));
  });

  if (helper.showGlobalOptions) {
    const globals = helper
      .visibleGlobalOptions(cmd)
      .map((o) => item(helper.styleOptionTerm(helper.optionTerm(o)), helper.styleOptionDescription(helper.optionDescription(o))));
    output = output.concat(helper.formatItemList('Global Options:', globals, helper));
  }
  return output.join('\n');
}

/** The settings every command's help is given (with showGlobalOptions, src/program.ts). */
export const HELP_LAYOUT: HelpConfiguration = {
  // Commander wraps nothing narrower than 40 columns; vap wraps to whatever room there is.
  minWidthToWrap: 1,
  padWidth,
  formatItem,
  formatHelp,
};
