import type { Command } from 'commander';
import type { ProjectPort } from '../../ascode/port.js';
import type { Context } from '../../context.js';

// Only what --help needs is imported here: the verbs load src/ascode/ (yaml, zod, the
// plan) when they run.

/** `-C, --dir`: where the walk up to vap.yaml starts (default: the current directory). */
export function addDirOption(cmd: Command): Command {
  return cmd.option('-C, --dir <path>', 'the project folder, or a folder inside it (default: the current directory)');
}

export interface DirOptions {
  dir?: string;
}

export { checkProfileName, currentProfile } from '../../config/profile-name.js';

/** What src/ascode's opening, planning and sync guards say and ask through, from a verb's Context. */
export function projectPort(ctx: Context): ProjectPort {
  return {
    signal: ctx.signal,
    api: () => ctx.api(),
    credentials: () => ctx.credentials(),
    credentialsFor: (profile) => ctx.credentialsFor(profile),
    info: (line) => ctx.info(line),
    warn: (line) => ctx.warn(line),
    note: (line) => ctx.note(line),
    spinner: (text) => ctx.spinner(text),
    yes: Boolean(ctx.globals.yes),
    confirm: ctx.prompter.canPrompt ? (question) => ctx.prompter.confirm(question, { flag: '--yes', default: false }) : undefined,
  };
}

/** Whether stdout takes data for a program (JSON, or any -o other than a table). */
export function machineOutput(ctx: Context): boolean {
  const g = ctx.globals;
  return Boolean(g.json || g.query || (g.output && g.output !== 'table'));
}

/**
 * Writes text for a person on stdout: wrapped to the terminal's width on a terminal
 * (src/ui/fit.ts, loaded then only: its libraries take tens of milliseconds to load, and a
 * piped command writes the text as it is).
 */
export async function writeFitted(ctx: Context, text: string): Promise<void> {
  const width = ctx.tableFit().width;
  if (width === undefined) {
    ctx.io.stdout.write(text);
    return;
  }
  const { wrapLines } = await import('../../ui/fit.js');
  ctx.io.stdout.write(wrapLines(text, width));
}

export const PROJECT_HELP = `A project folder holds vap.yaml (format version, the profiles it pushes to,
per-profile vars and tool ids), agents/<slug>/agent.md (YAML front matter, then the
instructions byte for byte), agents/<slug>/evals/<suite>.yaml, webhooks/<slug>.yaml,
and .vap/state.<profile>.json (ids and hashes of the last sync; commit it). vap finds
vap.yaml by walking up from the current directory (or from --dir).`;

/**
 * Most of what the as-code commands allocate dies young, so a young generation that grows fast spends less
 * time in scavenges (figures in docs/performance.md). V8 reads the flags at each growth decision.
 */
export async function growYoungGenerationFast(): Promise<void> {
  const [v8, { setV8Flags }] = await Promise.all([import('node:v8'), import('../../v8-flags.js')]);
  try {
    setV8Flags(v8, '--semi-space-growth-factor=4 --max-semi-space-size=32');
  } catch {
    // an engine without the flags: nothing to do
  }
}
