import { Command, CommanderError, Option } from 'commander';
import type { GlobalOptions } from './context.js';
import { EXIT_CODES_HELP } from './exit-codes.js';
import { GROUPS } from './commands/registry.js';
import { addHelpTopics, helpTopicsText } from './commands/help-topics.js';
import type { ContextFactory } from './commands/types.js';
import { FORMATS } from './ui/format.js';
import { safeLines } from './ui/safe-text.js';
import { version } from './version.js';
import type { Writable } from 'node:stream';

/** Global options that take a value, so that their values are not taken for a group name. */
const VALUE_OPTIONS = new Set(['--profile', '--base-url', '-o', '--output', '--query']);

/**
 * The group named on the command line, if any: the first word that is not an option
 * or an option's value (`vap help agents` names agents).
 */
export function groupInArgv(argv: string[]): string | undefined {
  let sawHelp = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') return argv[i + 1];
    if (a.startsWith('-')) {
      if (VALUE_OPTIONS.has(a)) i++;
      continue;
    }
    if (a === 'help' && !sawHelp) {
      sawHelp = true;
      continue;
    }
    return a;
  }
  return undefined;
}

export interface ProgramIO {
  stdout: Writable;
  stderr: Writable;
}

/**
 * Builds the command tree. With `loadAll`, every group's verbs are loaded (for
 * completions); otherwise only the group in argv is.
 */
export async function buildProgram(argv: string[], io: ProgramIO, makeContext: ContextFactory, loadAll = false): Promise<Command> {
  const wanted = loadAll ? undefined : groupInArgv(argv);
  const program = new Command('vap').description('The command line for the Voice Agent Platform: agents, voices, evals, live events, webhooks, calls, campaigns, contacts, and a local emulator.');
  // Only at the top level: a verb may have a --version option of its own (agents rollback).
  if (!wanted) program.version(`vap ${version()}`, '-V, --version', 'print the version');
  program
    .option('--profile <name>', 'config profile to use (env VAP_PROFILE)')
    .option('--base-url <url>', 'API base URL (env VAP_BASE_URL)')
    .addOption(new Option('-o, --output <format>', 'output format').choices(FORMATS))
    .option('--json', 'same as -o json')
    .option('--query <expr>', 'JMESPath expression applied to the JSON data before printing')
    .option('-q, --quiet', 'print only ids')
    .option('--no-color', 'no colour (also NO_COLOR)')
    .option('--no-input', 'never prompt (also when stdin is not a terminal, or CI is set)')
    .option('-y, --yes', 'confirm destructive actions without asking')
    .option('--verbose', 'log each HTTP request and response to stderr, key redacted')
    .option('--absolute-times', 'exact ISO 8601 times on a terminal too (relative there by default)')
    .helpCommand('help [command]', 'show help for a command')
    .addHelpText(
      'after',
      `
Environment:
  VAP_API_KEY    API key (never a flag, so it stays out of shell history)
  VAP_BASE_URL   API base URL
  VAP_PROFILE    config profile
  NO_COLOR       turn colour off
  VAP_ACCESSIBLE plain lines instead of spinners, bars and redraws (also ACCESSIBLE)

${EXIT_CODES_HELP}

${helpTopicsText()}

Examples:
  $ vap emulator start --port 4010
  $ vap auth login
  $ vap agents list
  $ vap agents create --name Reception --instructions "Greet callers" --engine realtime`,
    );

  addHelpTopics(program);
  for (const g of GROUPS) {
    const group = program.command(g.name).description(g.description);
    if (g.aliases) group.aliases(g.aliases);
    if (loadAll || g.name === wanted || (wanted !== undefined && g.aliases?.includes(wanted))) {
      const mod = await g.load();
      await mod.register(group, makeContext, { fullTree: () => buildProgram([], io, makeContext, true) });
    }
  }
  configureTree(program, io);
  return program;
}

/** Settings every command needs; commands built with `new Command()` do not inherit them. */
function configureTree(cmd: Command, io: ProgramIO): void {
  cmd
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      // Commander's errors echo the arguments (an id pasted from elsewhere): made safe.
      writeErr: (s) => io.stderr.write(safeLines(s)),
    })
    .showSuggestionAfterError(true)
    .showHelpAfterError(`(run \`${commandPath(cmd)} --help\` for usage)`)
    // A verb's help lists the global flags it takes under a heading of their own, as gh does.
    .configureHelp({ ...cmd.configureHelp(), showGlobalOptions: true });
  for (const sub of cmd.commands) configureTree(sub, io);
}

/**
 * `vap help <command…>` (and `vap agents help <verb>`) as the argv Commander handles best:
 * - a command path that does not exist drops the word "help", so that Commander reports the
 *   unknown command with its suggestion and exit 2, as `vap <typo>` does (alone it would
 *   print the parent's help and exit 0);
 * - a known path becomes `<path…> --help`, so that `vap help agents list` shows the help of
 *   `agents list` (alone Commander would show that of `agents`).
 * Undefined when argv asks for no help.
 */
export function helpArgv(program: Command, argv: string[]): string[] | undefined {
  let cmd = program;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') return undefined;
    if (a.startsWith('-')) {
      if (VALUE_OPTIONS.has(a)) i++;
      continue;
    }
    if (a === 'help' && cmd.commands.length > 0) {
      let target = cmd;
      for (let j = i + 1; j < argv.length; j++) {
        const w = argv[j]!;
        if (w.startsWith('-')) continue;
        if (target.commands.length === 0) return undefined;
        const sub = findCommand(target, w);
        if (!sub) return [...argv.slice(0, i), ...argv.slice(i + 1)];
        target = sub;
      }
      return target === cmd ? undefined : [...argv.slice(0, i), ...argv.slice(i + 1), '--help'];
    }
    const sub = findCommand(cmd, a);
    if (!sub) return undefined;
    cmd = sub;
  }
  return undefined;
}

function findCommand(cmd: Command, name: string): Command | undefined {
  return cmd.commands.find((c) => c.name() === name || c.aliases().includes(name));
}

export function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** Commander's own errors: help and version exit 0; everything else is a usage error (exit 2). */
export function commanderExitCode(err: CommanderError): number {
  if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return 0;
  return 2;
}

export type { GlobalOptions };
