/**
 * The schema of a contact list (document 2). Apart from the validators (contact-validate.ts), so
 * that code needing only the names loads no libphonenumber-js.
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
