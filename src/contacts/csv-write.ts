/**
 * Writing CSV by hand (quoting is a few lines) for the errors file, which spreadsheets open: a
 * cell that could run as a formula gets a leading quote (OWASP "CSV Injection"), undone exactly
 * by unescapeFormula when the file is read back (src/contacts/README.md).
 */

/** The first characters that make a spreadsheet read a cell as a formula (OWASP), and the escape's own quote. */
const ESCAPED_FIRST = new Set(['=', '+', '-', '@', '\t', '\r', "'"]);

/** A cell as a spreadsheet may open it: `'` in front of one that would run as a formula (or that begins with `'`). */
export function escapeFormula(s: string): string {
  return s.length > 0 && ESCAPED_FIRST.has(s[0]!) ? `'${s}` : s;
}

/** The cell as it was before escapeFormula: the one quote it added is taken off. */
export function unescapeFormula(s: string): string {
  return s.length > 1 && s[0] === "'" && ESCAPED_FIRST.has(s[1]!) ? s.slice(1) : s;
}

/**
 * One CSV field, quoted when it holds the delimiter, a quote, CR or LF, or leading/trailing
 * spaces; escaped against formulas first (escapeFormula).
 */
export function csvField(value: unknown, delimiter = ','): string {
  const raw = value === undefined || value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (raw === '') return raw;
  const s = escapeFormula(raw);
  const needs = s.includes(delimiter) || s.includes('"') || s.includes('\n') || s.includes('\r') || s.charCodeAt(0) === 32 || s.charCodeAt(s.length - 1) === 32;
  return needs ? `"${s.replace(/"/g, '""')}"` : s;
}

export function csvLine(values: unknown[], delimiter = ','): string {
  let line = '';
  for (let i = 0; i < values.length; i++) line += (i ? delimiter : '') + csvField(values[i], delimiter);
  return `${line}\r\n`;
}
