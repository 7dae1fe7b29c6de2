import type { Argument, Option } from 'commander';

/**
 * What an option's or an argument's value is, for the shell completions
 * (src/completion/tree.ts reads it):
 * - the values of Commander's `.choices()`, where Commander checks them;
 * - the values declared here with `completes()`, where the verb checks them itself (it
 *   takes other spellings too, or a list of them: `--status in_progress`, `--types a,b`);
 * - a file where the value is named so (`<file>`, `<path>`; an argument `<file…>`), a
 *   directory for `<dir>`;
 * - else nothing: an id, a name, a number is typed, and no file name is offered for it.
 */
export type Takes = { values: readonly string[] } | 'file' | 'dir';

const TAKES = Symbol.for('vap.completion.takes');

/** Declares the values an option or argument takes, for completion alone (the verb still checks what it is given). */
export function completes<T extends Option | Argument>(o: T, values: readonly string[]): T {
  (o as T & { [TAKES]?: Takes })[TAKES] = { values };
  return o;
}

/** What an option takes, by the rules above. */
export function optionTakes(o: Option): Takes | undefined {
  return declared(o) ?? (o.argChoices ? { values: o.argChoices } : named(/<([^>]+)>|\[([^\]]+)\]/.exec(o.flags)?.slice(1).find(Boolean), ['file', 'path']));
}

/** What an argument takes, by the rules above. */
export function argumentTakes(a: Argument): Takes | undefined {
  return declared(a) ?? (a.argChoices ? { values: a.argChoices } : named(a.name(), []));
}

const declared = (o: Option | Argument) => (o as (Option | Argument) & { [TAKES]?: Takes })[TAKES];

function named(name: string | undefined, files: readonly string[]): Takes | undefined {
  const n = (name ?? '').replace(/\.\.\.$/, '');
  if (n === 'dir') return 'dir';
  if (files.includes(n) || /^file\b/.test(n)) return 'file';
  return undefined;
}
