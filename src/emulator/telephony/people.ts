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
