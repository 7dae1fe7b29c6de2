import { Command, Option } from 'commander';
import { createContactList } from '../../api/contacts.js';
import type { Context, GlobalOptions } from '../../context.js';
import type { ColumnStats } from '../../contacts/schema-infer.js';
import type { FieldInput } from '../../contacts/schema-input.js';
import { UsageError } from '../../errors.js';
import { safe } from '../../ui/safe-text.js';
import { truncate } from '../../ui/format.js';
import { action } from '../action.js';
import { collect } from '../collect.js';
import { safeText } from '../../ui/safe-text.js';
import { positiveInt } from '../listing.js';
import type { ContextFactory } from '../types.js';
import { FIELD_COLUMNS, printContactList } from './shared.js';

export interface CreateOptions {
  name: string;
  field?: string[];
  schemaFile?: string;
  fromCsv?: string;
  sample?: number;
  encoding?: string;
  dryRun?: boolean;
}

/** Fields of an inferred schema shown in the table before it is confirmed (the rest are counted). */
const SHOWN_FIELDS = 100;

export function createCommand(makeContext: ContextFactory): Command {
  return new Command('create')
    .description('Create a contact list; its schema comes from --field flags, a schema file, or a CSV header')
    .requiredOption('--name <name>', 'name of the list')
    .option('--field <name:type[:required]>', 'a schema field (repeatable); types: string, number, boolean, phone, email, date', collect)
    .addOption(new Option('--schema-file <file>', 'JSON schema: {"fields": [...]} or a bare array of {name, type, required}').conflicts('fromCsv'))
    .option('--from-csv <file>', 'infer the schema from the header and a sample of rows of a CSV file (--field overrides a column)')
    .option('--sample <rows>', 'rows of --from-csv to sample', positiveInt('--sample'), 100)
    .option('--encoding <name>', "the --from-csv file's text encoding when it is not UTF-8, e.g. latin1 (any encoding Node's TextDecoder reads)")
    .option('--dry-run', 'print the schema that would be sent, and send nothing')
    .addHelpText(
      'after',
      `
The schema is confirmed on a terminal when it was inferred from a CSV file;
without a terminal, pass --yes (check it first with --dry-run).

Examples:
  $ vap contact-lists create --name Leads --field name:string:required --field phone:phone:required --field email:email
  $ vap contact-lists create --name Leads --schema-file schema.json
  $ vap contact-lists create --name Leads --from-csv leads.csv
  $ vap contact-lists create --name Leads --from-csv leads.csv --field zip:string --yes
  $ vap contact-lists create --name Leads --from-csv leads.csv --dry-run --json > schema.json`,
    )
    .action(action<CreateOptions>(makeContext, (_args, opts, ctx) => run(opts, ctx)));
}

export async function run(opts: CreateOptions & GlobalOptions, ctx: Context): Promise<void> {
  const input = await import('../../contacts/schema-input.js');
  const name = opts.name.trim();
  if (!name) throw new UsageError('--name is empty', 'give the list a name');
  const overrides = input.parseFieldSpecs(opts.field);

  if (opts.encoding !== undefined && !opts.fromCsv)
    throw new UsageError('--encoding goes with --from-csv', 'it says how to read the CSV file the schema is inferred from');
  let base: FieldInput[] = [];
  let stats: ColumnStats[] | undefined;
  // The inferred schema is shown unless -q, and always when it is about to be confirmed.
  const showInferred = !opts.quiet || (!opts.dryRun && !opts.yes);
  if (opts.schemaFile) base = await input.readSchemaFile(opts.schemaFile);
  if (opts.fromCsv) {
    const [{ readCsvSample, inferSchema }, { parseEncoding }] = await Promise.all([
      import('../../contacts/schema-infer.js'),
      import('../../contacts/encoding.js'),
    ]);
    const sample = await readCsvSample(opts.fromCsv, opts.sample ?? 100, '--from-csv', opts.encoding !== undefined ? parseEncoding(opts.encoding) : 'utf-8');
    const inferred = inferSchema(sample.header, sample.rows, { truncated: sample.truncated, source: `--from-csv "${opts.fromCsv}"` });
    base = inferred.fields;
    stats = inferred.columns;
    if (showInferred) {
      const what = inferred.truncated ? `the header and first ${inferred.sampledRows} rows` : `the header and all ${inferred.sampledRows} rows`;
      ctx.io.stderr.write(`${safeText(`Schema inferred from ${what} of ${opts.fromCsv}:`)}\n`);
    }
  }
  const fields = input.mergeFields(base, overrides);
  if (fields.length === 0) {
    throw new UsageError('a contact list needs a schema', 'pass --field name:type[:required] (repeatable), --schema-file f.json or --from-csv f.csv');
  }
  const schema = input.toSchema(fields);

  if (stats && showInferred) {
    // A wide file's schema is shown in part: the table's layout takes time that grows with the square of its rows.
    const shown = fields.length > SHOWN_FIELDS ? fields.slice(0, SHOWN_FIELDS) : fields;
    const more = fields.length - shown.length;
    ctx.io.stderr.write(`${await inferredTable(shown, stats, overrides)}\n`);
    if (more) ctx.io.stderr.write(`… and ${more.toLocaleString('en-US')} more field${more === 1 ? '' : 's'} (the whole schema: --dry-run --json)\n`);
  }

  if (opts.dryRun) {
    await ctx.out.list(schema.fields, { columns: FIELD_COLUMNS, id: (f) => f.name });
    ctx.info('Dry run: nothing was sent.');
    return;
  }

  if (stats && !opts.yes) {
    if (!ctx.prompter.canPrompt) {
      throw new UsageError(
        'the schema inferred from --from-csv needs confirmation and there is no terminal to ask on',
        'check it with --dry-run, then pass --yes',
      );
    }
    const ok = await ctx.prompter.confirm(`Create contact list "${name}" with this schema?`, { flag: '--yes', default: true });
    if (!ok) return ctx.info(safe`nothing created: contact list "${name}" was not made`);
  }

  const api = await ctx.api();
  const list = await createContactList(api, { name, schema });
  await printContactList(list, ctx);
  const n = list.schema?.fields?.length ?? schema.fields.length;
  await ctx.success(`Created contact list ${list.id} ("${list.name}") with ${n} field${n === 1 ? '' : 's'}`);
}

async function inferredTable(fields: FieldInput[], stats: ColumnStats[], overrides: FieldInput[]): Promise<string> {
  const [{ renderTable }, { loadChalk }] = await Promise.all([import('../../ui/table.js'), import('../../ui/style.js')]);
  const byName = new Map(stats.map((s) => [s.name, s]));
  const overridden = new Set(overrides.map((o) => o.name));
  return renderTable(
    fields,
    [
      { header: 'field', value: (f) => f.name },
      { header: 'type', value: (f) => `${f.type}${overridden.has(f.name) ? ' (--field)' : ''}` },
      { header: 'required', value: (f) => (f.required ? 'yes' : 'no') },
      { header: 'filled', value: (f) => (byName.has(f.name) ? `${byName.get(f.name)!.filled}/${byName.get(f.name)!.sampled}` : '') },
      { header: 'example', value: (f) => truncate(byName.get(f.name)?.example ?? '', 30) },
    ],
    await loadChalk(false),
  );
}
