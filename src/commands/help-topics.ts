import type { Command } from 'commander';
import { renderTopic } from '../help/render.js';
import { listTopics, topicSource } from '../help/topics.js';

/**
 * Help topics: `vap help <topic>` (and `vap <topic>`) print a page of the manual that is not
 * about one command, as gh's `gh help environment` does. Each topic is a file,
 * src/help/topics/<name>.md (Markdown, rendered and wrapped) or <name>.txt (plain text,
 * printed as written): see src/help/topics.ts, which adds them to the program and lists them
 * in the root help. Adding a topic is adding a file there. `npm run docs` writes the same
 * pages to docs/.
 */

export { addHelpTopics, helpTopicsText } from '../help/topics.js';

/** The topics whose text a group's own help has taken (see helpTopicText). */
const inGroupHelp = new Set<string>();

/**
 * A topic's page as plain text for a terminal, wrapped to `width` columns: for a command
 * group that is also a topic (`vap mcp`), whose help ends with it. A group that adds it
 * itself is left alone by the program (which otherwise adds it: src/program.ts). Empty for
 * no such topic.
 */
export function helpTopicText(name: string, width = 80): string {
  inGroupHelp.add(name);
  return topicText(name, width);
}

function topicText(name: string, width: number): string {
  const topics = listTopics();
  if (!topics.some((t) => t.name === name)) return '';
  return renderTopic(topicSource(name), width, topics.map((t) => t.name)).trimEnd();
}

/**
 * Makes a group's help end with the topic of its name (`vap help emulator`), unless the
 * group's module added it itself; the text is rendered when the help is shown, to its width.
 */
export function endGroupHelpWithTopic(group: Command): void {
  const name = group.name();
  if (inGroupHelp.has(name)) return;
  group.addHelpText('after', () => `\n${topicText(name, Math.max(40, group.configureOutput().getOutHelpWidth?.() ?? 80))}`);
}
