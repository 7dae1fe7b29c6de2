import { stat } from 'node:fs/promises';
import { extname } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { AUDIO_FORMATS, streamCallAudio, type AudioFormat } from '../../api/calls.js';
import { checkWritable, copyToStream, formatBytes, progressLine, PROGRESS_MIN_BYTES, saveToFile } from '../../calls/download.js';
import type { Context } from '../../context.js';
import { resolveCallId } from '../../ids/resolve.js';
import { drawsInPlace } from '../../ui/accessible.js';
import { NotFoundError } from '../../api/errors.js';
import { CliError, UsageError } from '../../errors.js';
import { action } from '../action.js';
import type { ContextFactory } from '../types.js';
import { completes } from '../../completion/takes.js';

export interface AudioOptions {
  format?: AudioFormat;
  recording?: string;
  outputFile?: string;
}

function parseFormat(v: string): AudioFormat {
  const s = v.trim().toLowerCase();
  if ((AUDIO_FORMATS as readonly string[]).includes(s)) return s as AudioFormat;
  throw new InvalidArgumentError(`--format must be mp3 or wav; got "${v}".`);
}

function nonEmpty(flag: string) {
  return (v: string): string => {
    if (!v.trim()) throw new InvalidArgumentError(`${flag} is empty; give a recording sid from \`vap calls recording <callId>\`.`);
    return v.trim();
  };
}

export function audioCommand(makeContext: ContextFactory): Command {
  return new Command('audio')
    .description("Download a call's recording (MP3 or WAV) to a file, or stream it to a player through a pipe")
    .argument('<callId>', 'the call id, or its start as a table shows it')
    .addOption(
      completes(new Option('--format <fmt>', 'mp3 (default) or wav; taken from the -O file name (.wav) when not given').argParser(parseFormat), AUDIO_FORMATS),
    )
    .option('--recording <sid>', 'which recording (default: the first; sids from `vap calls recording`)', nonEmpty('--recording'))
    .option('-O, --output-file <file>', "write the audio to this file (written whole or not at all); '-' for stdout")
    .addHelpText(
      'after',
      `
The file is streamed to disk (never held in memory) through a temporary file that
is renamed once every byte arrived; an error or Ctrl-C leaves nothing behind. Without
-O (or with -O -) the audio goes to stdout, which must not be a terminal. Large
downloads show their progress on stderr.

Examples:
  $ vap calls audio 0b6d2f7c-5b8e-4c8e-9d0e-3f7a1c2b4d5e -O call.mp3
  $ vap calls audio 0b6d2f7c-5b8e-4c8e-9d0e-3f7a1c2b4d5e -O call.wav
  $ vap calls audio 0b6d2f7c-5b8e-4c8e-9d0e-3f7a1c2b4d5e --format wav | sox -t wav - -n stat
  $ vap calls audio 0b6d2f7c-5b8e-4c8e-9d0e-3f7a1c2b4d5e | mpv -`,
    )
    .action(action<AudioOptions>(makeContext, ([callId], opts, ctx) => run(callId!, opts, ctx)));
}

export async function run(ref: string, opts: AudioOptions, ctx: Context): Promise<void> {
  const file = opts.outputFile === '-' ? undefined : opts.outputFile;
  if (file === undefined && ctx.io.stdoutIsTTY) {
    throw new UsageError('refusing to write audio to a terminal', 'pass -O call.mp3, or pipe it to a player (`| mpv -`)');
  }
  const fromName = file ? extname(file).slice(1).toLowerCase() : '';
  if (opts.format && (fromName === 'mp3' || fromName === 'wav') && fromName !== opts.format) {
    throw new UsageError(
      `-O ${file} names a ${fromName.toUpperCase()} file but --format is ${opts.format}`,
      `drop --format (the file name decides), or name the file ${file!.slice(0, -fromName.length)}${opts.format}`,
    );
  }
  const format: AudioFormat = opts.format ?? (fromName === 'wav' ? 'wav' : 'mp3');
  if (file !== undefined) await checkWritable(file);
  const callId = await resolveCallId(ctx, ref);

  const api = await ctx.api();
  let res;
  try {
    res = await streamCallAudio(api, callId, { format, recordingSid: opts.recording }, ctx.signal);
  } catch (err) {
    // The API's message names its own path; say which vap command lists the recordings.
    if (
      err instanceof NotFoundError &&
      opts.recording !== undefined &&
      (err.code === 'recording_not_found' || (err.code !== 'no_recording' && err.message.includes(opts.recording)))
    ) {
      throw new CliError(`call ${callId} has no recording ${opts.recording}`, undefined, `list its recordings with \`vap calls recording ${callId}\``);
    }
    throw err;
  }
  const type = res.contentType?.split(';')[0]?.trim().toLowerCase();
  // Audio, or bytes without a more precise type (a server may send application/octet-stream).
  if (!type?.startsWith('audio/') && type !== 'application/octet-stream') {
    res.body.resume?.();
    throw new CliError(
      `expected audio (${format === 'wav' ? 'audio/wav' : 'audio/mpeg'}) for call ${callId}, got ${type ?? 'no content type'}${res.requestId ? ` (request id ${res.requestId})` : ''}`,
    );
  }
  const total = res.contentLength;
  // Large downloads show their progress; without a content-length, once a large amount has arrived.
  // A line redrawn in place: not with VAP_ACCESSIBLE (the size is said once the file is saved).
  const showProgress = drawsInPlace(ctx) && !ctx.globals.quiet && (total === undefined || total >= PROGRESS_MIN_BYTES);
  const progress = showProgress ? progressLine(ctx.io.stderr, `Downloading ${file ?? 'audio'}`, PROGRESS_MIN_BYTES) : undefined;
  try {
    if (file === undefined) {
      await copyToStream(res.body, ctx.io.stdout, { signal: ctx.signal, expectedBytes: total, onProgress: progress?.update });
      return;
    }
    await saveToFile(res.body, file, { signal: ctx.signal, expectedBytes: total, onProgress: progress?.update });
  } finally {
    progress?.done();
  }
  const { size } = await stat(file);
  await ctx.success(`Saved the recording of call ${callId} to ${file} (${format.toUpperCase()}, ${formatBytes(size)})`);
}
