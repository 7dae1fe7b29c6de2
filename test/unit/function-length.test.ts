// Every function of the as-code layer and of the verbs stays short enough to read in one
// screen: declarations, methods, accessors, constructors, function expressions and arrow
// functions alike, counted from their first line to their last (a nested one counts in both).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCOPES = ['src/ascode', 'src/commands'];
const MAX_LINES = 80;

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    if (d.isDirectory()) return walk(p);
    return /\.(ts|mts)$/.test(d.name) && !d.name.endsWith('.d.ts') ? [p] : [];
  });
}

interface FunctionSpan {
  where: string;
  name: string;
  lines: number;
}

function nameOf(node: ts.FunctionLikeDeclaration, sf: ts.SourceFile): string {
  if (node.name) return node.name.getText(sf);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return parent.name.getText(sf);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  return '(anonymous)';
}

/** Every function-like node of a file with its length in lines. */
function functionsOf(file: string): FunctionSpan[] {
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const out: FunctionSpan[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const fn = node as ts.FunctionLikeDeclaration;
      const first = sf.getLineAndCharacterOfPosition(fn.getStart(sf)).line;
      const last = sf.getLineAndCharacterOfPosition(fn.getEnd()).line;
      out.push({ where: `${relative(ROOT, file)}:${first + 1}`, name: nameOf(fn, sf), lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

describe('function length in the as-code layer and the verbs', () => {
  const all = SCOPES.flatMap((s) => walk(join(ROOT, s))).flatMap(functionsOf);

  it('reads every function of src/ascode and src/commands', () => {
    // A walk that found nothing would pass below without checking anything.
    expect(all.length).toBeGreaterThan(500);
    expect(all.some((f) => f.where.startsWith('src/ascode/plan.ts') && f.name === 'buildPlan')).toBe(true);
  });

  it(`keeps every function at ${MAX_LINES} lines or fewer, naming the longest offender`, () => {
    const over = all.filter((f) => f.lines > MAX_LINES).sort((a, b) => b.lines - a.lines);
    const longest = over[0];
    expect(
      over.map((f) => `${f.name} (${f.where}): ${f.lines} lines`),
      longest ? `longest: ${longest.name} at ${longest.where}, ${longest.lines} lines` : '',
    ).toEqual([]);
  });
});
