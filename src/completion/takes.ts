import type { Argument, Option } from 'commander';

/**
 * What an option's or an argument's value takes, for the completions (src/completion/tree.ts):
 * Commander's choices, values declared with `completes()`, a file or a folder where the value is
 * named so, else nothing, since an id or a name is typed (src/completion/README.md).
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
