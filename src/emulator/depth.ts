/**
 * How deeply objects and arrays nest in `value`, up to `max + 1` (iterative: a value
 * nested thousands deep is measured without a deep call stack). Data the emulator keeps
 * and later serializes (event data, rows of an import) is limited, since a value nested
 * too deep cannot be written out (JSON.stringify recurses) and would stall every replay.
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
