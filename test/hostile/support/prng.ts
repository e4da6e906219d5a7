import fc from 'fast-check';

/** The fuzz seed: HOSTILE_SEED from the environment to replay a run, else a fixed one (runs are reproducible). */
export const SEED = Number(process.env.HOSTILE_SEED ?? 20261122) >>> 0;

/** xorshift32: a tiny deterministic PRNG for choices (node:crypto cannot be seeded). */
export class Prng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0 || 0x9e3779b9;
  }
  next(): number {
    let x = this.state;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.state = x >>> 0;
    return this.state;
  }
  int(n: number): number {
    return this.next() % n;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
}

/** `n` values of a fast-check arbitrary, reproducible from the seed. */
export const sample = <T>(arb: fc.Arbitrary<T>, n: number, seed: number): T[] => fc.sample(arb, { seed, numRuns: n });

// Built once: building an arbitrary is much dearer than drawing from it.
const JSON_VALUES = fc.jsonValue({ maxDepth: 3 });
const TEXTS = fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 40 }), fc.string({ maxLength: 40 }));

/** Random JSON values of every shape (fast-check's own generator), for "anything but what the field wants". */
export const randomJson = (n: number, seed: number): unknown[] => sample(JSON_VALUES, n, seed);

/** Random strings from every Unicode plane, controls and lone surrogates included. */
export const randomText = (n: number, seed: number): string[] => sample(TEXTS, n, seed);
