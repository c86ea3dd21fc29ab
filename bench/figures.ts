// The shape every benchmark module returns: one figure per line of `npm run bench`.
export interface Figure {
  name: string;
  value: number;
  unit: string;
}

/** A benchmark module: `bench/<topic>.bench.ts` with `export default` of this type. */
export type Bench = () => Promise<Figure[]>;

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length === 0 ? Number.NaN : s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

export const percentile = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};

export const round = (x: number, digits = 3): number => Number(x.toFixed(digits));
