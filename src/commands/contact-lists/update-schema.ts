import { Command } from 'commander';
import { CONTACTS_MAX_PAGE_SIZE, getContactList, listContactsPage, updateContactListSchema, type ContactList } from '../../api/contacts.js';
import { paginate } from '../../api/paginate.js';
import type { Context, GlobalOptions } from '../../context.js';
import type { FieldInput } from '../../contacts/schema-input.js';
import type { SchemaField } from '../../spec/contact-validate.js';
import { UsageError } from '../../errors.js';
import { action } from '../action.js';
import { collect } from '../collect.js';
import { safeText } from '../../ui/safe-text.js';
import { positiveInt } from '../listing.js';
import type { ContextFactory } from '../types.js';
import { printContactList } from './shared.js';

export interface UpdateSchemaOptions {
  field?: string[];
  schemaFile?: string;
  sample?: number;
  dryRun?: boolean;
}

export interface FieldChange {
  kind: 'add' | 'modify';
  field: SchemaField;
  before?: SchemaField;
  typeChanged: boolean;
  becomesRequired: boolean;
}

/** Whether a change can make existing contacts fail validation (spec rule 1). */
export const isRisky = (c: FieldChange): boolean => c.typeChanged || c.becomesRequired;

export function updateSchemaCommand(makeContext: ContextFactory): Command {
  return new Command('update-schema')
    .description('Add fields to a contact list schema or change existing ones')
    .argument('<listId>', 'contact list id')
    .option(
      '--field <name:type[:required|optional]>',
      'a field to add or change (repeatable); without :required or :optional an existing field keeps its flag',
      collect,
    )
    .option('--schema-file <file>', 'JSON: {"fields": [...]} or a bare array; fields to add or change')
    .option('--sample <n>', 'existing contacts to check against a risky change', positiveInt('--sample'), 500)
    .option('--dry-run', 'show the changes and their effect on existing contacts, and send nothing')
    .addHelpText(
      'after',
      `
A change of type, or a field becoming required, can make existing contacts fail
validation. When the list has contacts, vap checks a sample of them, says how many
would fail, and asks for confirmation on a terminal; without a terminal, pass --yes.

Examples:
  $ vap contact-lists update-schema cl_123 --field company:string
  $ vap contact-lists update-schema cl_123 --field age:number --field email:email:required --yes
  $ vap contact-lists update-schema cl_123 --field email:email:optional
  $ vap contact-lists update-schema cl_123 --schema-file changes.json --dry-run`,
    )
    .action(action<UpdateSchemaOptions>(makeContext, ([id], opts, ctx) => run(id!, opts, ctx)));
}

/** The changes `inputs` make to `current`; fields that would stay as they are are left out. */
export function planChanges(current: readonly SchemaField[], inputs: readonly FieldInput[]): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const f of inputs) {
    const before = current.find((c) => c.name === f.name);
    if (!before) {
      const field: SchemaField = f.required ? { name: f.name, type: f.type, required: true } : { name: f.name, type: f.type };
      changes.push({ kind: 'add', field, typeChanged: false, becomesRequired: Boolean(f.required) });
      continue;
    }
    const required = f.required ?? Boolean(before.required);
    const typeChanged = before.type !== f.type;
    if (!typeChanged && required === Boolean(before.required)) continue;
    changes.push({ kind: 'modify', field: { name: f.name, type: f.type, required }, before, typeChanged, becomesRequired: required && !before.required });
  }
  return changes;
}

export function describeChange(c: FieldChange): string {
  if (c.kind === 'add') return `+ ${c.field.name}: ${c.field.type}${c.field.required ? ', required' : ''} (new field)`;
  const parts: string[] = [];
  if (c.typeChanged) parts.push(`type ${c.before!.type} → ${c.field.type}`);
  if (c.becomesRequired) parts.push('becomes required');
  else if (c.before!.required && !c.field.required) parts.push('becomes optional');
  return `~ ${c.field.name}: ${parts.join(', ')}`;
}

