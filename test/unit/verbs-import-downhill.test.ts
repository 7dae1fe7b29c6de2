// A verb parses its options and renders what the layers below it return. A file under
// src/commands/<group>/ imports only src/commands/*.ts, the non-verb modules of its own
// group and modules below src/commands/; never a verb file, never another group's file.
// The verbs are what the command tables load: src/commands/registry.ts and each group's
// index.ts (which alone may import its own verbs). Static, type-only and dynamic imports count.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));
const COMMANDS = join(SRC, 'commands');

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    if (d.isDirectory()) return walk(p);
    return d.name.endsWith('.ts') && !d.name.endsWith('.d.ts') ? [p] : [];
  });
}

interface Import {
  /** The specifier as written. */
  spec: string;
  /** The file it names, relative to src/ (`./x.js` → `commands/group/x.ts`). */
  target: string;
  /** `import('…')` rather than a static import or re-export. */
  dynamic: boolean;
}

/** The relative imports of a file, read with the TypeScript parser: import and export declarations, `import()` and `import('…')` types. */
function importsOf(file: string, source = readFileSync(file, 'utf8')): Import[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const found: Array<{ spec: string; dynamic: boolean }> = [];
  const visit = (n: ts.Node): void => {
    if ((ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) && n.moduleSpecifier && ts.isStringLiteral(n.moduleSpecifier))
      found.push({ spec: n.moduleSpecifier.text, dynamic: false });
    else if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword && n.arguments[0] && ts.isStringLiteralLike(n.arguments[0]))
      found.push({ spec: n.arguments[0].text, dynamic: true });
    else if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument) && ts.isStringLiteral(n.argument.literal))
      found.push({ spec: n.argument.literal.text, dynamic: false });
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return found.filter((i) => i.spec.startsWith('.')).map((i) => ({ ...i, target: relative(SRC, resolve(dirname(file), i.spec)).replace(/\.js$/, '.ts') }));
}

/** src/commands/ as relative path → source. */
type Tree = Map<string, string>;

function readTree(): Tree {
  return new Map(walk(COMMANDS).map((f) => [relative(SRC, f), readFileSync(f, 'utf8')]));
}

/** The command tables: the registry, and each group's (or subgroup's) index.ts. */
function isTable(rel: string): boolean {
  return rel === 'commands/registry.ts' || /^commands\/.+\/index\.ts$/.test(rel);
}

/** The verb modules: every file a table imports inside a `load` property. */
function verbFiles(tree: Tree): Set<string> {
  const verbs = new Set<string>();
  for (const [rel, source] of tree) {
    if (!isTable(rel)) continue;
    const sf = ts.createSourceFile(rel, source, ts.ScriptTarget.Latest, true);
    const visit = (n: ts.Node): void => {
      if (ts.isPropertyAssignment(n) && n.name.getText(sf) === 'load') {
        for (const i of importsOf(join(SRC, rel), n.initializer.getText(sf))) verbs.add(i.target);
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  return verbs;
}

/** `commands/evals/runs/get.ts` → `evals`; a file of src/commands/ itself → undefined. */
const groupOf = (rel: string): string | undefined => rel.split('/').slice(1, -1)[0];

/** Each import that breaks the rule, as `file → import (why)`. */
function violations(tree: Tree, verbs: Set<string>): string[] {
  const out: string[] = [];
  for (const [rel, source] of tree) {
    const group = groupOf(rel);
    for (const i of importsOf(join(SRC, rel), source)) {
      if (!i.target.startsWith('commands/')) continue;
      const targetGroup = groupOf(i.target);
      const how = i.dynamic ? `import('${i.spec}')` : `'${i.spec}'`;
      if (verbs.has(i.target)) {
        // A table loads its own group's verbs; the registry loads the verbs that are groups (pull, api, mcp…).
        const ownTable = isTable(rel) && (group === undefined || group === targetGroup);
        if (!ownTable) out.push(`${rel} → ${how} (a verb: move what they share to a shared module of the group, or below src/commands/)`);
      } else if (group !== undefined && targetGroup !== undefined && targetGroup !== group) {
        out.push(`${rel} → ${how} (another group's module: move it to src/commands/*.ts or below src/commands/)`);
      } else if (group === undefined && targetGroup !== undefined && !isTable(rel)) {
        out.push(`${rel} → ${how} (src/commands/*.ts is shared by the groups and imports none of them)`);
      }
    }
  }
  return out;
}

describe('verbs import downhill', () => {
  const tree = readTree();
  const verbs = verbFiles(tree);

  it('finds the verbs in the command tables: a group verb, a subgroup verb and a group that is a verb', () => {
    expect(verbs).toContain('commands/agents/list.ts');
    expect(verbs).toContain('commands/evals/runs/diff.ts');
    expect(verbs).toContain('commands/ascode/pull.ts');
    expect(verbs).not.toContain('commands/evals/options.ts');
    expect(verbs.size).toBeGreaterThan(80);
  });

  it('reads static, type-only, dynamic and re-exported imports', () => {
    const source = [
      "import { a } from './a.js';",
      "import type { B } from '../b.js';",
      "export { c } from './c.js';",
      "const d = () => import('./d.js');",
      "let e: import('./e.js').E;",
      "import { readFile } from 'node:fs';",
    ].join('\n');
    const found = importsOf(join(COMMANDS, 'evals/x.ts'), source);
    expect(found.map((i) => [i.target, i.dynamic])).toEqual([
      ['commands/evals/a.ts', false],
      ['commands/b.ts', false],
      ['commands/evals/c.ts', false],
      ['commands/evals/d.ts', true],
      ['commands/evals/e.ts', false],
    ]);
  });

  it('names the file and the import that breaks the rule', () => {
    const fake: Tree = new Map([
      [
        'commands/zz/index.ts',
        "export const verbs = [{ name: 'get', load: async () => (await import('./get.js')).g }, { name: 'list', load: async () => (await import('./list.js')).l }];",
      ],
      ['commands/zz/get.ts', "import { rows } from './list.js';\nimport { shared } from './shared.js';"],
      ['commands/zz/list.ts', "const o = () => import('../yy/options.js');"],
      ['commands/zz/shared.ts', "import { collect } from '../collect.js';"],
      ['commands/helpers.ts', "import { s } from './zz/shared.js';"],
    ]);
    expect(violations(fake, verbFiles(fake))).toEqual([
      "commands/zz/get.ts → './list.js' (a verb: move what they share to a shared module of the group, or below src/commands/)",
      "commands/zz/list.ts → import('../yy/options.js') (another group's module: move it to src/commands/*.ts or below src/commands/)",
      "commands/helpers.ts → './zz/shared.js' (src/commands/*.ts is shared by the groups and imports none of them)",
    ]);
  });

  it('no file under src/commands/<group>/ imports a verb or another group', () => {
    expect(violations(tree, verbs)).toEqual([]);
  });
});
