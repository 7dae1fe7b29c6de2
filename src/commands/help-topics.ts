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

/**
 * A topic's page as plain text for a terminal, wrapped to `width` columns (what `vap help
 * <name>` prints, without the line that points to a command of the same name). Empty for
 * no such topic.
 */
export function helpTopicText(name: string, width = 80): string {
  const topics = listTopics();
  if (!topics.some((t) => t.name === name)) return '';
  return renderTopic(topicSource(name), width, topics.map((t) => t.name)).trimEnd();
}
