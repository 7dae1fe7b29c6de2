import { InvalidArgumentError, type Command } from 'commander';

/** The listing flags of CLI.md: --limit (total items wanted), --page, --all. */
export interface ListingOptions {
  limit?: number;
  page?: number;
  all?: boolean;
}

export function positiveInt(name: string) {
  return (v: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`${name} must be a whole number of at least 1.`);
    return n;
  };
}

/** Adds --limit, --page and --all to a listing verb. */
export function addListingOptions(cmd: Command, defaultLimit = 30): Command {
  return cmd
    .option('--limit <n>', `how many items to show in all (default ${defaultLimit})`, positiveInt('--limit'))
    .option('--page <n>', 'start at this page', positiveInt('--page'))
    .option('--all', 'follow every page, streaming rows as they arrive');
}

export function paginateOptions(opts: ListingOptions, maxPageSize: number, defaultLimit = 30) {
  return { limit: opts.limit ?? defaultLimit, startPage: opts.page ?? 1, all: Boolean(opts.all), maxPageSize };
}
