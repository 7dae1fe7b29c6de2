/**
 * A URL as it may be shown (`--verbose`, messages, `auth status`): its password becomes `***`,
 * as the API key is never shown either. Text that is no URL has anything that looks like
 * `//user:password@` redacted the same way.
 */
export function redactUrl(text: string): string {
  try {
    const url = new URL(text);
    if (!url.password) return text;
    url.password = '***';
    const shown = url.toString();
    // URL.toString adds a "/" to an origin without a path; keep the text's own form.
    return text.endsWith('/') || !shown.endsWith('/') || new URL(text).pathname !== '/' ? shown : shown.slice(0, -1);
  } catch {
    return redactUrlsIn(text);
  }
}

/** Every `scheme://user:password@` in a text, with the password replaced by `***`. */
export function redactUrlsIn(text: string): string {
  return text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]*:)[^\s/@]*@/gi, '$1***@');
}
