/**
 * Writing CSV (RFC 4180), by hand: csv-stringify is not a dependency, and quoting a
 * field is a few lines. Used for the errors file.
 */

/** One CSV field, quoted when it holds the delimiter, a quote, CR or LF, or leading/trailing spaces. */
export function csvField(value: unknown, delimiter = ','): string {
  const s = value === undefined || value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (s === '') return s;
  const needs = s.includes(delimiter) || s.includes('"') || s.includes('\n') || s.includes('\r') || s.charCodeAt(0) === 32 || s.charCodeAt(s.length - 1) === 32;
  return needs ? `"${s.replace(/"/g, '""')}"` : s;
}

export function csvLine(values: unknown[], delimiter = ','): string {
  let line = '';
  for (let i = 0; i < values.length; i++) line += (i ? delimiter : '') + csvField(values[i], delimiter);
  return `${line}\r\n`;
}
