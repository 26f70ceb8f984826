/** Seeded PRNG for property tests (mulberry32): the same seed replays the same cases. Test support only. */
export interface Prng {
  /** Float in [0, 1). */
  next(): number;
  /** Integer in [min, max], both inclusive. */
  int(min: number, max: number): number;
  pick<T>(xs: readonly T[]): T;
  bool(pTrue?: number): boolean;
}

export function prng(seed: number): Prng {
  let s = seed >>> 0;
  const next = (): number => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    pick: <T>(xs: readonly T[]): T => {
      if (xs.length === 0) throw new RangeError('pick from an empty list');
      return xs[int(0, xs.length - 1)] as T;
    },
    bool: (pTrue = 0.5) => next() < pTrue,
  };
}

/** A random UUID v4 drawn from the PRNG (deterministic per seed). */
export function prngUuidV4(r: Prng): string {
  const hex = (n: number) => Array.from({ length: n }, () => r.int(0, 15).toString(16)).join('');
  return `${hex(8)}-${hex(4)}-4${hex(3)}-${r.pick(['8', '9', 'a', 'b'])}${hex(3)}-${hex(12)}`;
}
