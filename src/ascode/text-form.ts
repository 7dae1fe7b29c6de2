/**
 * A file's BOM and CRLF line endings (git's autocrlf, a Windows editor) are left out of what vap compares and hashes and put
 * back on write, so a CRLF checkout neither shows changes nor gets LF lines. Only a file whose every line ends in CRLF counts:
 * vap writes LF, and instructions holding a CRLF of their own (the platform keeps text byte for byte) must stay as they are.
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
