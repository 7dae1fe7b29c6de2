import { InvalidArgumentError, Option, type Command } from 'commander';

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

/** Adds --limit, --page, --all and --wide to a listing verb. */
export function addListingOptions(cmd: Command, defaultLimit = 30): Command {
  return cmd
    .option('--limit <n>', `how many items to show in all (default ${defaultLimit})`, positiveInt('--limit'))
    .option('--page <n>', 'start at this page', positiveInt('--page'))
    .option('--all', 'follow every page, streaming rows as they arrive')
    .addOption(wideOption());
}

/**
 * `--wide`, on every verb that lists ids: on a terminal a table fits the width and a UUID shows
 * its first eight digits, as git shortens a commit; --wide shows both whole. Piped output, -q and
 * --json are always whole. The context reads it with the global flags (GlobalOptions.wide).
 */
export function wideOption(
  description = 'whole ids and every column on a terminal, not fitted to its width (a UUID shows its first eight digits otherwise)',
): Option {
  return new Option('--wide', description);
}

export function paginateOptions(opts: ListingOptions, maxPageSize: number, defaultLimit = 30) {
  return { limit: opts.limit ?? defaultLimit, startPage: opts.page ?? 1, all: Boolean(opts.all), maxPageSize };
}
