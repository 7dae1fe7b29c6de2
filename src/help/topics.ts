import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { Command } from 'commander';
import { wrapText } from '../ui/wrap.js';

/**
 * The manual's topics (`vap help <topic>`), one file each in src/help/topics/ (the format:
 * src/help/README.md). Only lists and reads them: the renderer loads when a topic is shown, so
 * the root help and `vap <group> --help` never load a Markdown parser.
 */

export interface Topic {
  name: string;
  aliases: string[];
  summary: string;
  /** `md`: Markdown, rendered and wrapped; `txt`: plain text, printed as written. */
  format: 'md' | 'txt';
}

const TOPIC_FILE = /^([\w-]+)\.(md|txt)$/;

/** The folder of the topic files: dist/topics/ beside the bundle's entry, src/help/topics/ beside this module. */
export function topicsFolder(): URL {
  return new URL('./topics/', import.meta.url);
}

/** The front matter's `key: value` lines and the Markdown after it. */
export function splitFrontMatter(text: string): { meta: Record<string, string>; body: string } {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n/.exec(text);
  if (!m) return { meta: {}, body: text };
  const meta: Record<string, string> = {};
  for (const line of m[1]!.split(/\r?\n/)) {
    const kv = /^([\w-]+):\s*(.*?)\s*$/.exec(line);
    if (kv) meta[kv[1]!] = kv[2]!;
  }
  return { meta, body: text.slice(m[0].length) };
}

let listed: Topic[] | undefined;

/** Every topic, by name (the file names of the folder, without .md). */
export function listTopics(): Topic[] {
  if (!listed) {
    const folder = topicsFolder();
    listed = readdirSync(folder)
      .sort()
      .flatMap((f) => {
        const m = TOPIC_FILE.exec(f);
        if (!m) return [];
        const { meta } = splitFrontMatter(readFileSync(new URL(f, folder), 'utf8'));
        return [
          {
            name: m[1]!,
            format: m[2] as Topic['format'],
            aliases: (meta.aliases ?? '')
              .split(',')
              .map((a) => a.trim())
              .filter(Boolean),
            summary: meta.summary ?? '',
          },
        ];
      });
  }
  return listed;
}

/** A topic's page, without the front matter: Markdown, or plain text (see Topic.format). */
export function topicSource(name: string): { format: Topic['format']; text: string } {
  const format = listTopics().find((t) => t.name === name)?.format ?? 'md';
  return { format, text: splitFrontMatter(readFileSync(new URL(`${name}.${format}`, topicsFolder()), 'utf8')).body };
}

/** Whether a topic is named like a command group (one stat, no file read): its text ends the group's help. */
export function isGroupTopic(name: string): boolean {
  return ['md', 'txt'].some((ext) => existsSync(new URL(`${name}.${ext}`, topicsFolder())));
}

/**
 * Adds the topics as hidden commands, so that they stay out of the command list and the root
 * help lists them apart; a topic named like a group is left to the group (src/help/README.md).
 */
export function addHelpTopics(program: Command, groups: readonly string[], commands: readonly string[] = []): void {
  for (const t of listTopics()) {
    if (groups.includes(t.name)) continue;
    const cmd = new Command(t.name).description(t.summary).helpOption(false);
    if (t.aliases.length) cmd.aliases(t.aliases);
    cmd.allowUnknownOption().allowExcessArguments();
    cmd.action(async () => {
      const { renderTopic } = await import('./render.js');
      const width = cmd.configureOutput().getOutHelpWidth?.() ?? 80;
      const page = renderTopic(
        topicSource(t.name),
        Math.max(40, width),
        listTopics().map((x) => x.name),
      );
      cmd.configureOutput().writeOut?.(commands.includes(t.name) ? `${page.trimEnd()}\n\n${pointerToCommand(t.name, Math.max(40, width))}\n` : page);
    });
    program.addCommand(cmd, { hidden: true });
  }
}

/** The line that ends a topic named like a command: where that command's own help is (wrapped within `width`). */
export function pointerToCommand(name: string, width = 80): string {
  return wrapText(`See also: vap ${name} --help (the command's usage and options)`, width, [`vap ${name} --help`]).join('\n');
}

/** The line that ends the help of a command named like a topic: where the topic is (wrapped within `width`). */
export function pointerToTopic(name: string, width = 80): string {
  return wrapText(`See also: vap help ${name} (the manual's page)`, width, [`vap help ${name}`]).join('\n');
}

/** The root help's list of topics, each summary wrapped under itself within `width` columns. */
export function helpTopicsText(width = 80): string {
  const topics = listTopics();
  const name = Math.max(...topics.map((t) => t.name.length));
  const indent = 2 + 'vap help '.length + name + 2;
  const room = Math.max(20, width - indent);
  const lines = topics.map((t) => {
    const rows = wrapText(t.summary, room);
    return [`  vap help ${t.name.padEnd(name)}  ${rows[0]}`, ...rows.slice(1).map((r) => ' '.repeat(indent) + r)].join('\n');
  });
  return `Help topics:\n${lines.join('\n')}`;
}
