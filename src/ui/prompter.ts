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

/**
 * A choice as inquirer will draw it: its name, description, short answer and the reason
 * it is disabled are data (agent, suite, source and call names, summaries), shown as safe
 * single lines; its value is untouched.
 */
export function safeChoice<C extends Choice<unknown>>(c: C): C {
  return {
    ...c,
    name: safeText(c.name),
    ...(c.description !== undefined ? { description: safeText(c.description) } : {}),
    ...(c.short !== undefined ? { short: safeText(c.short) } : {}),
    ...(typeof c.disabled === 'string' ? { disabled: safeText(c.disabled) } : {}),
  };
}

/**
 * Prompts through inquirer, with every text it draws made safe first (src/ui/safe-text.ts):
 * the message, the choices, a default and a validation message may all carry data.
 */
export function createPrompter(opts: { canPrompt: boolean; input: Readable; output: Writable }): Prompter {
  // A fresh view per prompt: inquirer ends the output it was given when a prompt is done.
  const context = () => ({ input: opts.input, output: unendable(opts.output), clearPromptOnDone: false });
  const refuse = (message: string, flag: string): never => {
    throw new UsageError(`cannot ask "${message}" without a terminal`, `pass ${flag}`);
  };
  const guard = async <T>(raw: string, flag: string, ask: (p: typeof import('@inquirer/prompts'), message: string) => Promise<T>): Promise<T> => {
    const message = safeText(raw);
    if (!opts.canPrompt) refuse(message, flag);
    const prompts = await import('@inquirer/prompts');
    try {
      return await ask(prompts, message);
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
    confirm: (raw, o) => guard(raw, o.flag, (p, message) => p.confirm({ message, default: o.default ?? false }, context())),
    input: (raw, o) =>
      guard(raw, o.flag, (p, message) =>
        p.input(
          {
            message,
            default: o.default === undefined ? undefined : safeText(o.default),
            validate: o.validate
              ? (v: string) => {
                  const r = o.validate!(v);
                  return r === true ? true : safeText(r);
                }
              : undefined,
          },
          context(),
        ),
      ),
    password: (raw, o) => guard(raw, o.flag, (p, message) => p.password({ message, mask: '*' }, context())),
    select: <T>(raw: string, choices: Choice<T>[], o: { flag: string; default?: T }) =>
      guard(raw, o.flag, (p, message) => p.select<T>({ message, choices: choices.map(safeChoice), default: o.default }, context())),
    checkbox: <T>(raw: string, choices: Array<Choice<T> & { checked?: boolean }>, o: { flag: string }) =>
      guard(raw, o.flag, (p, message) => p.checkbox<T>({ message, choices: choices.map(safeChoice) }, context())),
  };
}
