// The schema types live in the HTTP layer (src/api/contact-schema.ts), where both the
// API functions and the pipeline may import them; re-exported here for the pipeline.
export { FIELD_TYPES, isFieldType, type FieldType, type Schema, type SchemaField } from '../api/contact-schema.js';
