import { readFile } from 'node:fs/promises';
import { InvalidArgumentError } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { describeFsError } from '../../fs-errors.js';
import type { Variable } from '../../spec/agents.js';

/** `--variable name=description`, repeatable: the description may be empty, the name may not. */
export function collectVariable(value: string, previous: Variable[] | undefined): Variable[] {
  const i = value.indexOf('=');
  const name = i < 0 ? '' : value.slice(0, i).trim();
  if (i < 0 || !name) {
    throw new InvalidArgumentError(`expected name=description, for example --variable customer_name="the caller's first name".`);
  }
  const list = previous ?? [];
  if (list.some((v) => v.name === name)) throw new InvalidArgumentError(`the variable "${name}" is given twice.`);
  return [...list, { name, description: value.slice(i + 1).trim() }];
}

export interface InstructionsOptions {
  instructions?: string;
  instructionsFile?: string;
}

/**
 * The instructions from --instructions or --instructions-file (`-` reads stdin).
 * Exactly one of them when `required`; at most one otherwise. Any problem is a
 * usage error, raised before anything is sent.
 */
export async function readInstructions(opts: InstructionsOptions, ctx: Context, required: boolean): Promise<string | undefined> {
  if (opts.instructions !== undefined && opts.instructionsFile !== undefined) {
    throw new UsageError('--instructions and --instructions-file cannot be used together', 'pass exactly one of them');
  }
  let text: string | undefined;
  if (opts.instructions !== undefined) {
    text = opts.instructions;
  } else if (opts.instructionsFile !== undefined) {
    const file = opts.instructionsFile;
    if (file === '-') {
      text = await readStream(ctx.io.stdin);
    } else {
      try {
        text = await readFile(file, 'utf8');
      } catch (err) {
        throw new UsageError(`cannot read --instructions-file ${file}: ${describeFsError(err)}`);
      }
    }
  } else if (required) {
    throw new UsageError('the instructions are missing', 'pass --instructions "..." or --instructions-file <file> (- reads stdin)');
  } else {
    return undefined;
  }
  if (text.trim() === '') {
    throw new UsageError(
      opts.instructionsFile !== undefined
        ? `the instructions in ${opts.instructionsFile === '-' ? 'stdin' : opts.instructionsFile} are empty`
        : 'the instructions are empty',
    );
  }
  return text.replace(/\r\n/g, '\n').replace(/\n+$/, '');
}

async function readStream(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(typeof c === 'string' ? Buffer.from(c) : Buffer.from(c as Uint8Array));
  return Buffer.concat(chunks).toString('utf8');
}

/** A non-blank value of a text flag. */
export function nonBlank(flag: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value.trim() === '') throw new UsageError(`${flag} must not be empty`);
  return value.trim();
}
