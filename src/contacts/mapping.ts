import { UsageError } from '../errors.js';
import type { InputFormat } from './source.js';
import type { Schema, SchemaField } from '../spec/contact-validate.js';

/** Columns the errors file adds; when a re-imported errors file has them, they are not data. */
export const ERROR_COLUMNS = ['row', 'field', 'error'] as const;

export interface Mapping {
  /** The schema fields that are read, in schema order. */
  fields: SchemaField[];
  /** For each of `fields`, the index of its column in `columns`. */
  columnIndex: number[];
  /** The columns a row is read as: the CSV header, or the JSON keys read from each object. */
  columns: string[];
  /** Columns that match no field (warned about). */
  unmapped: string[];
  /** Column indexes copied to the errors file (every column but a previous errors file's row/field/error). */
  keptColumns: number[];
  /** field name → column name, as recorded in the state file. */
  pairs: Record<string, string>;
}

/** Parses repeated `--map column=field` flags (the last `=` splits, so a column may contain `=`). */
export function parseMapFlags(flags: string[]): Array<{ column: string; field: string }> {
  return flags.map((flag) => {
    const i = flag.lastIndexOf('=');
    if (i <= 0)
      throw new UsageError(
        `invalid --map "${flag}": expected column=field`,
        'for example --map "E-mail=email" (an empty field, --map "Notes=", ignores a column)',
      );
    return { column: flag.slice(0, i), field: flag.slice(i + 1).trim() };
  });
}

/** Header names are matched loosely: case, spaces, `_` and `-` do not matter (`First Name` = `first_name` = `firstName`). */
export function looseName(name: string): string {
  return name
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\s_\-.]+/g, '');
}

/** Names quoted and comma-separated, the first `max` of them (a wide header is counted, not listed). */
export function listNames(names: string[], max = 12): string {
  const shown = names
    .slice(0, max)
    .map((n) => JSON.stringify(n))
    .join(', ');
  return names.length > max ? `${shown}, … (${names.length} in all)` : shown || '(none)';
}

/**
 * Maps the file's columns to the list's fields: `--map` pairs first, then matching names (exactly,
 * then loosely). A `--map` naming an unknown column or field, no column matching any field, or a
 * required field without a column is a UsageError (exit 2), before anything is sent.
 */
export function resolveMapping(
  header: string[],
  schema: Schema,
  maps: Array<{ column: string; field: string }>,
  opts: { format: InputFormat; file: string; listId: string },
): Mapping {
  const fieldsByName = new Map(schema.fields.map((f) => [f.name, f]));
  const columns = [...header];
  const fieldColumn = new Map<string, number>();
  const columnTaken = new Set<number>();
  const ignored = new Set<number>();

  const findColumn = (name: string): number => {
    let i = columns.indexOf(name);
    if (i < 0) i = columns.findIndex((c) => c.trim() === name.trim());
    if (i < 0) {
      const loose = columns.map(looseName);
      const matches = loose.flatMap((l, k) => (l === looseName(name) ? [k] : []));
      if (matches.length === 1) i = matches[0]!;
    }
    return i;
  };

  for (const { column, field } of maps) {
    let col = findColumn(column);
    if (col < 0) {
      if (opts.format === 'csv') {
        throw new UsageError(`--map "${column}=${field}": ${opts.file} has no column "${column}"`, `its columns are ${listNames(columns)}`);
      }
      // JSON objects may leave a key out; read it from every object that has it.
      columns.push(column);
      col = columns.length - 1;
    }
    if (field === '') {
      ignored.add(col);
      continue;
    }
    if (!fieldsByName.has(field)) {
      throw new UsageError(
        `--map "${column}=${field}": list ${opts.listId} has no field "${field}"`,
        `its fields are ${listNames(schema.fields.map((f) => f.name))}`,
      );
    }
    if (fieldColumn.has(field)) throw new UsageError(`--map: field "${field}" is given two columns`, 'map each field once');
    if (columnTaken.has(col)) throw new UsageError(`--map: column "${columns[col]}" is mapped twice`, 'a column goes to one field');
    fieldColumn.set(field, col);
    columnTaken.add(col);
  }

  // By name: exact, then trimmed, then loose (case, spaces, _ and - ignored).
  const passes: Array<(c: string, f: string) => boolean> = [(c, f) => c === f, (c, f) => c.trim() === f, (c, f) => looseName(c) === looseName(f)];
  for (const same of passes) {
    for (const f of schema.fields) {
      if (fieldColumn.has(f.name)) continue;
      const col = columns.findIndex((c, k) => !columnTaken.has(k) && !ignored.has(k) && same(c, f.name));
      if (col >= 0) {
        fieldColumn.set(f.name, col);
        columnTaken.add(col);
      }
    }
  }

  const matchedInFile = [...columnTaken].some((k) => k < header.length);
  if (!matchedInFile && !(opts.format === 'json' && header.length === 0)) {
    const what = opts.format === 'csv' ? 'column' : 'key of the first object';
    throw new UsageError(
      `no ${what} of ${opts.file} matches a field of list ${opts.listId}`,
      `${opts.format === 'csv' ? 'columns' : 'keys'}: ${listNames(header)}; fields: ${listNames(schema.fields.map((f) => f.name))}; map them with --map column=field`,
    );
  }

  // JSON: a field no key of the first object matched is still read from objects that have it.
  if (opts.format === 'json') {
    for (const f of schema.fields) {
      if (fieldColumn.has(f.name)) continue;
      columns.push(f.name);
      fieldColumn.set(f.name, columns.length - 1);
      columnTaken.add(columns.length - 1);
    }
  }

  const missing = schema.fields.filter((f) => f.required && !fieldColumn.has(f.name));
  if (missing.length) {
    throw new UsageError(
      `required ${missing.length === 1 ? 'field' : 'fields'} ${listNames(missing.map((f) => f.name))} of list ${opts.listId} ${missing.length === 1 ? 'has' : 'have'} no column in ${opts.file}, so every row would be rejected`,
      'map a column with --map column=field',
    );
  }

  const fields = schema.fields.filter((f) => fieldColumn.has(f.name));
  const columnIndex = fields.map((f) => fieldColumn.get(f.name)!);
  const errorColumns = new Set<string>(ERROR_COLUMNS);
  const isOldErrorColumn = (k: number) => !columnTaken.has(k) && errorColumns.has(columns[k]!);
  const unmapped = header.filter((_c, k) => !columnTaken.has(k) && !ignored.has(k) && !isOldErrorColumn(k));
  const keptColumns = columns.map((_, k) => k).filter((k) => !isOldErrorColumn(k));
  const pairs = Object.fromEntries(fields.map((f, i) => [f.name, columns[columnIndex[i]!]!]));
  return { fields, columnIndex, columns, unmapped, keptColumns, pairs };
}
