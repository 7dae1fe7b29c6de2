import { safeLines } from './safe-text.js';

/**
 * Wraps text to `width` columns: breaks at spaces, keeps the text's own line breaks, and
 * splits a word longer than a whole line. Runs of spaces collapse to one. Always returns
 * at least one line. The text is data (a transcript line, a summary, a reason): it is made
 * safe first (src/ui/safe-text.ts), so control characters and bidi overrides come out as
 * visible escapes, never as escape codes, and are counted in the width as they show.
 */
export function wrapText(text: string, width: number): string[] {
  const w = Math.max(1, Math.floor(width));
  const out: string[] = [];
  for (const paragraph of safeLines(text).split('\n')) {
    let line = '';
    for (let word of paragraph.split(/[ \t]+/).filter(Boolean)) {
      if (line && line.length + 1 + word.length <= w) {
        line += ` ${word}`;
        continue;
      }
      if (line) out.push(line);
      while (word.length > w) {
        out.push(word.slice(0, w));
        word = word.slice(w);
      }
      line = word;
    }
    out.push(line);
  }
  return out;
}

/**
 * Wraps text whose first line has less room than the rest (it follows a label): the first
 * line takes the words that fit in `first` columns, the rest wrap to `rest` columns (see
 * wrapText). When not even the first word fits, the first line is empty.
 */
export function wrapAfter(text: string, first: number, rest: number): string[] {
  const words = safeLines(text).split(/\s+/).filter(Boolean);
  let line = '';
  let i = 0;
  for (; i < words.length; i++) {
    const next = line ? `${line} ${words[i]}` : words[i]!;
    if (next.length > first) break;
    line = next;
  }
  if (i === words.length) return [line];
  return [line, ...wrapText(words.slice(i).join(' '), rest)];
}
