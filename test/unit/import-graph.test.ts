// Issue 10: no import cycles among src/ files, and the HTTP layer (src/api) imports
// nothing from the pipelines or the commands. Every specifier counts: static imports,
// `import type`, re-exports and dynamic `import()` (a cycle through a type or a lazy
// import is still two modules that know each other).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { init, parse } from 'es-module-lexer';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    if (d.isDirectory()) return walk(p);
    return /\.(ts|mts)$/.test(d.name) && !d.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** Relative specifiers of one file, resolved to src/ paths (`./x.js` → `x.ts`). */
function importsOf(file: string): string[] {
  // es-module-lexer reads JavaScript: strip the types first (type-only imports are kept
  // by reading them from the TypeScript source below).
  const source = readFileSync(file, 'utf8');
  const specs = new Set<string>();
  const js = ts.transpileModule(source, {
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, verbatimModuleSyntax: false },
  }).outputText;
  const [imports] = parse(js);
  for (const i of imports) if (i.n) specs.add(i.n);
  // Type-only imports and exports disappear when transpiled.
  for (const m of source.matchAll(/^\s*(?:import|export)\s+type\b[^;]*?from\s+['"]([^'"]+)['"]/gms)) specs.add(m[1]!);
  for (const m of source.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)) specs.add(m[1]!);
  const out: string[] = [];
  for (const s of specs) {
    if (!s.startsWith('.')) continue;
    const abs = resolve(dirname(file), s)
      .replace(/\.js$/, '.ts')
      .replace(/\.mjs$/, '.mts');
    out.push(relative(SRC, abs));
  }
  return out;
}

let graph: Map<string, string[]>;
beforeAll(async () => {
  await init;
  graph = new Map(walk(SRC).map((f) => [relative(SRC, f), importsOf(f)]));
});

/** Strongly connected components of more than one file (or a file importing itself): Tarjan. */
function cycles(g: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of g.get(v) ?? []) {
      if (!g.has(w)) continue;
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1 || (g.get(v) ?? []).includes(v)) found.push(comp.sort());
    }
  };
  for (const v of g.keys()) if (!idx.has(v)) visit(v);
  return found;
}

describe('the import graph of src/', () => {
  it('reads the imports it is meant to see (a static, a type-only and a dynamic one)', () => {
    expect(graph.get('commands/contacts/import.ts')).toEqual(expect.arrayContaining(['contacts/options.ts', 'commands/contacts/run-import.ts', 'context.ts']));
    expect(graph.get('api/contacts.ts')).toContain('spec/contact-schema.ts');
  });

  it('has no cycle', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('has no cycle among the contacts pipeline and its verbs', () => {
    expect(cycles(graph).filter((c) => c.some((f) => /^(contacts|commands\/contacts|commands\/contact-lists|api)\//.test(f)))).toEqual([]);
  });

  it('finds a cycle when there is one', () => {
    const g = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(cycles(g)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });

  it('src/api imports nothing from src/contacts, src/commands or src/mcp', () => {
    const uphill = [...graph].flatMap(([file, deps]) =>
      file.startsWith('api/') ? deps.filter((d) => /^(contacts|commands|mcp)\//.test(d)).map((d) => `${file} → ${d}`) : [],
    );
    expect(uphill).toEqual([]);
  });

  it('the MCP server (src/mcp) is loaded by `vap mcp` alone, and only when it runs', () => {
    const users = [...graph].flatMap(([file, deps]) => (!file.startsWith('mcp/') && deps.some((d) => d.startsWith('mcp/')) ? [file] : []));
    expect(users.sort()).toEqual(['commands/mcp/serve.ts']);
    // serve.ts loads it with import(): no static import of src/mcp anywhere outside it.
    const serve = readFileSync(join(SRC, 'commands/mcp/serve.ts'), 'utf8');
    expect(serve).not.toMatch(/^import [^;]*from '\.\.\/\.\.\/mcp\//m);
  });

  it('the MCP SDK is imported by src/mcp alone', () => {
    const importers = walk(SRC).filter((f) => /from '@modelcontextprotocol\/sdk|import\('@modelcontextprotocol\/sdk/.test(readFileSync(f, 'utf8')));
    expect(importers.map((f) => relative(SRC, f)).filter((f) => !f.startsWith('mcp/'))).toEqual([]);
    expect(importers.length).toBeGreaterThan(0);
  });
});
