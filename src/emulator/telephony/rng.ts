import { seededRandom, type Rng } from '../ids.js';

// The emulator's seeded draws: one hashing PRNG (rngFor) and pick, from ids.ts, for every
// simulated area (the evals tester and scorer use the same ones).
export { pick, rngFor, type Rng } from '../ids.js';

export function intBetween(rng: Rng, lo: number, hi: number): number {
  return lo + Math.floor(rng() * (hi - lo + 1));
}

export const round2 = (x: number) => Math.round(x * 100) / 100;

/** A fast non-cryptographic PRNG seeded from `parts` (FNV-1a): for per-call draws made 100k times in a batch. */
export function fastRngFor(...parts: Array<string | number>): Rng {
  let h = 0x811c9dc5;
  const text = parts.join('\u0000');
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return seededRandom(h >>> 0);
}

const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** A version-4-layout UUID from four draws of `rng` (seeded calls; the caller checks for a clash). */
export function uuidFrom(rng: Rng): string {
  const b: number[] = [];
  for (let k = 0; k < 4; k++) {
    const x = Math.floor(rng() * 4294967296);
    b.push((x >>> 24) & 255, (x >>> 16) & 255, (x >>> 8) & 255, x & 255);
  }
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.map((x) => HEX[x]!);
  return `${h.slice(0, 4).join('')}-${h.slice(4, 6).join('')}-${h.slice(6, 8).join('')}-${h.slice(8, 10).join('')}-${h.slice(10, 16).join('')}`;
}
