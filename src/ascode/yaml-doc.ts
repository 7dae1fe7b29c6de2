import { type Document, isMap, isScalar, LineCounter, parseDocument, visit, type Node } from 'yaml';
import type { z } from 'zod';
import type { ProblemList } from './problems.js';
import { readOwnYaml } from './yaml-fast-read.js';

/** How every file vap writes is formatted: no folding (long lines stay one line), compact flow collections. */
export const STRINGIFY = { lineWidth: 0, minContentWidth: 0, flowCollectionPadding: false } as const;

/** A YAML document read from a file, with what it takes to name the line of any value in it. */
export interface YamlSource {
  /** The path shown in messages (relative to the project). */
  file: string;
  doc: Document;
  lines: LineCounter;
  /** Lines before the YAML text in the file (the `---` that opens front matter). */
  lineOffset: number;
  /** The document's data (aliases expanded within the parser's bound). */
  data: unknown;
}

/** Aliases a file may expand (the yaml package's default bound against alias bombs). */
const MAX_ALIAS_COUNT = 100;

/**
 * A file in the form vap writes (yaml-fast-read.ts): its data read without the yaml package,
 * which parses it into a document (for the lines of values in messages) only when asked.
 */
class OwnYamlSource implements YamlSource {
  private parsed?: { doc: Document; lines: LineCounter };

  constructor(
    readonly file: string,
    private readonly text: string,
    readonly lineOffset: number,
    readonly data: unknown,
  ) {}

  private get document(): { doc: Document; lines: LineCounter } {
    return (this.parsed ??= parseWithLines(this.text));
  }

  get doc(): Document {
    return this.document.doc;
  }

  get lines(): LineCounter {
    return this.document.lines;
  }
}

/** The document of a text, with the positions of its lines. */
function parseWithLines(text: string): { doc: Document; lines: LineCounter } {
  const lines = new LineCounter();
  return { doc: parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true }), lines };
}

