import { Writable, type Readable } from 'node:stream';
import { InterruptedError, UsageError } from '../errors.js';
import { safeText } from './safe-text.js';

export interface Choice<T> {
  name: string;
  value: T;
  description?: string;
  /** What the answer line shows once chosen (inquirer's `short`). */
  short?: string;
  /** Shown but not choosable; a string says why. */
  disabled?: boolean | string;
}

/** Prompts on a terminal (stdin in, stderr out); with no terminal, fails naming the flag that answers. */
export interface Prompter {
  readonly canPrompt: boolean;
  confirm(message: string, opts: { flag: string; default?: boolean }): Promise<boolean>;
  input(message: string, opts: { flag: string; default?: string; validate?: (v: string) => true | string }): Promise<string>;
  password(message: string, opts: { flag: string }): Promise<string>;
  select<T>(message: string, choices: Choice<T>[], opts: { flag: string; default?: T }): Promise<T>;
  checkbox<T>(message: string, choices: Array<Choice<T> & { checked?: boolean }>, opts: { flag: string }): Promise<T[]>;
  /** A checkbox whose heading is redrawn with the number ticked so far; every choice is shown at once. */
  countedCheckbox<T>(heading: (ticked: number) => string, choices: Array<Choice<T> & { checked?: boolean }>, opts: { flag: string }): Promise<T[]>;
}

/**
 * A view of a stream that forwards writes but never ends it: inquirer pipes into its
 * output and ends the pipe after each prompt, which would close our stderr.
 */
function unendable(target: Writable): Writable {
  const view = new Writable({
    write(chunk, encoding, callback) {
      target.write(chunk, encoding, callback);
    },
    final(callback) {
      callback();
    },
  });
  for (const prop of ['isTTY', 'columns', 'rows'] as const) {
    Object.defineProperty(view, prop, { get: () => (target as unknown as Record<string, unknown>)[prop] });
  }
  return view;
}

export function createPrompter(opts: { canPrompt: boolean; input: Readable; output: Writable }): Prompter {
  // A fresh view per prompt: inquirer ends the output it was given when a prompt is done.
  const context = () => ({ input: opts.input, output: unendable(opts.output), clearPromptOnDone: false });
  const refuse = (message: string, flag: string): never => {
    throw new UsageError(`cannot ask "${message}" without a terminal`, `pass ${flag}`);
  };
  const guard = async <T>(message: string, flag: string, ask: (p: typeof import('@inquirer/prompts')) => Promise<T>): Promise<T> => {
    if (!opts.canPrompt) refuse(message, flag);
    const prompts = await import('@inquirer/prompts');
    try {
      return await ask(prompts);
    } catch (err) {
      if ((err as Error).name === 'ExitPromptError' || (err as Error).name === 'AbortPromptError') throw new InterruptedError();
      throw err;
    }
  };
  return {
    countedCheckbox: async <T>(heading: (ticked: number) => string, choices: Array<Choice<T> & { checked?: boolean }>, o: { flag: string }) => {
      if (!opts.canPrompt) refuse(heading(0), o.flag);
      const { countedCheckbox } = await import('./counted-checkbox.js');
      try {
        // The heading and the choices carry data (call intents, previews): shown as safe single lines.
        const safeChoices = choices.map((c) => ({ ...c, name: safeText(c.name), ...(c.short !== undefined ? { short: safeText(c.short) } : {}) }));
        return (await countedCheckbox({ message: (n: number) => safeText(heading(n)), choices: safeChoices }, context())) as T[];
      } catch (err) {
        if ((err as Error).name === 'ExitPromptError' || (err as Error).name === 'AbortPromptError') throw new InterruptedError();
        throw err;
      }
    },
    canPrompt: opts.canPrompt,
    confirm: (message, o) => guard(message, o.flag, (p) => p.confirm({ message, default: o.default ?? false }, context())),
    input: (message, o) => guard(message, o.flag, (p) => p.input({ message, default: o.default, validate: o.validate }, context())),
    password: (message, o) => guard(message, o.flag, (p) => p.password({ message, mask: '*' }, context())),
    select: <T>(message: string, choices: Choice<T>[], o: { flag: string; default?: T }) =>
      guard(message, o.flag, (p) => p.select<T>({ message, choices, default: o.default }, context())),
    checkbox: <T>(message: string, choices: Array<Choice<T> & { checked?: boolean }>, o: { flag: string }) =>
      guard(message, o.flag, (p) => p.checkbox<T>({ message, choices }, context())),
  };
}
