import { Lexer, type Token, type Tokens } from 'marked';
import { safeLines } from '../ui/safe-text.js';
import { wrapText } from '../ui/wrap.js';

/**
 * A manual page (Markdown) as plain text wrapped for a terminal, what `vap help <topic>` prints
 * (the layout: src/help/README.md). vap's own text, still made safe as all terminal text is.
 */
export function renderMarkdown(markdown: string, width: number, topics: readonly string[] = []): string {
  topicNames = topics;
  const out: string[] = [];
  let indent = 0;
  const blank = () => {
    if (out.length > 0 && out[out.length - 1] !== '') out.push('');
  };
  const emit = (lines: string[]) => out.push(...lines);

  for (const token of Lexer.lex(markdown)) {
    if (token.type === 'heading') {
      const h = token as Tokens.Heading;
      const text = inline(h.tokens);
      blank();
      if (h.depth <= 1) {
        indent = 0;
        emit(wrap(text, width));
      } else if (h.depth === 2) {
        emit(wrap(text, width));
        indent = 2;
      } else {
        emit(pad(wrap(text, width - 2), 2));
        indent = 4;
      }
      continue;
    }
    const lines = block(token, width - indent);
    if (lines === undefined) continue;
    if (token.type !== 'space') blank();
    emit(pad(lines, indent));
  }
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  return `${safeLines(out.join('\n'))}\n`;
}

/** A topic's page for the terminal: Markdown rendered and wrapped, plain text as written (made safe). */
export function renderTopic(source: { format: 'md' | 'txt'; text: string }, width: number, topics: readonly string[] = []): string {
  return source.format === 'txt' ? `${safeLines(source.text).trimEnd()}\n` : renderMarkdown(source.text, width, topics);
}

/** The topics' names, for links (set by renderMarkdown for the page it renders). */
let topicNames: readonly string[] = [];

const pad = (lines: string[], n: number) => lines.map((l) => (l ? ' '.repeat(n) + l : l));

/** A block's lines at `width` columns; undefined for what is not shown (HTML, spaces). */
function block(token: Token, width: number): string[] | undefined {
  switch (token.type) {
    case 'paragraph':
      return wrapInline((token as Tokens.Paragraph).tokens, width);
    case 'text': {
      const t = token as Tokens.Text;
      return wrapInline(t.tokens ?? [{ type: 'text', raw: t.text, text: t.text }], width);
    }
    case 'code':
      return pad((token as Tokens.Code).text.split('\n'), 2);
    case 'list':
      return list(token as Tokens.List, width);
    case 'table':
      return table(token as Tokens.Table, width);
    case 'blockquote':
      return pad(blocks((token as Tokens.Blockquote).tokens, width - 2), 2);
    case 'hr':
      return [];
    default:
      return undefined;
  }
}

/** Blocks in a row (a list item's, a quote's), a blank line between two that are not text. */
function blocks(tokens: Token[], width: number): string[] {
  const out: string[] = [];
  let prev: string | undefined;
  for (const t of tokens) {
    const lines = block(t, width);
    if (lines === undefined) continue;
    if (prev !== undefined && !(prev === 'text' && t.type === 'list') && out[out.length - 1] !== '') out.push('');
    out.push(...lines);
    prev = t.type;
  }
  return out;
}

function list(l: Tokens.List, width: number): string[] {
  const out: string[] = [];
  const start = typeof l.start === 'number' ? l.start : 1;
  l.items.forEach((item, i) => {
    const mark = l.ordered ? `${start + i}. ` : '- ';
    const lines = blocks(item.tokens, width - mark.length);
    if (l.loose && i > 0) out.push('');
    lines.forEach((line, j) => out.push(j === 0 ? mark + line : line ? ' '.repeat(mark.length) + line : line));
  });
  return out;
}

/**
 * A table as columns two spaces apart, the header first. When the natural widths do not
 * fit, each column gets its natural width or a fair share of what is left, narrowest first,
 * and its cells wrap within it.
 */