export function parseYaml(file: string, text: string, problems: ProblemList, lineOffset = 0): YamlSource | undefined {
  const own = readOwnYaml(text);
  if (own !== undefined) return new OwnYamlSource(file, text, lineOffset, own);
  const { doc, lines } = parseWithLines(text);
  if (doc.errors.length > 0) {
    for (const e of doc.errors.slice(0, 3)) {
      const line = (e.linePos?.[0]?.line ?? 1) + lineOffset;
      problems.add({ file, line, message: `not valid YAML: ${e.message.split('\n')[0]}` });
    }
    return undefined;
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (err) {
    // An alias bomb (aliases of aliases that expand exponentially): named at its first alias.
    let at: number | undefined;
    visit(doc, {
      Alias(_, node) {
        at = node.range?.[0];
        return visit.BREAK;
      },
    });
    problems.add({
      file,
      line: (at === undefined ? 1 : lines.linePos(at).line) + lineOffset,
      message: `its aliases (*name) expand past ${MAX_ALIAS_COUNT} copies (${(err as Error).message}); write the values out`,
    });
    return undefined;
  }
  return { file, doc, lines, lineOffset, data };
}

/** The 1-based line of the value at `path`, or of its closest parent that exists. */
export function lineOf(src: YamlSource, path: ReadonlyArray<string | number>): number {
  for (let n = path.length; n >= 0; n--) {
    const node = (n === 0 ? src.doc.contents : src.doc.getIn(path.slice(0, n), true)) as Node | null | undefined;
    const start = node?.range?.[0];
    if (typeof start === 'number') return src.lines.linePos(start).line + src.lineOffset;
  }
  return 1 + src.lineOffset;
}

/** Validates the document's data with a schema; each issue becomes a problem at its line. */
export function validate<T>(src: YamlSource, schema: z.ZodType<T>, problems: ProblemList, data: unknown = src.data): T | undefined {
  const r = schema.safeParse(data ?? {});
  if (r.success) return r.data;
  for (const issue of r.error.issues) {
    const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
    const at = path.length ? `${path.join('.')}: ` : '';
    problems.add({ file: src.file, line: lineOf(src, path), message: `${at}${issue.message}` });
  }
  return undefined;
}

/**
 * `${vars.NAME}` in a field that takes variables (a webhook's URL): the profile's value.
 * `$${` is a literal `${`, so that any text can be written: text that came from the
 * platform is written escaped (escapeVars), and reads back as itself.
 */
const VAR_OR_ESCAPE = /\$\$\{|\$\{vars\.([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Expands the variables of one value; an unknown name is passed to `unknown` (and left
 * as written).
 */
export function expandVars(value: string, vars: Record<string, string>, unknown?: (name: string) => void): string {
  return value.replace(VAR_OR_ESCAPE, (whole, name: string | undefined) => {
    if (name === undefined) return '${';
    const v = vars[name];
    if (v === undefined) {
      unknown?.(name);
      return whole;
    }
    return v;
  });
}

/** Text as a field that takes variables holds it literally: every `${` written `$${`. */
export function escapeVars(value: string): string {
  return value.replace(/\$\{/g, () => '$${');
}

/**
 * Expands the variables of one field of a file's data (only the fields that take
 * variables: a webhook's `url`); an unknown name is a problem at its line.
 */
export function expandField(
  src: YamlSource,
  data: Record<string, unknown>,
  field: string,
  vars: Record<string, string>,
  profile: string,
  problems: ProblemList,
): void {
  const v = data?.[field];
  if (typeof v !== 'string') return;
  data[field] = expandVars(v, vars, (name) =>
    problems.add({
      file: src.file,
      line: lineOf(src, [field]),
      message: `\${vars.${name}} is not set for profile "${profile}"; add it under profiles.${profile}.vars in vap.yaml (write $\${ for a literal \${)`,
    }),
  );
}

/**
 * The value as a file holds it: a variable's value becomes `${vars.NAME}` when it is the
 * whole value; any other text is escaped, so that it is never read as a variable.
 */
export function templateFor(value: string, vars: Record<string, string>): string {
  const matches = Object.entries(vars).filter(([, v]) => v !== '' && v === value);
  if (matches.length === 0) return escapeVars(value);
  matches.sort(([a], [b]) => (a < b ? -1 : 1));
  return `\${vars.${matches[0]![0]}}`;
}

// Plain scalars a YAML 1.1 reader (PyYAML, Ruby's Psych, older tools) takes as another
// type than a string: booleans, nulls, numbers in 1.1's forms, timestamps, `<<` and `=`.
const YAML11_NOT_STRING = [
  /^(y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/,
  /^(~|null|Null|NULL|)$/,
  /^[-+]?(0b[0-1_]+|0[0-7_]+|(0|[1-9][0-9_]*)|0x[0-9a-fA-F_]+|[1-9][0-9_]*(:[0-5]?[0-9])+)$/,
  /^([-+]?([0-9][0-9_]*)?\.[0-9.]*([eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN))$/,
  /^([0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(\.[0-9]*)?([ \t]*Z|[-+][0-9]{1,2}(:[0-9]{2})?)?)$/,
  /^(<<|=)$/,
];

/** Whether any string (or key) in plain data is a YAML 1.1 look-alike. */
export function hasAmbiguous(v: unknown): boolean {
  if (typeof v === 'string') return yaml11Ambiguous(v);
  if (Array.isArray(v)) return v.some(hasAmbiguous);
  if (v && typeof v === 'object') return Object.entries(v).some(([k, x]) => yaml11Ambiguous(k) || hasAmbiguous(x));
  return false;
}

/** Whether a YAML 1.1 reader would take this text, written plain, as something else than a string. */
export function yaml11Ambiguous(text: string): boolean {
  return YAML11_NOT_STRING.some((r) => r.test(text));
}

/**
 * Quotes every plain string scalar that a YAML 1.1 reader would take as a boolean, a null,
 * a number or a date (`yes`, `off`, `2001-01-01`), so that every YAML tool reads vap's
 * files as vap does.
 */
export function quoteAmbiguous(doc: Document, data?: unknown): void {
  // The strings being written are `data`'s: when none of them is ambiguous, there is nothing to visit.
  if (data !== undefined && !hasAmbiguous(data)) return;
  visit(doc, {
    Scalar(_, node) {
      if (typeof node.value === 'string' && (node.type === undefined || node.type === 'PLAIN') && yaml11Ambiguous(node.value)) node.type = 'QUOTE_DOUBLE';
    },
  });
}

/**
 * Sets a document's top-level keys to `data`, in place, so that comments and the order of
 * the keys it already has survive: an unchanged value is not touched, a changed one is
 * replaced, a missing one appended, and keys not in `data` removed.
 */
export function mergeInto(doc: Document, data: Record<string, unknown>, equal: (key: string, before: unknown, after: unknown) => boolean): void {
  if (!isMap(doc.contents)) {
    doc.contents = doc.createNode(data) as typeof doc.contents;
    return;
  }
  const before = (doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) ?? {}) as Record<string, unknown>;
  for (const key of Object.keys(before)) if (!(key in data)) doc.delete(key);
  for (const [key, value] of Object.entries(data)) {
    if (key in before && equal(key, before[key], value)) continue;
    const existing = doc.get(key, true);
    // A scalar keeps its node (and the comment beside it); collections are rebuilt.
    if (isScalar(existing) && (value === null || typeof value !== 'object')) existing.value = value;
    else doc.set(key, doc.createNode(value));
  }
}