export async function run(id: string, opts: UpdateSchemaOptions & GlobalOptions, ctx: Context): Promise<void> {
  const input = await import('../../contacts/schema-input.js');
  const fromFlags = input.parseFieldSpecs(opts.field);
  const fromFile = opts.schemaFile ? await input.readSchemaFile(opts.schemaFile) : [];
  const inputs = input.mergeFields(fromFile, fromFlags);
  if (inputs.length === 0) throw new UsageError('no schema change given', 'pass --field name:type[:required|optional] (repeatable) or --schema-file f.json');

  const api = await ctx.api();
  const list = await getContactList(api, id, ctx.signal);
  const changes = planChanges(list.schema?.fields ?? [], inputs);
  if (changes.length === 0) {
    ctx.info(`Nothing to change: the schema of ${list.id} already has ${inputs.length === 1 ? 'this field' : 'these fields'} as given.`);
    if (opts.dryRun) return;
    await printContactList(list, ctx);
    return;
  }
  const risky = changes.filter(isRisky);
  const needsConfirmation = risky.length > 0 && list.contactCount > 0;
  if (!opts.quiet || (needsConfirmation && !opts.yes && !opts.dryRun)) {
    // The list's name and field names are data: each line shown safe.
    ctx.io.stderr.write(
      `${[`Changes to the schema of ${list.id} ("${list.name}"):`, ...changes.map((c) => `  ${describeChange(c)}`)].map(safeText).join('\n')}\n`,
    );
  }

  if (needsConfirmation) {
    const impact = await sampleImpact(list, risky, opts.sample ?? 500, ctx);
    await ctx.warn(impact.headline);
    for (const line of impact.lines) ctx.io.stderr.write(`  ${safeText(line)}\n`);
  }

  if (opts.dryRun) {
    ctx.info('Dry run: nothing was sent.');
    return;
  }

  if (needsConfirmation && !opts.yes) {
    if (!ctx.prompter.canPrompt) {
      throw new UsageError(
        'this schema change can make existing contacts fail validation, and there is no terminal to confirm on',
        'pass --yes to apply it anyway',
      );
    }
    const ok = await ctx.prompter.confirm(`Apply ${changes.length === 1 ? 'this change' : 'these changes'} to ${list.id}?`, { flag: '--yes', default: false });
    if (!ok) return ctx.info('nothing changed: the schema was not updated');
  }

  const updated = await updateContactListSchema(api, list.id, { fields: changes.map((c) => c.field) });
  await showRevalidation(updated, ctx);
  await printContactList(updated, ctx);
  const added = changes.filter((c) => c.kind === 'add').length;
  const modified = changes.length - added;
  const summary = [added ? `${added} field${added === 1 ? '' : 's'} added` : '', modified ? `${modified} changed` : ''].filter(Boolean).join(', ');
  await ctx.success(`Updated the schema of ${updated.id ?? list.id}: ${summary}`);
}

/**
 * Checks up to `sampleSize` existing contacts against the new definitions of the
 * risky fields and says how many would fail, per field.
 */
async function sampleImpact(list: ContactList, risky: FieldChange[], sampleSize: number, ctx: Context): Promise<{ headline: string; lines: string[] }> {
  const [{ validateRecord }, api] = await Promise.all([import('../../spec/contact-validate.js'), ctx.api()]);
  const schema = { fields: risky.map((c) => c.field) };
  const perField = new Map<string, number>(risky.map((c) => [c.field.name, 0]));
  let sampled = 0;
  let failing = 0;
  const contacts = paginate((req) => listContactsPage(api, list.id, req, ctx.signal), { limit: sampleSize, maxPageSize: CONTACTS_MAX_PAGE_SIZE });
  for await (const contact of contacts) {
    sampled++;
    const r = validateRecord(schema, contact);
    if (r.ok) continue;
    failing++;
    for (const e of r.errors) perField.set(e.field, (perField.get(e.field) ?? 0) + 1);
  }
  const of = sampled >= list.contactCount ? `all ${sampled}` : `${sampled} sampled of ${list.contactCount}`;
  const headline =
    failing > 0
      ? `this change would make existing contacts fail validation: ${failing} of ${of} contacts checked would fail`
      : `this change can make existing contacts fail validation (a type change or a newly required field); none of ${of} contacts checked would fail`;
  const lines = risky.map((c) => {
    const n = perField.get(c.field.name) ?? 0;
    const why =
      c.kind === 'add'
        ? 'new required field'
        : [c.typeChanged ? `${c.before!.type} → ${c.field.type}` : '', c.becomesRequired ? 'now required' : ''].filter(Boolean).join(', ');
    return `${c.field.name} (${why}): ${n} would fail`;
  });
  return { headline, lines };
}

/**
 * Shows what the server says about revalidating existing contacts, when it says
 * anything (the emulator answers `revalidation: { checked, valid, invalid, newlyInvalid }`).
 */
async function showRevalidation(updated: ContactList, ctx: Context): Promise<void> {
  const r = (updated as unknown as Record<string, unknown>).revalidation;
  if (!r || typeof r !== 'object') return;
  const o = r as Record<string, unknown>;
  const num = (k: string) => (typeof o[k] === 'number' ? (o[k] as number) : undefined);
  const checked = num('checked');
  const invalid = num('invalid');
  if (checked !== undefined && invalid !== undefined) {
    if (checked === 0) return;
    const valid = num('valid') ?? checked - invalid;
    const newly = num('newlyInvalid');
    const line = `Revalidated ${checked} existing contact${checked === 1 ? '' : 's'}: ${valid} valid, ${invalid} invalid${newly !== undefined ? ` (${newly} newly invalid)` : ''}`;
    if (invalid > 0) await ctx.warn(`${line}; invalid contacts keep their data and carry validationErrors`);
    else ctx.info(line);
    return;
  }
  const parts = Object.entries(o)
    .filter(([, v]) => typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean')
    .map(([k, v]) => `${k} ${String(v)}`);
  if (parts.length) ctx.info(`Revalidation of existing contacts: ${parts.join(', ')}`);
}
