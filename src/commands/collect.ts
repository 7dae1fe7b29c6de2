/** A repeatable option's values, in the order given (Commander's reducer for `--field a --field b`). */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
