import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { validateRecord } from '../../spec/contact-validate.js';
import type { Collection } from '../store.js';
import { serverMessage, type StoredContact, type StoredList } from './model.js';

export interface RevalidationReport {
  /** Contacts checked against the new schema. */
  checked: number;
  /** Contacts that conform. */
  valid: number;
  /** Contacts that do not conform (they keep their data and carry `validationErrors`). */
  invalid: number;
  /** Of those, the ones that conformed before this change. */
  newlyInvalid: number;
}

const CHUNK = 2_000;

/**
 * Revalidates every contact of a list against its new schema (document 2, rule 1): a conforming
 * contact gets its values normalised, another keeps its data and carries `validationErrors`.
 * In chunks, yielding between them, so a large list does not block.
 */
export async function revalidateContacts(list: StoredList, contacts: Collection<StoredContact>, now: () => string): Promise<RevalidationReport> {
  const report: RevalidationReport = { checked: 0, valid: 0, invalid: 0, newlyInvalid: 0 };
  // The Map's own iterator (no copy): contacts an import adds meanwhile are visited too.
  let i = 0;
  for (const c of contacts.values()) {
    if (i > 0 && i % CHUNK === 0) await yieldToLoop();
    i++;
    report.checked++;
    const res = validateRecord(list.schema, c.data);
    if (res.ok) {
      report.valid++;
      let changed = Boolean(c.validationErrors);
      for (const [k, v] of Object.entries(res.value)) {
        if (c.data[k] !== v) {
          changed = true;
          c.data[k] = v;
        }
      }
      if (changed) {
        delete c.validationErrors;
        c.updatedAt = now();
        contacts.touch(c.id);
      }
    } else {
      report.invalid++;
      if (!c.validationErrors) report.newlyInvalid++;
      const errors = res.errors.map((e) => ({ field: e.field, message: serverMessage(e.message) }));
      if (JSON.stringify(c.validationErrors) !== JSON.stringify(errors)) {
        c.validationErrors = errors;
        c.updatedAt = now();
        contacts.touch(c.id);
      }
    }
  }
  // Imports that ran meanwhile only add conforming contacts; recount for the list.
  let invalid = 0;
  for (const c of contacts.values()) if (c.validationErrors) invalid++;
  list.invalidContactCount = invalid;
  return report;
}
