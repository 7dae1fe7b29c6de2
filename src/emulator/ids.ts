import { createHash } from 'node:crypto';

/**
 * Deterministic ids: the n-th id of a prefix is a hash of (seed, prefix, n). The
 * counters are part of the persisted state, so a restarted emulator never hands
 * out an id twice.
 */
export class IdGenerator {
  private counters: Record<string, number>;

  constructor(
    private readonly seed: number,
    counters: Record<string, number> = {},
  ) {
    this.counters = { ...counters };
  }

  private digest(prefix: string): Buffer {
    const n = (this.counters[prefix] ?? 0) + 1;
    this.counters[prefix] = n;
    return createHash('sha256').update(`${this.seed}:${prefix}:${n}`).digest();
  }

  /** `prefix_` followed by 16 base-36 characters, for example `ag_3k9x0c1m2p8q7r4t`. */
  next(prefix: string): string {
    const d = this.digest(prefix);
    let s = '';
    for (let i = 0; i < 16; i++) s += (d[i]! % 36).toString(36);
    return `${prefix}_${s}`;
  }

  /** A UUID (version 4 layout) for resources whose ids the spec gives as UUIDs. */
  uuid(kind: string): string {
    const d = this.digest(`uuid:${kind}`);
    d[6] = (d[6]! & 0x0f) | 0x40;
    d[8] = (d[8]! & 0x3f) | 0x80;
    const h = d.subarray(0, 16).toString('hex');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
  }

  snapshot(): Record<string, number> {
    return { ...this.counters };
  }
}

/** A small seeded PRNG (mulberry32) for generated data. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Rng = () => number;

/** A PRNG seeded from the SHA-256 of `parts`: the same draws for the same seed and inputs, in every emulator. */
export function rngFor(...parts: Array<string | number>): Rng {
  const d = createHash('sha256').update(parts.join('\u0000')).digest();
  return seededRandom(d.readUInt32LE(0));
}

/** One of `items`, drawn with `rng`. */
export function pick<T>(rng: Rng, items: readonly T[]): T {
  return items[Math.floor(rng() * items.length) % items.length]!;
}
