import { Command, InvalidArgumentError, Option } from 'commander';
import type { Context, GlobalOptions } from '../../context.js';
import type { ImportOptions } from '../../contacts/options.js';
import { action } from '../action.js';
import { collect } from '../collect.js';
import { durationOption } from '../duration.js';
import type { ContextFactory } from '../types.js';

// Only Commander and types at the top: csv-parse, stream-json, libphonenumber-js,
// validator and undici are loaded inside run(), so `vap contacts --help` loads none.

export type { ImportOptions };

/** The server's limit on contacts per request (the emulator's; the spec does not state one). */
export const MAX_BATCH_SIZE = 10_000;

const intIn =
  (flag: string, min: number, max: number) =>
  (v: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(`${flag} must be a whole number from ${min} to ${max}.`);
    return n;
  };

export function importCommand(makeContext: ContextFactory): Command {
  return new Command('import')
    .description('Bulk-import contacts into a list from a local CSV or JSON file (validated, batched, resumable), or from a file URL')
    .argument('<listId>', 'contact list id')
    .argument('[file]', 'a .csv or .json file (a JSON array of objects)')
    .addOption(new Option('--format <format>', 'file format (default: from the extension)').choices(['csv', 'json']))
    .option('--delimiter <char>', 'CSV field delimiter, e.g. ";" or "\\t" (default ",")')
    .option(
      '--encoding <name>',
      "the file's text encoding when it is not UTF-8, e.g. latin1, windows-1252, utf-16le (any encoding Node's TextDecoder reads); without it a file that is not valid UTF-8 is refused, naming the first bad byte",
    )
    .option(
      '--map <column=field>',
      'read this column into this schema field (repeatable; an empty field ignores the column); columns are otherwise matched to fields by name',
      collect,
    )
    .option('--default-country <CC>', 'ISO country for national phone numbers: with US, (415) 555-0100 becomes +14155550100')
    .option('--dry-run', 'check the file against the schema and report; send nothing')
    .option(
      '--errors-file <path>',
      "where to write rejected rows as CSV (default: beside the input, leads.csv → leads.errors.csv, with --dry-run leads.dry-run.errors.csv, or in vap's state folder when the input's folder is read-only; only when rows are rejected)",
    )
    .option('--batch-size <n>', `contacts per import job (1 to ${MAX_BATCH_SIZE})`, intIn('--batch-size', 1, MAX_BATCH_SIZE), 1000)
    .option('--concurrency <n>', 'import jobs that may be unfinished at once (1 to 32)', intIn('--concurrency', 1, 32), 4)
    .option('--resume', 'continue an interrupted import of this file from its state file; nothing is imported twice')
    .option(
      '--state-file <path>',
      "where to keep the resume state (default: in vap's state directory, ~/.local/state/vap/imports on Linux or $VAP_STATE_DIR, one file per server, organization, list and file content)",
    )
    .option('--force', 'start over although the state file shows this file was already (partly) imported into this list')
    .option('--allow-invalid', 'exit 0 even when some rows were rejected')
    .option('--no-progress', 'no progress bar (it is only drawn when stderr is a terminal anyway)')
    .option('--file-url <url>', 'server-side import: the service fetches this URL (needs --file-format)')
    .addOption(new Option('--file-format <format>', 'format of the file at --file-url').choices(['csv', 'json']))
    .option('--wait', 'with --file-url: follow the job until it ends')
    .option('--timeout <duration>', 'with --wait: give up after this long (exit 124)', durationOption('--timeout', { min: 1 }), 3_600_000)
    .addHelpText(
      'after',
      `
The file is streamed: rows are read, checked against the list's schema (required
fields, number, boolean, ISO 8601 date, e-mail, E.164 phone) and sent in batches,
each batch one import job; at most --concurrency jobs are unfinished at once.
Rejected rows are listed on stderr as "row N, field F: reason" (N counts data rows
from 1 after the header) and written with all their columns plus row, field and
error to the errors file, ready to fix and import again.

A state file (in vap's state directory, or --state-file) records each batch before
it is sent and the job it became. After Ctrl-C, a lost connection or a killed process, run the same command
with --resume: finished batches are skipped, a batch whose fate is unknown is
looked up among the list's import jobs, and only batches that never reached the
server are sent again. When the import is done the state file is marked complete.

Output: a summary on stdout (--json: as JSON); progress, warnings and rejected rows
on stderr. Exit codes: 0 every row imported, 1 some rows rejected (0 with
--allow-invalid) or a job failed, 2 the file cannot be read or no column matches a
field (nothing sent), 130 interrupted (resume with --resume).

Examples:
  $ vap contacts import cl_123 leads.csv --dry-run --default-country US
  $ vap contacts import cl_123 leads.csv --map "E-mail=email" --map "Mobile=phone"
  $ vap contacts import cl_123 leads.csv --resume
  $ vap contacts import cl_123 excel-export.csv --encoding latin1
  $ vap contacts import cl_123 export.json --batch-size 5000 --json
  $ vap contacts import cl_123 --file-url https://example.com/leads.csv --file-format csv --wait`,
    )
    .action(action<ImportOptions>(makeContext, (args, opts, ctx) => run(args[0]!, args[1], opts, ctx)));
}

export async function run(listId: string, file: string | undefined, opts: ImportOptions & GlobalOptions, ctx: Context): Promise<void> {
  const { runImportCommand } = await import('./run-import.js');
  await runImportCommand(listId, file, opts, ctx);
}
