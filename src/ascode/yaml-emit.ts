/**
 * Fast path for vap's new files, as the yaml package builds a document of nodes for each: its `stringify(data, STRINGIFY)`
 * bytes for the shapes vap writes when every string is one it writes plain (a test compares them over random data).
 * Anything else (a string it would quote or fold, an unusual number) returns undefined, and the caller uses the package.
 */

/** A string the yaml package writes plain (no quotes): a conservative subset, checked against it by a test. */
const PLAIN = /^[A-Za-z_][A-Za-z0-9_. ,()/-]*$/;
/** Words the package quotes because its core schema reads them as a boolean or a null. */
const CORE_WORDS = /^(true|True|TRUE|false|False|FALSE|null|Null|NULL)$/;

function scalar(v: unknown): string | undefined {
  if (v === null) return 'null';
  if (v === true) return 'true';
  if (v === false) return 'false';
  if (typeof v === 'number') {
    if (!Number.isFinite(v) || Object.is(v, -0)) return undefined;
    const s = String(v);
    return /^-?\d{1,15}(\.\d{1,15})?$/.test(s) ? s : undefined;
  }
  if (typeof v === 'string') return v !== '' && PLAIN.test(v) && !v.endsWith(' ') && !CORE_WORDS.test(v) && !v.includes('  ') ? v : undefined;
  return undefined;
}

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A flat map's entries at an indent, the first line's indent given separately (a list item's `- `). */
function flatMap(m: Record<string, unknown>, indent: string, first: string): string | undefined {
  const keys = Object.keys(m).filter((k) => m[k] !== undefined);
  if (keys.length === 0) return undefined;
  let out = '';
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const key = scalar(k);
    const val = scalar(m[k]);
    if (key === undefined || (typeof m[k] === 'object' && m[k] !== null)) return undefined;
    if (val === undefined) return undefined;
    out += `${i === 0 ? first : indent}${key}: ${val}\n`;
  }
  return out;
}

/** The YAML text of `data` as the yaml package writes it, or undefined when it is not a shape this path writes. */
export function emitYaml(data: Record<string, unknown>): string | undefined {
  let out = '';
  for (const k of Object.keys(data)) {
    const v = data[k];
    if (v === undefined) continue;
    const key = scalar(k);
    if (key === undefined) return undefined;
    if (Array.isArray(v)) {
      if (v.length === 0) {
        out += `${key}: []\n`;
        continue;
      }
      out += `${key}:\n`;
      for (const item of v) {
        if (isMap(item)) {
          const m = flatMap(item, '    ', '  - ');
          if (m === undefined) return undefined;
          out += m;
        } else {
          const s = scalar(item);
          if (s === undefined) return undefined;
          out += `  - ${s}\n`;
        }
      }
    } else if (isMap(v)) {
      if (Object.keys(v).filter((x) => v[x] !== undefined).length === 0) {
        out += `${key}: {}\n`;
        continue;
      }
      const m = flatMap(v, '  ', '  ');
      if (m === undefined) return undefined;
      out += `${key}:\n${m}`;
    } else {
      const s = scalar(v);
      if (s === undefined) return undefined;
      out += `${key}: ${s}\n`;
    }
  }
  return out === '' ? undefined : out;
}
