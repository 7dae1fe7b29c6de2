/**
 * How deeply `value` nests, up to `max + 1`, iteratively so that any depth is measured. Data the
 * emulator keeps and serializes is limited by it, since a value nested too deep cannot be
 * written out (JSON.stringify recurses) and would stall every replay.
 */
export function nestingDepth(value: unknown, max: number): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    const depth = d + 1;
    if (depth > deepest) deepest = depth;
    if (deepest > max) return deepest;
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (typeof child === 'object' && child !== null) stack.push([child, depth]);
  }
  return deepest;
}

/** Nesting allowed in event data and import rows. */
export const MAX_NESTING = 32;
