import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Lexer, type Token, type Tokens } from 'marked';

/**
 * The examples of the README and of docs/: every command of a ```sh block (a line, with the
 * lines it continues with `\`), and every `$ vap …` line of a ```console or ```text block
 * (the examples of each command's help, in the group pages). Comments, blank lines and
 * output are not examples.
 *
 * An example that cannot run against an emulator says so in its source, in an HTML comment
 * the reader never sees:
 * - `<!-- not run: why -->` right before a block: none of the block's examples;
 * - `<!-- not run: "text", "other text": why -->` right before a block: its examples that
 *   contain one of the quoted texts (`"=text"`: the example that is exactly that);
 * - `<!-- not run on this page: "text", …: why -->` anywhere in a page (for the examples of
 *   each command's help, in src/help/commands/<group>.md): every example of the page that
 *   contains one of the quoted texts.
 * An example that runs but ends with another exit code than 0 on purpose (a rejected row, a
 * grep that finds nothing) says which, the same ways: `<!-- exits 1: "text": why -->`,
 * `<!-- exits 1 on this page: "text": why -->`.
 */

export interface DocExample {
  /** The page, relative to the repository, and the line the example starts on. */
  page: string;
  line: number;
  command: string;
  /** Why it is not run, when it is marked. */
  notRun?: string;
  /** The exit code it ends with on purpose, when it is marked (else 0, or 3 for a check). */
  exits?: number;
}

interface Marker {
  texts: string[];
  why: string;
  /** Undefined: not run; a number: the exit code. */
  exits?: number;
  used: boolean;
}

const MARKER = /<!--\s*(not run|exits (\d+))( on this page)?:\s*([\s\S]*?)\s*-->/g;

/** The markers of an HTML comment (or of a whole page, `onPage`). */
function parseMarkers(html: string, onPage: boolean): Marker[] {
  const out: Marker[] = [];
  for (const m of html.matchAll(MARKER)) {
    if (Boolean(m[3]) !== onPage) continue;
    const texts: string[] = [];
    let rest = m[4]!;
    for (;;) {
      const q = /^"((?:[^"\\]|\\.)*)"\s*(,\s*)?/.exec(rest);
      if (!q) break;
      texts.push(q[1]!.replace(/\\"/g, '"'));
      rest = rest.slice(q[0].length);
    }
    out.push({ texts, why: rest.replace(/^:\s*/, ''), exits: m[2] === undefined ? undefined : Number(m[2]), used: false });
  }
  return out;
}

const matches = (m: Marker, command: string) => m.texts.length === 0 || m.texts.some((x) => (x.startsWith('=') ? command === x.slice(1) : command.includes(x)));

/** The commands of a block: sh lines (continuations joined), or the `$ ` lines of console/text output. */
function commandsOf(code: Tokens.Code): Array<{ offset: number; command: string }> {
  const lang = (code.lang ?? '').trim();
  const lines = code.text.split('\n');
  const out: Array<{ offset: number; command: string }> = [];
  const shell = lang === 'sh' || lang === 'bash' || lang === 'shell';
  if (!shell && lang !== 'console' && lang !== 'text') return out;
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!;
    const start = i;
    if (!shell) {
      const m = /^\s*\$ (.+)$/.exec(line);
      if (!m) continue;
      line = m[1]!;
    } else if (!line.trim() || line.trim().startsWith('#')) continue;
    while (/\\\s*$/.test(line) && i + 1 < lines.length) line = `${line.replace(/\\\s*$/, '')} ${lines[++i]!.trim()}`;
    // Help text notes after an example: `$ vap … (in scripts and CI)`.
    if (!shell) line = line.replace(/\s{2,}\(.*\)\s*$/, '');
    out.push({ offset: start, command: line.trim() });
  }
  return out;
}

/** Every example of one page, marked or not; throws on a marker that matches nothing (stale). */
export function pageExamples(root: string, page: string): DocExample[] {
  const text = readFileSync(join(root, page), 'utf8');
  const pageMarkers = parseMarkers(text, true);
  const out: DocExample[] = [];
  let previous: Token | undefined;
  const walk = (tokens: Token[]) => {
    for (const t of tokens) {
      if (t.type === 'code') {
        const block = previous?.type === 'html' ? parseMarkers((previous as Tokens.HTML).text, false) : [];
        const line = text.slice(0, text.indexOf(t.raw)).split('\n').length + 1;
        for (const c of commandsOf(t as Tokens.Code)) {
          const e: DocExample = { page, line: line + c.offset, command: c.command };
          for (const m of [...block, ...pageMarkers]) {
            if (!matches(m, c.command)) continue;
            m.used = true;
            if (m.exits === undefined) e.notRun ??= m.why;
            else e.exits ??= m.exits;
          }
          out.push(e);
        }
        for (const m of block) if (!m.used) throw new Error(`${page}:${line}: the marker before this block names nothing in it (${m.texts.join(', ')})`);
      }
      if (t.type !== 'space') previous = t;
      if (t.type === 'list') for (const item of (t as Tokens.List).items) walk(item.tokens);
    }
  };
  walk(Lexer.lex(text));
  for (const m of pageMarkers)
    for (const x of m.texts)
      if (!out.some((e) => matches({ ...m, texts: [x] }, e.command))) throw new Error(`${page}: a marker "on this page" names nothing on the page: "${x}"`);
  return out;
}

/** The pages whose examples are run: the README and every Markdown page of docs/. */
export function examplePages(root: string): string[] {
  const docs = (dir: string): string[] =>
    readdirSync(join(root, dir), { withFileTypes: true }).flatMap((d) =>
      d.isDirectory() ? docs(join(dir, d.name)) : d.name.endsWith('.md') ? [join(dir, d.name)] : [],
    );
  return ['README.md', ...docs('docs').sort()];
}
