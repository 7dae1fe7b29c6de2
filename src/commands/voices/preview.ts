import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { access, constants, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Writable } from 'node:stream';
import { Command } from 'commander';
import { streamVoicePreview } from '../../api/voices.js';
import type { Context } from '../../context.js';
import { CliError, UsageError } from '../../errors.js';
import { action } from '../action.js';
import type { ContextFactory } from '../types.js';

interface PreviewOptions {
  outputFile?: string;
}

export function previewCommand(makeContext: ContextFactory): Command {
  return new Command('preview')
    .description('Download a voice preview (MP3) to a file, or stream it to a player through a pipe')
    .argument('<voiceId>', 'a voice id from `vap voices list`')
    .option('-O, --output-file <file>', 'write the MP3 to this file (written whole or not at all)')
    .addHelpText(
      'after',
      `
Without -O, the audio goes to stdout, which must not be a terminal.

Examples:
  $ vap voices preview voice_znruc1uit24f -O lucia.mp3
  $ vap voices preview voice_znruc1uit24f | mpv -
  $ vap voices preview voice_znruc1uit24f | ffplay -nodisp -autoexit -`,
    )
    .action(action<PreviewOptions>(makeContext, (args, opts, ctx) => run(args[0]!, opts, ctx)));
}

export async function run(voiceId: string, opts: PreviewOptions, ctx: Context): Promise<void> {
  const file = opts.outputFile === '-' ? undefined : opts.outputFile;
  if (file === undefined && ctx.io.stdoutIsTTY) {
    throw new UsageError('refusing to write audio to a terminal; pass -O file.mp3 or pipe to a player');
  }
  if (file !== undefined) await checkWritable(file);

  const api = await ctx.api();
  const res = await streamVoicePreview(api, voiceId, ctx.signal);
  const type = res.contentType?.split(';')[0]?.trim().toLowerCase();
  if (!type?.startsWith('audio/')) {
    res.body.resume?.();
    throw new CliError(`expected audio (audio/mpeg) for the preview of voice ${voiceId}, got ${type ?? 'no content type'}${res.requestId ? ` (request id ${res.requestId})` : ''}`);
  }

  if (file === undefined) {
    await copyTo(res.body, ctx.io.stdout);
    return;
  }
  // A temporary file beside the target, renamed on success: a failure leaves nothing half-written.
  const target = resolve(file);
  const tmp = join(dirname(target), `.${basename(target)}.${randomBytes(4).toString('hex')}.part`);
  try {
    await pipeline(res.body, createWriteStream(tmp, { flags: 'wx' }), { signal: ctx.signal });
    await rename(tmp, target);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
  const { size } = await stat(target);
  await ctx.success(`Saved the preview of voice ${voiceId} to ${file} (${formatBytes(size)})`);
}

/** The directory must exist and be writable, and the target must not be a directory: checked before anything is sent. */
async function checkWritable(file: string): Promise<void> {
  const target = resolve(file);
  const dir = dirname(target);
  try {
    await access(dir, constants.W_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot write -O ${file}: ${code === 'ENOENT' ? `the directory ${dir} does not exist` : `the directory ${dir} is not writable`}`);
  }
  const st = await stat(target).catch(() => undefined);
  if (st?.isDirectory()) throw new UsageError(`cannot write -O ${file}: it is a directory`);
}

/** Copies a stream to stdout with back-pressure, leaving stdout open. */
async function copyTo(body: AsyncIterable<Uint8Array>, out: Writable): Promise<void> {
  for await (const chunk of body) {
    if (!out.write(chunk)) await once(out, 'drain');
  }
}

function formatBytes(n: number): string {
  return n < 1024 ? `${n} B` : `${(n / 1024).toFixed(1)} KiB`;
}
