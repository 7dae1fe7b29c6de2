import { open } from 'node:fs/promises';
import { UsageError } from '../errors.js';
import { describeFsError } from '../fs-errors.js';
import { FIELD_TYPES, isFieldType, type FieldType, type Schema, type SchemaField } from '../spec/contact-schema.js';
import { CSV_MAX_COLUMNS, CSV_MAX_RECORD_BYTES } from './source.js';

/**
 * A schema file is held to the limits of a CSV header, the other source of a schema: at most
 * CSV_MAX_COLUMNS fields, in a file of at most CSV_MAX_RECORD_BYTES (16,384 fields with long
 * names fit in far less), so that a huge file is refused before it is read whole.
 */
export const SCHEMA_MAX_FIELDS = CSV_MAX_COLUMNS;
export const SCHEMA_FILE_MAX_BYTES = CSV_MAX_RECORD_BYTES;

/**
 * A field as the user wrote it. `required` is undefined when the spec said
 * nothing (`email:email`), so that `update-schema` can keep a field's current
 * flag instead of silently clearing it; `create` treats it as not required.
 */
export interface FieldInput {
  name: string;
  type: FieldType;
  required?: boolean;
}

export const FIELD_FORM = 'name:type[:required]';
const EXAMPLE = 'for example --field email:email:required';
const VALID_TYPES = `valid types: ${FIELD_TYPES.join(', ')}`;

/**
 * Parses one `--field name:type[:required|optional]`. Throws a UsageError that
 * names the flag and the expected form, or lists the valid types.
 */
export function parseFieldSpec(spec: string, flag = '--field'): FieldInput {
  const parts = spec.split(':').map((p) => p.trim());
  if (parts.length < 2 || parts.length > 3) {
    throw new UsageError(`invalid ${flag} "${spec}": expected ${FIELD_FORM}`, EXAMPLE);
  }
  const [name, type, flagPart] = parts as [string, string, string | undefined];
  if (!name) throw new UsageError(`invalid ${flag} "${spec}": the field name is missing; expected ${FIELD_FORM}`, EXAMPLE);
  if (!type) throw new UsageError(`invalid ${flag} "${spec}": the type is missing; expected ${FIELD_FORM}`, VALID_TYPES);
  const lower = type.toLowerCase();
  if (!isFieldType(lower)) throw new UsageError(`unknown field type "${type}" in ${flag} "${spec}"`, VALID_TYPES);
  let required: boolean | undefined;
  if (flagPart !== undefined) {
    const f = flagPart.toLowerCase();
    if (f === 'required') required = true;
    else if (f === 'optional') required = false;
    else throw new UsageError(`invalid ${flag} "${spec}": the third part must be "required" or "optional", not "${flagPart}"; expected ${FIELD_FORM}`, EXAMPLE);
  }
  return required === undefined ? { name, type: lower } : { name, type: lower, required };
}

/** Parses every --field; refuses a name given twice. */
export function parseFieldSpecs(specs: readonly string[] | undefined, flag = '--field'): FieldInput[] {
  const out: FieldInput[] = [];
  const seen = new Set<string>();
  for (const spec of specs ?? []) {
    const f = parseFieldSpec(spec, flag);
    if (seen.has(f.name)) throw new UsageError(`field "${f.name}" is given twice in ${flag}`, 'each field name may appear once');
    seen.add(f.name);
    out.push(f);
  }
  return out;
}

/**
 * Parses a schema document: `{ "fields": [...] }` or a bare array of
 * `{ name, type, required? }`. `source` names the file in messages.
 */
export function parseSchemaJson(text: string, source: string): FieldInput[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new UsageError(
      `${source} is not valid JSON: ${(err as Error).message}`,
      'expected {"fields": [{"name": "email", "type": "email", "required": true}]} or a bare array of fields',
    );
  }
  const list = Array.isArray(doc) ? doc : doc && typeof doc === 'object' ? (doc as { fields?: unknown }).fields : undefined;
  if (!Array.isArray(list)) {
    throw new UsageError(`${source} has no field list`, 'expected {"fields": [...]} or a bare array of {"name", "type", "required"} objects');
  }
  if (list.length > SCHEMA_MAX_FIELDS) {
    throw new UsageError(
      `${source} has ${list.length.toLocaleString('en-US')} fields, more than the ${SCHEMA_MAX_FIELDS.toLocaleString('en-US')} vap reads`,
      'a contact list needs one field per value a contact holds: keep those',
    );
  }
  const out: FieldInput[] = [];
  const seen = new Set<string>();
  list.forEach((raw, i) => {
    const where = `${source}: field ${i + 1}`;
    if (!raw || typeof raw !== 'object' || Array.isArray(raw))
      throw new UsageError(`${where} is not an object`, 'each field is {"name": ..., "type": ..., "required": true|false}');
    const o = raw as Record<string, unknown>;
    const name = typeof o.name === 'string' ? o.name.trim() : '';
    if (!name) throw new UsageError(`${where} has no "name"`);
    if (typeof o.type !== 'string') throw new UsageError(`${where} ("${name}") has no "type"`, VALID_TYPES);
    const type = o.type.trim().toLowerCase();
    if (!isFieldType(type)) throw new UsageError(`unknown field type "${o.type}" for field "${name}" in ${source}`, VALID_TYPES);
    if (o.required !== undefined && typeof o.required !== 'boolean') throw new UsageError(`${where} ("${name}"): "required" must be true or false`);
    if (seen.has(name)) throw new UsageError(`field "${name}" appears twice in ${source}`, 'each field name may appear once');
    seen.add(name);
    out.push(o.required === undefined ? { name, type } : { name, type, required: o.required });
  });
  return out;
}

/** Reads and parses `--schema-file`. */
export async function readSchemaFile(path: string, flag = '--schema-file'): Promise<FieldInput[]> {
  let text: string;
  try {
    const fh = await open(path, 'r');
    try {
      const { size } = await fh.stat();
      if (size > SCHEMA_FILE_MAX_BYTES) {
        throw new UsageError(
          `${flag} "${path}" is larger than ${SCHEMA_FILE_MAX_BYTES / 1048576} MiB, the most vap reads as a schema file`,
          'a schema file is a JSON list of fields ({"fields": [{"name": ..., "type": ...}]}): check that this is the file meant',
        );
      }
      text = await fh.readFile('utf8');
    } finally {
      await fh.close();
    }
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`cannot read ${flag} "${path}": ${describeFsError(err)}`);
  }
  return parseSchemaJson(text, `${flag} "${path}"`);
}

/**
 * Fields of `base`, with those of `overrides` replacing same-named ones (keeping
 * the base's `required` when the override says nothing) and new ones appended.
 */
export function mergeFields(base: readonly FieldInput[], overrides: readonly FieldInput[]): FieldInput[] {
  const out = base.map((f) => ({ ...f }));
  for (const o of overrides) {
    const i = out.findIndex((f) => f.name === o.name);
    if (i < 0) {
      out.push({ ...o });
      continue;
    }
    const required = o.required ?? out[i]!.required;
    out[i] = required === undefined ? { name: o.name, type: o.type } : { name: o.name, type: o.type, required };
  }
  return out;
}

/** A schema for creating a list: `required` only where it is true. */
export function toSchema(fields: readonly FieldInput[]): Schema {
  return { fields: fields.map((f): SchemaField => (f.required ? { name: f.name, type: f.type, required: true } : { name: f.name, type: f.type })) };
}

/** `name:type[:required]`, the --field form. */
export function formatField(f: { name: string; type: string; required?: boolean }): string {
  return `${f.name}:${f.type}${f.required ? ':required' : ''}`;
}
