/**
 * How a project file's text is laid out, apart from what it says: a UTF-8 byte order mark,
 * and CRLF line endings (a checkout with git's autocrlf, an editor on Windows). vap reads
 * the text without them, compares and hashes that, and writes a file back in its own form,
 * so that a BOM is kept and a CRLF checkout neither shows changes nor gets LF lines.
 *
 * A file counts as CRLF only when every line ending in it is CRLF: a file vap wrote has LF
 * line endings, and instructions that themselves hold a CRLF (the platform keeps text byte
 * for byte) stay as they are in such a file.
 */

export interface TextForm {
  bom: boolean;
  crlf: boolean;
}

export const PLAIN: TextForm = { bom: false, crlf: false };

/** The text without a BOM and, in a file whose every line ends in CRLF, with LF line endings. */
export function normalise(raw: string): { text: string; form: TextForm } {
  const bom = raw.charCodeAt(0) === 0xfeff;
  const body = bom ? raw.slice(1) : raw;
  const crlf = body.includes('\r\n') && !/(^|[^\r])\n/.test(body);
  return { text: crlf ? body.replace(/\r\n/g, '\n') : body, form: { bom, crlf } };
}

/** The text in a file's form (its BOM and line endings back). */
export function inForm(text: string, form: TextForm): string {
  const body = form.crlf ? text.replace(/\n/g, '\r\n') : text;
  return form.bom ? `\ufeff${body}` : body;
}
