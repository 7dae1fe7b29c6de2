/**
 * Writing CSV (RFC 4180), by hand: csv-stringify is not a dependency, and quoting a
 * field is a few lines. Used for the errors file.
 *
 * The errors file is opened in spreadsheets, so no cell may run as a formula (OWASP,
 * "CSV Injection"): a cell that begins with `=`, `+`, `-`, `@`, a tab or a carriage
 * return is written with a single quote in front, which spreadsheets show as text. So
 * that the escape can be undone exactly, a cell that begins with a single quote gets one
 * more. Reading an errors file back (`vap contacts import` of a file whose last columns
 * are `row`, `field`, `error`) removes exactly that one quote: see unescapeFormula.
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
