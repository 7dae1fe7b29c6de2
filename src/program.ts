import { Command, type CommanderError, Option } from 'commander';
import { EXIT_CODES_HELP } from './exit-codes.js';
import { GROUPS, type GroupEntry } from './commands/registry.js';
import { HELP_LAYOUT } from './help/layout.js';
import { addHelpTopics, helpTopicsText, isGroupTopic, pointerToTopic } from './help/topics.js';
import { isSubgroup, type CommandEntry, type ContextFactory, type GroupHost, type SubgroupEntry, type VerbEntry } from './commands/types.js';
import { FORMATS } from './ui/format.js';
import { safeLines } from './ui/safe-text.js';
import { nearestCommands } from './ui/suggest.js';
import { wrapText } from './ui/wrap.js';
import { version } from './version.js';
import { readFileSync } from 'node:fs';
import type { Writable } from 'node:stream';

/**
 * The group named on the command line, if any: the first word that is not an option
 * or the value of a global option that takes one (`vap help agents` names agents). What
 * the program falls back on when the command line is not plain (see resolveCommandLine).
 */
function groupInArgv(argv: string[], takesValue: (flag: string) => boolean | undefined): string | undefined {
  let sawHelp = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') return argv[i + 1];
    if (a.startsWith('-')) {
      if (takesValue(a)) i++;
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

/** The package version, written in by the bundle; its presence says that this is the bundle (see verbStubs). */
declare const __VAP_VERSION__: string | undefined;

/** What the command line names, as far as the program needs to know before building the tree. */
export interface CommandLine {
  /** Nothing is certain (an option vap does not know comes first): the tree is built as it always was. */
  fallback?: true;
  /** `vap help <name>` where a help topic and a command group share the name: the topic, not the group. */
  topic?: string;
  /** The group named, if any (or, under fallback, the word taken for one). */
  group?: GroupEntry;
  groupWord?: string;
  /**
   * The verb (and the subgroups on its way) when the command line names one plainly: then
   * only that verb is built and loaded. Undefined when the group's whole tree is wanted: its
   * help, a word that is not one of its verbs (for the suggestion), or anything unusual.
   */
  verb?: { subgroups: SubgroupEntry[]; entry: VerbEntry };
  /**
   * The group's tree is wanted only for its names and lines of help (the group's or a
   * subgroup's help, or a mistyped verb's suggestion): no verb can run, so the verbs may be
   * stand-ins made from dist/verbs.json (see addVerbStubs) instead of their modules.
   */
  helpOnly?: true;
}

const named = <T extends { name: string; aliases?: readonly string[] }>(entries: readonly T[], word: string): T | undefined =>
  entries.find((e) => e.name === word || e.aliases?.includes(word));

/**
 * Reads argv against the global options and the command tables without building anything. Any
 * other option before the verb, `help` inside a group, or a non-verb word means the group's whole
 * tree; an unknown option before the group means the tree as always built (groups as names).
 */
export function resolveCommandLine(argv: string[], globals: readonly Option[]): CommandLine {
  const flags = new Map<string, boolean>();
  for (const o of globals) for (const f of [o.short, o.long]) if (f) flags.set(f, o.required || o.optional);
  const takesValue = (a: string) => flags.get(a);
  const known = (a: string) => flags.has(a.startsWith('--') && a.includes('=') ? a.slice(0, a.indexOf('=')) : a);
  const fallback = (): CommandLine => {
    const word = groupInArgv(argv, takesValue);
    return { fallback: true, groupWord: word, group: word === undefined ? undefined : named(GROUPS, word) };
  };

  let i = 0;
  let helpWord = false;
  let group: GroupEntry | undefined;
  for (; i < argv.length && !group; i++) {
    const a = argv[i]!;
    if (a.startsWith('-') && a !== '-') {
      if (a === '--' || !known(a)) return fallback();
      if (takesValue(a)) i++;
      continue;
    }
    if (a === 'help' && !helpWord) {
      helpWord = true;
      continue;
    }
    group = named(GROUPS, a);
    if (!group) return {};
  }
  if (!group) return {};
  // `vap help emulator` alone: the topic of that name (`vap emulator --help` is the command's help).
  if (helpWord && !argv.slice(i).some((w, j) => !w.startsWith('-') && !(j > 0 && takesValue(argv[i + j - 1]!))) && isGroupTopic(group.name))
    return { topic: group.name };
  if (!group.verbs) return { group };

  let entries = group.verbs;
  const subgroups: SubgroupEntry[] = [];
  const positionalAfter = (j: number) => argv.slice(j + 1).some((w) => !w.startsWith('-'));
  for (; i < argv.length; i++) {
    const a = argv[i]!;
    if (a.startsWith('-') && a !== '-') {
      // Commander shows the help of the (sub)group whatever follows -h.
      if (a === '-h' || a === '--help') return { group, helpOnly: true };
      if (a === '--' || !known(a)) return { group };
      if (takesValue(a)) i++;
      continue;
    }
    // `vap agents help` alone is the group's help; with a path after it, the group's tree runs it.
    if (a === 'help') return positionalAfter(i) ? { group } : { group, helpOnly: true };
    const entry = named(entries, a);
    // A word that is no verb: Commander's error and its suggestion, from the names alone.
    if (!entry) return { group, helpOnly: true };
    if (isSubgroup(entry)) {
      subgroups.push(entry);
      entries = entry.verbs;
      continue;
    }
    // `vap help <verb path> <more words>` is Commander's own help command at work: the group's tree.
    if (helpWord && positionalAfter(i)) return { group };
    return { group, verb: { subgroups, entry } };
  }
  // No verb named: the help of the group (or of the subgroup named).
  return { group, helpOnly: true };
}

export interface ProgramIO {
  stdout: Writable;
  stderr: Writable;
  /** Whether stdout is a terminal (Commander wraps help to its width). */
  stdoutIsTTY?: boolean;
  /** Whether stderr is a terminal (Commander's errors then wrap at word boundaries to its width). */
  stderrIsTTY?: boolean;
  /**
   * Writes help and Commander's other output to stdout, in one piece (cli.ts: straight to the
   * file descriptor while the stdout stream is not yet made). The stream's write otherwise.
   */
  writeOut?: (text: string) => void;
}

/**
 * Builds the command tree for argv: the named group with only the named verb (every verb for the
 * group's help or a mistyped verb); the groups as names when none is named. With `loadAll`, every
 * group and verb (completions).
 */
export async function buildProgram(argv: string[], io: ProgramIO, makeContext: ContextFactory, loadAll = false): Promise<Command> {
  let program = rootCommand(false);
  const line: CommandLine = loadAll ? { fallback: true } : resolveCommandLine(argv, program.options);
  const host = { fullTree: () => buildProgram([], io, makeContext, true) };
  // Only at the top level: a verb may have a --version option of its own (agents rollback).
  if (line.fallback ? line.groupWord === undefined : !line.group) program = rootCommand(true);
  // Help topics are top-level words (`vap help accessibility`): not needed once a group is named.
  if (line.topic) {
    // The topic stands in for the group of its name, which is left out of this tree.
    addHelpTopics(
      program,
      GROUPS.map((g) => g.name).filter((n) => n !== line.topic),
      [line.topic],
    );
    for (const g of GROUPS) if (g.name !== line.topic) addGroupName(program, g);
    configureTree(program, io);
    return program;
  }
  if (!line.group || line.fallback)
    addHelpTopics(
      program,
      GROUPS.map((g) => g.name),
    );

  if (line.group && !line.fallback) {
    const stubs = line.helpOnly && line.group.verbs ? verbStubs() : undefined;
    if (stubs) addVerbStubs(addGroupName(program, line.group), line.group.verbs!, stubs, line.group.name);
    else await addGroup(program, line.group, line.verb, makeContext, host);
    // A group named like a help topic (`vap emulator --help`): its help ends with a line that points to the topic.
    if (!line.verb && isGroupTopic(line.group.name)) {
      const group = program.commands.find((c) => c.name() === line.group!.name)!;
      group.addHelpText('after', () => `\n${pointerToTopic(group.name(), Math.max(40, group.configureOutput().getOutHelpWidth?.() ?? 80))}`);
    }
  } else {
    for (const g of GROUPS) {
      if (loadAll || g === line.group) await addGroup(program, g, undefined, makeContext, host);
      else addGroupName(program, g);
    }
  }
  configureTree(program, io);
  return program;
}

function rootCommand(withVersion: boolean): Command {
  const program = new Command('vap').description(
    'The command line for the Voice Agent Platform: agents, voices, evals, live events, webhooks, calls, campaigns, contacts, and a local emulator.',
  );
  if (withVersion) program.version(`vap ${version()}`, '-V, --version', 'print the version');
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
      () => `
Environment:
  VAP_API_KEY    API key (never a flag, so it stays out of shell history)
  VAP_BASE_URL   API base URL
  VAP_PROFILE    config profile
  NO_COLOR       turn colour off
  VAP_ACCESSIBLE plain lines instead of spinners, bars and redraws (also ACCESSIBLE)
  (vap help environment lists them all)

${EXIT_CODES_HELP}

${helpTopicsText()}

Examples:
  $ vap emulator start --port 4010
  $ vap auth login
  $ vap agents list
  $ vap agents create --name Reception --instructions "Greet callers" --engine realtime`,
    );
  return program;
}

/** A group as a name and a line of help, nothing loaded. */
function addGroupName(program: Command, g: GroupEntry): Command {
  const group = program.command(g.name).description(g.description);
  if (g.aliases) group.aliases(g.aliases);
  return group;
}

/** A group with the one verb named (and the subgroups on its way), or with all its verbs. */
async function addGroup(program: Command, g: GroupEntry, verb: CommandLine['verb'], makeContext: ContextFactory, host: GroupHost): Promise<void> {
  const group = addGroupName(program, g);
  if (g.load) {
    const mod = await g.load();
    await mod.register(group, makeContext, host);
    return;
  }
  if (verb) {
    let parent = group;
    for (const s of verb.subgroups) parent = addSubgroup(parent, s);
    parent.addCommand((await verb.entry.load())(makeContext));
    return;
  }
  const factories = new Map(await Promise.all(verbEntries(g.verbs!).map(async (e) => [e, await e.load()] as const)));
  const add = (parent: Command, entries: readonly CommandEntry[]) => {
    for (const e of entries) {
      if (isSubgroup(e)) add(addSubgroup(parent, e), e.verbs);
      else parent.addCommand(factories.get(e)!(makeContext));
    }
  };
  add(group, g.verbs!);
}

/**
 * What a group's help and Commander's suggestions read of a verb, written for every verb into
 * dist/verbs.json by the bundle, so that `vap agents --help` or `vap agents lst` need not load the
 * group's verbs; test/e2e/group-help-stand-ins.test.ts checks them against the real tree.
 */
export interface VerbStub {
  name: string;
  aliases: string[];
  description: string;
  summary?: string;
  hidden?: true;
  options?: true;
  /** `<agentId>`, `[runId]`, `<contactId...>` */
  args?: string[];
  helpGroup?: string;
}

/** Stand-ins of every verb, by command path without `vap ` (`agents list`, `evals runs get`). */
export type VerbStubs = Record<string, VerbStub>;

let stubsRead: VerbStubs | null | undefined;

/** dist/verbs.json beside the bundle, or null (under the TypeScript sources, or unreadable: the real verbs are built then). */
function verbStubs(): VerbStubs | undefined {
  if (stubsRead === undefined) {
    try {
      stubsRead = typeof __VAP_VERSION__ === 'string' ? (JSON.parse(readFileSync(new URL('./verbs.json', import.meta.url), 'utf8')) as VerbStubs) : null;
    } catch {
      stubsRead = null;
    }
  }
  return stubsRead ?? undefined;
}

function addVerbStubs(parent: Command, entries: readonly CommandEntry[], stubs: VerbStubs, path: string): void {
  for (const e of entries) {
    if (isSubgroup(e)) {
      addVerbStubs(addSubgroup(parent, e), e.verbs, stubs, `${path} ${e.name}`);
      continue;
    }
    const s = stubs[`${path} ${e.name}`];
    const cmd = new Command(e.name).description(s?.description ?? '');
    if (s?.summary) cmd.summary(s.summary);
    if (s?.aliases.length) cmd.aliases(s.aliases);
    for (const a of s?.args ?? []) cmd.argument(a);
    if (s?.options) cmd.addOption(new Option('--stand-in').hideHelp());
    if (s?.helpGroup) cmd.helpGroup(s.helpGroup);
    parent.addCommand(cmd, { hidden: Boolean(s?.hidden) });
  }
}

/** The stand-ins of every verb of every group, from a whole tree (see VerbStub). */
export function describeVerbs(program: Command): VerbStubs {
  const out: VerbStubs = {};
  const visit = (cmd: Command, path: string) => {
    for (const sub of cmd.commands) {
      const p = `${path} ${sub.name()}`;
      if (sub.commands.length > 0) {
        visit(sub, p);
        continue;
      }
      const args = sub.registeredArguments.map((a) => (a.required ? `<${a.name()}${a.variadic ? '...' : ''}>` : `[${a.name()}${a.variadic ? '...' : ''}]`));
      const summary = sub.summary();
      const helpGroup = sub.helpGroup();
      out[p] = {
        name: sub.name(),
        aliases: sub.aliases(),
        description: sub.description(),
        ...(summary ? { summary } : {}),
        ...((sub as unknown as { _hidden?: boolean })._hidden ? { hidden: true as const } : {}),
        ...(sub.options.length > 0 ? { options: true as const } : {}),
        ...(args.length ? { args } : {}),
        ...(helpGroup ? { helpGroup } : {}),
      };
    }
  };
  for (const g of GROUPS) {
    const cmd = program.commands.find((c) => c.name() === g.name);
    if (g.verbs && cmd) visit(cmd, g.name);
  }
  return out;
}

function verbEntries(entries: readonly CommandEntry[]): VerbEntry[] {
  return entries.flatMap((e) => (isSubgroup(e) ? verbEntries(e.verbs) : [e]));
}

function addSubgroup(parent: Command, s: SubgroupEntry): Command {
  if (s.inheritSettings) return parent.command(s.name).description(s.description);
  const sub = new Command(s.name).description(s.description);
  parent.addCommand(sub);
  return sub;
}

/**
 * Commander's errors on a terminal: a line wider than it wraps at word boundaries under its own
 * indentation, as vap's messages do (with src/ui/wrap.ts, already in the entry, not src/ui/width.ts;
 * the text is plain, made safe).
 */
function wrapForTerminal(text: string, io: ProgramIO): string {
  const columns = io.stderrIsTTY ? (io.stderr as Writable & { columns?: number }).columns : undefined;
  if (!columns || columns < 20) return text;
  return text
    .split('\n')
    .map((line) => {
      if (line.length <= columns) return line;
      const lead = /^\s*/.exec(line)![0];
      return wrapText(line, columns - lead.length)
        .map((l) => `${lead}${l}`)
        .join('\n');
    })
    .join('\n');
}

/** Settings every command needs; commands built with `new Command()` do not inherit them. */
function configureTree(cmd: Command, io: ProgramIO): void {
  const defaults = cmd.configureOutput();
  cmd
    .exitOverride()
    .configureOutput({
      writeOut: (s) => (io.writeOut ? io.writeOut(s) : io.stdout.write(s)),
      // Commander would ask process.stdout itself (making the stream) even when it is no terminal.
      getOutHelpWidth: () => (io.stdoutIsTTY ? defaults.getOutHelpWidth?.() : undefined) as number,
      getOutHasColors: () => Boolean(io.stdoutIsTTY && defaults.getOutHasColors?.()),
      // Commander's errors echo the arguments (an id pasted from elsewhere): made safe.
      writeErr: (s) => io.stderr.write(wrapForTerminal(safeLines(s), io)),
    })
    .showSuggestionAfterError(true)
    .showHelpAfterError(`(run \`${commandPath(cmd)} --help\` for usage)`)
    // A verb's help lists the global flags it takes under a heading of their own, as gh does;
    // the layout (src/help/layout.ts) wraps within any width and puts a group's commands first.
    .configureHelp({ ...cmd.configureHelp(), ...HELP_LAYOUT, showGlobalOptions: true });
  suggestCommandsOnce(cmd);
  for (const sub of cmd.commands) configureTree(sub, io);
}

/**
 * An unknown command's error as Commander words it, but its suggestion names each command
 * once (Commander offers a command and its alias as two: `list, ls`).
 */
function suggestCommandsOnce(cmd: Command): void {
  (cmd as unknown as { unknownCommand: () => never }).unknownCommand = function unknownCommand(this: Command) {
    const word = this.args[0] ?? '';
    const visible = this.createHelp().visibleCommands(this);
    const similar = nearestCommands(
      word,
      visible.map((c) => ({ name: c.name(), aliases: c.aliases() })),
    ).sort((a, b) => a.localeCompare(b));
    const suggestion = similar.length > 1 ? `\n(Did you mean one of ${similar.join(', ')}?)` : similar.length === 1 ? `\n(Did you mean ${similar[0]}?)` : '';
    this.error(`error: unknown command '${word}'${suggestion}`, { code: 'commander.unknownCommand' });
  };
}

/**
 * `vap help <command…>` as argv Commander handles best: an unknown path drops "help", so that it is
 * reported with a suggestion and exit 2 as `vap <typo>` is; a known path becomes `<path…> --help`,
 * so that `vap help agents list` shows `agents list`'s help. Undefined when argv asks for no help.
 */
export function helpArgv(program: Command, argv: string[]): string[] | undefined {
  const valueFlags = new Set(program.options.filter((o) => o.required || o.optional).flatMap((o) => [o.short, o.long]));
  const unknown = unknownUnderHelp(program, argv, valueFlags);
  if (unknown) return unknown;
  let cmd = program;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') return undefined;
    if (a.startsWith('-')) {
      if (valueFlags.has(a)) i++;
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

/**
 * `vap nosuch --help`: a word that names no command where one is expected, with a help flag.
 * Commander would show the parent's help and exit 0; the flags are dropped so that the word is
 * reported as an unknown command (suggestion, exit 2). Undefined when there is nothing to do.
 */
function unknownUnderHelp(program: Command, argv: string[], valueFlags: Set<string | undefined>): string[] | undefined {
  const end = argv.indexOf('--');
  const words = end < 0 ? argv : argv.slice(0, end);
  const isHelp = (a: string) => a === '-h' || a === '--help';
  if (!words.some(isHelp)) return undefined;
  let cmd = program;
  for (let i = 0; i < words.length; i++) {
    const a = words[i]!;
    if (a.startsWith('-')) {
      if (valueFlags.has(a)) i++;
      continue;
    }
    // `vap help …` is handled by helpArgv; a command that takes arguments reads the word as one.
    if (a === 'help' || cmd.commands.length === 0 || cmd.registeredArguments.length > 0) return undefined;
    const sub = findCommand(cmd, a);
    if (!sub) return argv.filter((w, j) => !(isHelp(w) && (end < 0 || j < end)));
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
