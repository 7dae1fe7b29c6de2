import { renderTopic } from '../help/render.js';
import { listTopics, topicSource } from '../help/topics.js';

/**
 * Help topics: `vap help <topic>` (and `vap <topic>`) print a page of the manual about no one
 * command, as `gh help environment` does. Adding one is adding src/help/topics/<name>.md (rendered)
 * or .txt (printed as written): see src/help/topics.ts. `npm run docs` writes them to docs/ too.
 */

/**
 * A topic's page as plain text for a terminal, wrapped to `width` columns (what `vap help
 * <name>` prints, without the line that points to a command of the same name). Empty for
 * no such topic.
 */
export function helpTopicText(name: string, width = 80): string {
  const topics = listTopics();
  if (!topics.some((t) => t.name === name)) return '';
  return renderTopic(
    topicSource(name),
    width,
    topics.map((t) => t.name),
  ).trimEnd();
}
