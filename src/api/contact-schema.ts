/**
 * The schema of a contact list (document 2): its field types. Here, in the HTTP layer,
 * because the API functions speak it and everything above (the import pipeline, the
 * contact-lists verbs, the emulator) may import from src/api but not the other way.
 * Kept apart from the validators (src/contacts/validate.ts), which load
 * libphonenumber-js and validator, so that code that only needs the names does not.
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
