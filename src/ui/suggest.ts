import { distance } from 'fastest-levenshtein';

/**
 * The names nearest to a mistyped one for a "did you mean": at most 3 edits and more than 40% of the
 * word right (Commander's rule). A name without its prefix (`ended` for `call.ended`) counts as
 * near. Best first, at most `max`.
 */
export function nearest(word: string, candidates: readonly string[], max = 3): string[] {
  const w = word.trim().toLowerCase();
  if (!w) return [];
  const scored = candidates.map((c) => {
    const lc = c.toLowerCase();
    let d = distance(w, lc);
    // The last part(s) of a dotted name: `ended` → `call.ended`, `run.completd` → `eval.run.completed`.
    const parts = lc.split('.');
    for (let i = 1; i < parts.length; i++) d = Math.min(d, distance(w, parts.slice(i).join('.')) + 1);
    return { c, d };
  });
  const best = Math.min(...scored.map((s) => s.d));
  if (!Number.isFinite(best) || best > 3 || (w.length - best) / w.length <= 0.4) return [];
  return scored
    .filter((s) => s.d === best)
    .map((s) => s.c)
    .slice(0, max);
}

/**
 * The commands nearest to a mistyped word, each named once, by its name (a word nearer one
 * of a command's aliases still suggests the command: `lst` is `list`, not `list, ls`).
 */
export function nearestCommands(word: string, commands: ReadonlyArray<{ name: string; aliases: readonly string[] }>, max = 3): string[] {
  const owner = new Map(commands.flatMap((c) => [c.name, ...c.aliases].map((n) => [n, c.name] as const)));
  return [...new Set(nearest(word, [...owner.keys()], Infinity).map((n) => owner.get(n)!))].slice(0, max);
}
