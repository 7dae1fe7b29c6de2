import type { StoredContact, StoredList } from '../contacts/model.js';
import { pick } from './rng.js';

/** Invented callers: inbound callers from outside the list, seeded history. */

const FIRST = ['Maria', 'James', 'Aisha', 'Tom', 'Priya', 'Daniel', 'Sofia', 'Kenji', 'Grace', 'Omar', 'Lena', 'Marcus', 'Elena', 'Noah', 'Chloe', 'Ravi'];
const LAST = ['Lopez', 'Walker', 'Khan', 'Becker', 'Patel', 'Okafor', 'Rossi', 'Tanaka', 'Murphy', 'Haddad', 'Novak', 'Reid', 'Silva', 'Dubois'];

export function randomPerson(rng: () => number): { name: string; phoneNumber: string } {
  const area = 200 + Math.floor(rng() * 800);
  const line = String(Math.floor(rng() * 10_000)).padStart(4, '0');
  const mid = 200 + Math.floor(rng() * 800);
  return { name: `${pick(rng, FIRST)} ${pick(rng, LAST)}`, phoneNumber: `+1${area}${mid}${line}` };
}

/** Name and phone of a list contact, from the list's schema: the string fields named like "name" (joined), the first phone field. */
export function personOf(l: StoredList, c: StoredContact): { name: string; phoneNumber: string } {
  const fields = l.schema.fields;
  const names = fields
    .filter((f) => f.type === 'string' && /name/i.test(f.name))
    .map((f) => c.data[f.name])
    .filter((v): v is string => typeof v === 'string' && v.trim() !== '');
  const phoneField = fields.find((f) => f.type === 'phone') ?? fields.find((f) => /phone|mobile|tel/i.test(f.name));
  const phone = phoneField ? c.data[phoneField.name] : undefined;
  return { name: names.join(' ').trim(), phoneNumber: phone === undefined || phone === null ? '' : String(phone) };
}
