import type { ContactList } from '../../api/contacts.js';
import type { Context } from '../../context.js';
import type { SchemaField } from '../../spec/contact-validate.js';
import { withPolicy } from '../../ui/columns.js';
import type { Column } from '../../ui/format.js';
import { count, time } from '../../ui/values.js';

export const FIELD_COLUMNS: Column<SchemaField>[] = withPolicy<SchemaField>(
  [
    { header: 'field', value: (f) => f.name },
    { header: 'type', value: (f) => f.type },
    { header: 'required', value: (f) => (f.required ? 'yes' : 'no') },
  ],
  { keep: ['field', 'type', 'required'] },
);

/** `name:type[:required]` for each field, comma-separated (the --field form). */
export function compactSchema(fields: readonly SchemaField[]): string {
  return fields.map((f) => `${f.name}:${f.type}${f.required ? ':required' : ''}`).join(',');
}

/** A borderless table of schema fields, as text (for detail views and prompts on stderr). */
export async function fieldsTable(fields: readonly SchemaField[], extra: Column<SchemaField>[] = []): Promise<string> {
  const [{ renderTable }, { loadChalk }] = await Promise.all([import('../../ui/table.js'), import('../../ui/style.js')]);
  return renderTable([...fields], [...FIELD_COLUMNS, ...extra], await loadChalk(false));
}

/**
 * Prints a contact list on stdout: a detail view with the fields as a table on a
 * terminal, `key<TAB>value` lines with the schema in --field form when piped, the
 * raw object with --json.
 */
export async function printContactList(list: ContactList, ctx: Context): Promise<void> {
  const fields = list.schema?.fields ?? [];
  const schemaText = ctx.out.human ? (fields.length ? await fieldsTable(fields) : '(no fields)') : compactSchema(fields);
  await ctx.out.item(list, {
    fields: [
      { header: 'id', value: (l) => l.id },
      { header: 'name', value: (l) => l.name },
      { header: 'contacts', value: (l) => count(l.contactCount) },
      { header: 'created', value: (l) => time(l.createdAt) },
      { header: 'updated', value: (l) => time(l.updatedAt) },
      { header: 'schema', value: () => schemaText },
    ],
  });
}
