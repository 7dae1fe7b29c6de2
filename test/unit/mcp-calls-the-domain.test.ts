// The MCP tools call the domain modules (src/evals, src/ascode, src/webhooks…) and render
// what they return, as the verbs do; src/mcp imports nothing under src/commands/. Static,
// type-only and dynamic imports count.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    if (d.isDirectory()) return walk(p);
    return d.name.endsWith('.ts') && !d.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** Every relative module a file names (import and export declarations, `import()`, `import('…')` types), relative to src/. */
function importsOf(file: string, source = readFileSync(file, 'utf8')): string[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const specs: string[] = [];
  const visit = (n: ts.Node): void => {
    if ((ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) && n.moduleSpecifier && ts.isStringLiteral(n.moduleSpecifier))
      specs.push(n.moduleSpecifier.text);
    else if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword && n.arguments[0] && ts.isStringLiteralLike(n.arguments[0]))
      specs.push(n.arguments[0].text);
    else if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument) && ts.isStringLiteral(n.argument.literal)) specs.push(n.argument.literal.text);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return specs.filter((s) => s.startsWith('.')).map((s) => relative(SRC, resolve(dirname(file), s)).replace(/\.js$/, '.ts'));
}

/** `file → import` for each import of src/mcp that reaches into src/commands/. */
function intoCommands(files: Array<{ file: string; source?: string }>): string[] {
  return files.flatMap(({ file, source }) =>
    importsOf(file, source)
      .filter((t) => t.startsWith('commands/'))
      .map((t) => `${relative(SRC, file)} → ${t}`),
  );
}

describe('MCP calls the domain', () => {
  it('sees a static, a type-only and a dynamic import of a verb', () => {
    const file = join(SRC, 'mcp/tools/x.ts');
    const source =
      "import { a } from '../../evals/follow.js';\nimport type { B } from '../../commands/evals/run.js';\nconst c = () => import('../../commands/webhooks/rotate-secret.js');";
    expect(intoCommands([{ file, source }])).toEqual(['mcp/tools/x.ts → commands/evals/run.ts', 'mcp/tools/x.ts → commands/webhooks/rotate-secret.ts']);
  });

  it('src/mcp imports nothing under src/commands', () => {
    const files = walk(join(SRC, 'mcp')).map((file) => ({ file }));
    expect(files.length).toBeGreaterThan(10);
    expect(intoCommands(files)).toEqual([]);
  });

  it('src/mcp makes no context of its own to run a domain function in: no createContext, no captured output', () => {
    const made = walk(join(SRC, 'mcp')).filter((file) => /\b(createContext|runCaptured|captured)\b/.test(readFileSync(file, 'utf8')));
    expect(made.map((file) => relative(SRC, file))).toEqual([]);
  });
});
