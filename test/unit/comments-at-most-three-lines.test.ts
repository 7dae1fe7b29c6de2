// A comment in src/ says why in at most three lines; measurements and history belong in
// docs/performance.md and commit messages. Counted line by line, as a reader sees it: a run of
// `//` lines, or a block by its body lines (a lone `/**` or `*/` line is not counted).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAX_LINES = 3;

/** Lines that steer a tool rather than explain the code; they do not count. */
const DIRECTIVE = /^\/\/\/?\s*(biome-ignore|@ts-|eslint-|istanbul |c8 |v8 |prettier-ignore|<reference|#region|#endregion)/;

interface LongComment {
  line: number;
  lines: number;
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    if (d.isDirectory()) return walk(p);
    return /\.(ts|mts|mjs)$/.test(d.name) && !d.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** Every comment of `text` with its length in lines (1-based line of its start). */
function commentLengths(text: string): LongComment[] {
  const lines = text.split('\n').map((l) => l.trim());
  const out: LongComment[] = [];
  let i = 0;
  while (i < lines.length) {
    const s = lines[i] as string;
    if (s.startsWith('//')) {
      let j = i;
      let counted = 0;
      for (; j < lines.length && (lines[j] as string).startsWith('//'); j++) if (!DIRECTIVE.test(lines[j] as string)) counted++;
      if (counted > 0) out.push({ line: i + 1, lines: counted });
      i = j;
      continue;
    }
    if (s.startsWith('/*')) {
      let j = i;
      while (j < lines.length - 1 && !(lines[j] as string).includes('*/', j === i ? 2 : 0)) j++;
      const licence = s.startsWith('/*!') || lines.slice(i, j + 1).some((l) => /@license|@preserve/.test(l));
      let body = j - i + 1;
      if (j > i && (s === '/**' || s === '/*')) body--;
      if (j > i && lines[j] === '*/') body--;
      if (!licence) out.push({ line: i + 1, lines: body });
      i = j + 1;
      continue;
    }
    i++;
  }
  return out;
}

describe('comments in src', () => {
  const files = walk(join(ROOT, 'src')).map((f) => relative(ROOT, f).split('\\').join('/'));

  it('counts a run of // lines, and a block by its body lines without a lone /** or */', () => {
    expect(commentLengths('// a\n// b\n// biome-ignore lint/x: y\ncode();\n').map((c) => c.lines)).toEqual([2]);
    expect(commentLengths('/**\n * a\n * b\n */\n/** one */\n/* a\n b */\n').map((c) => c.lines)).toEqual([2, 1, 2]);
    expect(commentLengths('/*! licence\n a\n b\n c\n d */\nx(); // trailing\n')).toEqual([]);
  });

  it('reads every source file of src', () => {
    // A walk that found nothing would pass below without checking anything.
    expect(files.length).toBeGreaterThan(300);
    expect(files).toContain('src/cli.ts');
  });

  it(`every comment in src says why in at most ${MAX_LINES} lines`, () => {
    const over = files.flatMap((f) =>
      commentLengths(readFileSync(join(ROOT, f), 'utf8'))
        .filter((c) => c.lines > MAX_LINES)
        .map((c) => `${f}:${c.line} (${c.lines} lines)`),
    );
    expect(over, `comments longer than ${MAX_LINES} lines: move figures and history to docs/performance.md`).toEqual([]);
  });
});
