// Which folders of src/ may import which. Each rule names the files it governs and the src/
// folders they may reach; every import counts: static, type-only, re-exports and import().
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    if (d.isDirectory()) return walk(p);
    return /\.(ts|mts)$/.test(d.name) && !d.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** Every module specifier in a source text, with its line: imports, re-exports, import() and import x = require(). */
function specifiersOf(fileName: string, text: string): Array<{ specifier: string; line: number }> {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: Array<{ specifier: string; line: number }> = [];
  const add = (node: ts.Node, lit: ts.Node | undefined) => {
    if (lit && ts.isStringLiteralLike(lit)) found.push({ specifier: lit.text, line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1 });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) add(node, node.moduleSpecifier);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) add(node, node.moduleReference.expression);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) add(node, node.arguments[0]);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node, node.argument.literal);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/** The src/-relative path a relative specifier of `file` names (`../spec/x.js` → `spec/x.ts`); undefined for a package. */
function target(file: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  return relative(SRC, resolve(dirname(file), specifier))
    .split(sep)
    .join('/')
    .replace(/\.js$/, '.ts')
    .replace(/\.mjs$/, '.mts');
}

interface Rule {
  /** The rule in words: the test's title. */
  title: string;
  /** The folder of src/ whose files it governs. */
  files: string;
  /** The folders of src/ those files may import from (their own is always allowed). */
  mayImport: string[];
}

const RULES: Rule[] = [
  {
    title: 'the emulator (src/emulator) imports only src/spec and its own files from src/',
    files: 'emulator',
    mayImport: ['spec'],
  },
  {
    title: 'the contract (src/spec) imports nothing from src/ outside it',
    files: 'spec',
    mayImport: [],
  },
];

const inside = (path: string, folder: string) => path === folder || path.startsWith(`${folder}/`);

/** `file:line → import` for every import of a governed file that leaves the allowed folders. */
function breaches(rule: Rule, files: Array<{ path: string; text: string }>): string[] {
  const allowed = [rule.files, ...rule.mayImport];
  return files
    .filter((f) => inside(relative(SRC, f.path).split(sep).join('/'), rule.files))
    .flatMap((f) =>
      specifiersOf(f.path, f.text).flatMap(({ specifier, line }) => {
        const t = target(f.path, specifier);
        if (t === undefined || allowed.some((a) => inside(t, a))) return [];
        return [`src/${relative(SRC, f.path).split(sep).join('/')}:${line} imports '${specifier}' (src/${t})`];
      }),
    );
}

const sources = walk(SRC).map((path) => ({ path, text: readFileSync(path, 'utf8') }));

describe('import rules of src/', () => {
  for (const rule of RULES) {
    it(rule.title, () => {
      expect(sources.some((f) => inside(relative(SRC, f.path).split(sep).join('/'), rule.files))).toBe(true);
      expect(breaches(rule, sources)).toEqual([]);
    });
  }

  it('reads static, type-only, re-exported and dynamic imports', () => {
    const text = [
      "import { a } from './a.js';",
      "import type { B } from '../b.js';",
      "export { c } from './c.js';",
      "export * from './d.js';",
      "const e = await import('./e.js');",
      "type F = import('./f.js').F;",
      "import g = require('./g.js');",
      "import 'node:fs';",
      'const notAnImport = "from \'./h.js\'";',
    ].join('\n');
    expect(specifiersOf('x.ts', text).map((s) => s.specifier)).toEqual(['./a.js', '../b.js', './c.js', './d.js', './e.js', './f.js', './g.js', 'node:fs']);
  });

  it('names the file, the line and the import when an emulator file imports from outside its folders', () => {
    const path = join(SRC, 'emulator', 'probe.ts');
    const text = "import { ok } from './store.js';\nimport { spec } from '../spec/groups.js';\nconst m = await import('../api/client.js');\n";
    expect(breaches(RULES[0]!, [{ path, text }])).toEqual(["src/emulator/probe.ts:3 imports '../api/client.js' (src/api/client.ts)"]);
  });

  it('names a src/spec file that imports from src/ outside src/spec', () => {
    const path = join(SRC, 'spec', 'probe.ts');
    const text = "import type { X } from './agents.js';\nimport { checkUrl } from '../emulator/contacts/url-guard.js';\nimport { z } from 'zod';\n";
    expect(breaches(RULES[1]!, [{ path, text }])).toEqual([
      "src/spec/probe.ts:2 imports '../emulator/contacts/url-guard.js' (src/emulator/contacts/url-guard.ts)",
    ]);
  });
});
