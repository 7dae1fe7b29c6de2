import { stat } from 'node:fs/promises';
import { extname } from 'node:path';
import { Command } from 'commander';
import { streamVoicePreview } from '../../api/voices.js';
import { announcedLength, checkWritable, copyToStream, formatBytes, saveToFile } from '../../calls/download.js';
import type { Context } from '../../context.js';
import { CliError, UsageError } from '../../errors.js';
import { action } from '../action.js';
import type { ContextFactory } from '../types.js';

/** Audio formats a preview is not (it is MP3): `-O` with one of these is refused. */
const OTHER_AUDIO = new Set(['wav', 'wave', 'ogg', 'oga', 'opus', 'flac', 'm4a', 'aac', 'webm', 'aif', 'aiff', 'wma']);

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
Previews are MP3: -O takes a .mp3 name (or any name that is not another audio
format's; -O x.wav is refused rather than written with MP3 bytes in it). Without -O,
the audio goes to stdout, which must not be a terminal.

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
  // The service sends previews as MP3 only: an audio file name of another format would get MP3 bytes under a wrong name.
  const ext = file ? extname(file).slice(1).toLowerCase() : '';
  if (OTHER_AUDIO.has(ext)) {
    const mp3 = `${file!.slice(0, -ext.length)}mp3`;
    throw new UsageError(
      `voice previews are MP3 (audio/mpeg), and -O ${file} names a ${ext.toUpperCase()} file`,
      `name it ${mp3}, or convert the stream yourself: vap voices preview ${voiceId} | ffmpeg -i - ${file}`,
    );
  }
  if (file !== undefined) await checkWritable(file);

  const api = await ctx.api();
  const res = await streamVoicePreview(api, voiceId, ctx.signal);
  const type = res.contentType?.split(';')[0]?.trim().toLowerCase();
  if (!type?.startsWith('audio/')) {
    res.body.resume?.();
    throw new CliError(
      `expected audio (audio/mpeg) for the preview of voice ${voiceId}, got ${type ?? 'no content type'}${res.requestId ? ` (request id ${res.requestId})` : ''}`,
    );
  }

  // Streamed, never held whole: to stdout, or through a temporary file renamed once every announced byte arrived.
  const expectedBytes = announcedLength(res.headers);
  if (file === undefined) {
    await copyToStream(res.body, ctx.io.stdout, { signal: ctx.signal, expectedBytes });
    return;
  }
  await saveToFile(res.body, file, { signal: ctx.signal, expectedBytes });
  const { size } = await stat(file);
  await ctx.success(`Saved the preview of voice ${voiceId} to ${file} (${formatBytes(size)})`);
}
