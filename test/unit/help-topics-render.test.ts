import { readdirSync, readFileSync } from 'node:fs';
import { Lexer, type Token, type Tokens } from 'marked';
import { describe, expect, it } from 'vitest';
import { linkTarget, renderMarkdown } from '../../src/help/render.js';
import { listTopics, splitFrontMatter, topicSource } from '../../src/help/topics.js';

// The manual's topics (src/help/topics/*.md) as `vap help <topic>` prints them: plain text
// wrapped to the width (code blocks whole), no Markdown marks left, nothing unsafe.

const folder = new URL('../../src/help/topics/', import.meta.url);
const names = () => listTopics().map((t) => t.name);

/** The lines of a page's code blocks (exempt from wrapping: a command is copied whole). */
function codeLines(md: string): Set<string> {
  const out = new Set<string>();
  const walk = (tokens: Token[]) => {
    for (const t of tokens) {
      if (t.type === 'code') for (const l of (t as Tokens.Code).text.split('\n')) out.add(l.trim());
      if ('tokens' in t && Array.isArray(t.tokens)) walk(t.tokens as Token[]);
      if (t.type === 'list') for (const i of (t as Tokens.List).items) walk(i.tokens);
    }
  };
  walk(Lexer.lex(md));
  return out;
}

describe('help topics', () => {
  it('include environment, exit codes, formatting, profiles, as-code, CI, the emulator and accessibility (alias a11y), each with a summary', () => {
    expect(names()).toEqual(expect.arrayContaining(['environment', 'exit-codes', 'formatting', 'profiles', 'as-code', 'ci', 'emulator', 'accessibility']));
    for (const t of listTopics()) expect(t.summary.length, t.name).toBeGreaterThan(10);
    expect(listTopics().find((t) => t.name === 'accessibility')?.aliases).toEqual(['a11y']);
  });

  it('have a front matter of `key: value` lines (the value is the rest of the line), and a title', () => {
    for (const f of readdirSync(folder).filter((x) => /\.(md|txt)$/.test(x))) {
      const text = readFileSync(new URL(f, folder), 'utf8');
      const { meta, body } = splitFrontMatter(text);
      expect(
        Object.keys(meta).every((k) => ['summary', 'aliases'].includes(k)),
        f,
      ).toBe(true);
      expect(meta.summary, f).toBeTruthy();
      if (f.endsWith('.md')) expect(body, f).toMatch(/^# \S/);
    }
  });

  it.each([40, 60, 80, 120])('render at %i columns: every line but a code block’s fits, no Markdown mark is left', (width) => {
    for (const name of names()) {
      const { format, text: md } = topicSource(name);
      if (format === 'txt') continue;
      const code = codeLines(md);
      const text = renderMarkdown(md, width, names());
      const prose = text.split('\n').filter((line) => !code.has(line.trim()));
      for (const line of prose) expect(line.length, `${name} at ${width}: ${line}`).toBeLessThanOrEqual(width);
      // (`***` is a masked password, `<!-- vap-evals …` the marker a report starts with: text.)
      expect(prose.join('\n'), name).not.toMatch(/\*\*\w|\]\(|<!-- not run|^#+ |^\||`/m);
    }
  });

  it('a code block keeps its lines whole, indented under its section', () => {
    const text = renderMarkdown(
      '# T\n\n## S\n\nRun:\n\n```sh\nvap agents list --all -o ndjson > agents.ndjson --and-a-very-long-flag-that-does-not-fit\n```\n',
      40,
    );
    expect(text).toBe('T\n\nS\n\n  Run:\n\n    vap agents list --all -o ndjson > agents.ndjson --and-a-very-long-flag-that-does-not-fit\n');
  });

  it('a table becomes aligned columns, wrapped within the width; lists keep their marks', () => {
    const text = renderMarkdown(
      '| code | meaning |\n|---|---|\n| 0 | success |\n| 2 | usage: bad flag, argument, setting or input; nothing was sent |\n\n- one\n- two\n\n1. first\n',
      40,
    );
    expect(text).toBe('code  meaning\n0     success\n2     usage: bad flag, argument, setting\n      or input; nothing was sent\n\n- one\n- two\n\n1. first\n');
  });

  it('short code is never broken across lines; links read as where they lead', () => {
    expect(renderMarkdown('Durations read `1m 53s` here and there and everywhere.', 20)).toBe('Durations read\n1m 53s here and\nthere and\neverywhere.\n');
    expect(linkTarget('ci.md', ['ci'])).toBe('vap help ci');
    expect(linkTarget('commands/agents.md', [])).toBe('vap agents --help');
    expect(linkTarget('../src/emulator/README.md', [])).toBe('src/emulator/README.md');
    expect(linkTarget('https://jmespath.org', [])).toBe('https://jmespath.org');
    expect(linkTarget('#anchor', [])).toBeUndefined();
    expect(renderMarkdown('See [ci](ci.md) and [the gates](ci.md#gates).', 80, ['ci'])).toBe('See vap help ci and the gates (vap help ci).\n');
  });

  it('nothing unsafe reaches the terminal, even from a topic file', () => {
    const text = renderMarkdown('# Title\u001b]0;x\u0007\n\nA \u001b[2J paragraph \u202e.\n\n```\ncode \u001b[31m\n```\n', 80);
    expect(text).not.toMatch(/[\u001b\u0007\u202e]/);
    expect(text).toContain('\\e]0;x\\x07');
  });
});