function table(t: Tokens.Table, width: number): string[] {
  const rows = [t.header.map((c) => inline(c.tokens)), ...t.rows.map((r) => r.map((c) => inline(c.tokens)))];
  const n = t.header.length;
  const natural = Array.from({ length: n }, (_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  let room = Math.max(n, width - 2 * (n - 1));
  const widths = new Array<number>(n);
  const order = natural.map((w, i) => ({ w, i })).sort((a, b) => a.w - b.w);
  order.forEach(({ w, i }, k) => {
    widths[i] = Math.max(1, Math.min(w, Math.floor(room / (n - k))));
    room -= widths[i]!;
  });
  const out: string[] = [];
  for (const row of rows) {
    const cells = row.map((c, i) => wrap(c, widths[i]!));
    const height = Math.max(...cells.map((c) => c.length));
    for (let k = 0; k < height; k++) {
      out.push(
        cells
          .map((c, i) => (i === n - 1 ? (c[k] ?? '') : (c[k] ?? '').padEnd(widths[i]!)))
          .join('  ')
          .trimEnd(),
      );
    }
  }
  return out;
}

const NBSP = '\u00a0';

/** Wrapped text, its unbreakable spaces (see inline) made plain again. */
function wrap(text: string, width: number): string[] {
  return wrapText(text, width).map((l) => l.replaceAll(NBSP, ' '));
}

function wrapInline(tokens: Token[], width: number): string[] {
  return wrap(inline(tokens).replace(/[ \t]*\n[ \t]*/g, ' '), width);
}

/** Inline Markdown as plain text: marks dropped, links followed by where they lead. */
function inline(tokens: Token[] | undefined): string {
  let s = '';
  for (const t of tokens ?? []) {
    switch (t.type) {
      case 'text':
      case 'escape':
        s += 'tokens' in t && t.tokens ? inline(t.tokens as Token[]) : decode((t as Tokens.Text).text);
        break;
      case 'codespan': {
        // A short piece of code (`1m 53s`, `--min-score 0.8`) is not broken across lines.
        const code = decode((t as Tokens.Codespan).text);
        s += code.length <= 24 ? code.replace(/ /g, NBSP) : code;
        break;
      }
      case 'strong':
      case 'em':
      case 'del':
        s += inline((t as Tokens.Strong).tokens);
        break;
      case 'link': {
        const l = t as Tokens.Link;
        const text = inline(l.tokens);
        const where = linkTarget(l.href, topicNames);
        // [profiles](profiles.md) reads `vap help profiles`; [the flags](profiles.md) `the flags (vap help profiles)`.
        if (where && (where === `vap help ${text}` || where === `vap ${text} --help` || where === text)) s += where;
        else s += where ? `${text} (${where})` : text;
        break;
      }
      case 'br':
        s += '\n';
        break;
      default:
        break;
    }
  }
  return s;
}

/**
 * Where a manual link leads, said for a terminal: a topic as `vap help ci`, a group's page as
 * `vap agents --help`, a web page as its address, a repository file as its path, another docs/
 * page as `docs/<page>`; nothing for an anchor of the same page.
 */
export function linkTarget(href: string, topics: readonly string[]): string | undefined {
  if (/^https?:\/\//.test(href)) return href;
  const path = href.replace(/#.*$/, '');
  if (!path) return undefined;
  const group = /^commands\/([\w-]+)\.md$/.exec(path);
  if (group) return `vap ${group[1]} --help`;
  const topic = /^([\w-]+)\.md$/.exec(path);
  if (topic && topics.includes(topic[1]!)) return `vap help ${topic[1]}`;
  if (path.startsWith('../')) return path.slice(3);
  return `docs/${path}`;
}

/** The entities marked leaves in text (it escapes for HTML only when rendering). */
function decode(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]!);
}
