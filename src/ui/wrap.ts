import { safeLines } from './safe-text.js';

/**
 * Wraps text to `width` columns at spaces, keeping its own line breaks and splitting a word longer
 * than a line. The text is data: made safe first, so escapes are counted as they show. Each
 * of `whole` (a command to copy) stays on one line when it fits.
 */
export function wrapText(text: string, width: number, whole: readonly string[] = []): string[] {
  const w = Math.max(1, Math.floor(width));
  const out: string[] = [];
  for (const paragraph of safeLines(text).split('\n')) {
    let line = '';
    for (let word of joinWhole(paragraph.split(/[ \t]+/).filter(Boolean), whole, w)) {
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

/** The words with each run that spells one of `whole` made one word, when it fits `width`. */
function joinWhole(words: string[], whole: readonly string[], width: number): string[] {
  for (const span of whole) {
    const parts = safeLines(span).split(/\s+/).filter(Boolean);
    if (parts.length < 2 || parts.join(' ').length > width) continue;
    for (let i = 0; i + parts.length <= words.length; i++) {
      if (parts.every((p, k) => words[i + k] === p)) words.splice(i, parts.length, parts.join(' '));
    }
  }
  return words;
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

/**
 * `lead` (a label, a mark) then `text`: as it is when it fits `width`, else wrapped with further
 * lines under the text, or under the lead when there is too little room beside it; one line without
 * a width (piped). `leadWidth`: the columns the lead takes when it carries colour codes.
 */
export function hanging(lead: string, text: string, width: number | undefined, leadWidth = lead.length): string[] {
  const line = safeLines(text).replace(/\n/g, ' ');
  if (width === undefined || leadWidth + line.length <= width) return [`${lead}${line}`];
  const room = width - leadWidth;
  if (room < 16) return [lead.trimEnd(), ...wrapText(text, width - 2).map((l) => `  ${l}`)];
  return wrapText(text, room).map((l, i) => `${i === 0 ? lead : ' '.repeat(leadWidth)}${l}`);
}
