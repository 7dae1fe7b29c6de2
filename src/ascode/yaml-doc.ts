import { Document, isMap, isScalar, LineCounter, parseDocument, type Node } from 'yaml';
import type { z } from 'zod';
import type { ProblemList } from './problems.js';

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
}

export function parseYaml(file: string, text: string, problems: ProblemList, lineOffset = 0): YamlSource | undefined {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    for (const e of doc.errors.slice(0, 3)) {
      const line = (e.linePos?.[0]?.line ?? 1) + lineOffset;
      problems.add({ file, line, message: `not valid YAML: ${e.message.split('\n')[0]}` });
    }
    return undefined;
  }
  return { file, doc, lines, lineOffset };
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
export function validate<T>(src: YamlSource, schema: z.ZodType<T>, problems: ProblemList, data: unknown = src.doc.toJS()): T | undefined {
  const r = schema.safeParse(data ?? {});
  if (r.success) return r.data;
  for (const issue of r.error.issues) {
    const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
    const at = path.length ? `${path.join('.')}: ` : '';
    problems.add({ file: src.file, line: lineOf(src, path), message: `${at}${issue.message}` });
  }
  return undefined;
}

const VAR = /\$\{vars\.([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Replaces `${vars.NAME}` in every string value with the profile's variable; an unknown
 * name is a problem at its line. Keys are left alone.
 */
export function substituteVars(src: YamlSource, data: unknown, vars: Record<string, string>, profile: string, problems: ProblemList): unknown {
  const walk = (v: unknown, path: Array<string | number>): unknown => {
    if (typeof v === 'string') {
      return v.replace(VAR, (whole, name: string) => {
        const value = vars[name];
        if (value === undefined) {
          problems.add({ file: src.file, line: lineOf(src, path), message: `\${vars.${name}} is not set for profile "${profile}"; add it under profiles.${profile}.vars in vap.yaml` });
          return whole;
        }
        return value;
      });
    }
    if (Array.isArray(v)) return v.map((x, i) => walk(x, [...path, i]));
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, [...path, k])]));
    return v;
  };
  return walk(data, []);
}

/** The value as a file would hold it: a variable's value becomes `${vars.NAME}` when it is the whole value. */
export function templateFor(value: string, vars: Record<string, string>): string {
  const matches = Object.entries(vars).filter(([, v]) => v !== '' && v === value);
  if (matches.length === 0) return value;
  matches.sort(([a], [b]) => (a < b ? -1 : 1));
  return `\${vars.${matches[0]![0]}}`;
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
  const before = (doc.toJS() ?? {}) as Record<string, unknown>;
  for (const key of Object.keys(before)) if (!(key in data)) doc.delete(key);
  for (const [key, value] of Object.entries(data)) {
    if (key in before && equal(key, before[key], value)) continue;
    const existing = doc.get(key, true);
    // A scalar keeps its node (and the comment beside it); collections are rebuilt.
    if (isScalar(existing) && (value === null || typeof value !== 'object')) existing.value = value;
    else doc.set(key, doc.createNode(value));
  }
}
