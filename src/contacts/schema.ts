/**
 * The schema of a contact list (document 2): its field types. Kept apart from the
 * validators (validate.ts), which load libphonenumber-js and validator, so that code
 * that only needs the names (flags, the importer's main thread) does not load them.
 */

/** The schema field types of document 2. */
export const FIELD_TYPES = ['string', 'number', 'boolean', 'phone', 'email', 'date'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export interface SchemaField {
  name: string;
  type: FieldType;
  required?: boolean;
}

export interface Schema {
  fields: SchemaField[];
}

export function isFieldType(t: string): t is FieldType {
  return (FIELD_TYPES as readonly string[]).includes(t);
}
