import { renderMarkdown } from '../help/render.js';
import { listTopics, topicMarkdown } from '../help/topics.js';

/**
 * Help topics: `vap help <topic>` (and `vap <topic>`) print a page of the manual that is not
 * about one command, as gh's `gh help environment` does. Each topic is a Markdown file,
 * src/help/topics/<name>.md (see src/help/topics.ts, which adds them to the program and lists
 * them in the root help); adding a topic is adding a file there. `npm run docs` writes the
 * same pages to docs/.
 */

export { addHelpTopics, helpTopicsText } from '../help/topics.js';

/**
 * A topic's page as plain text for a terminal, wrapped to `width` columns: for a command
 * group that is also a topic (`vap mcp`), whose help ends with it. Empty for no such topic.
 */
export function helpTopicText(name: string, width = 80): string {
  const topics = listTopics();
  if (!topics.some((t) => t.name === name)) return '';
  return renderMarkdown(topicMarkdown(name), width, topics.map((t) => t.name)).trimEnd();
}
