// A realistic milestone for the scale bench: a layered dependency graph with chains (an issue blocked
// by one of the layer before) and fan-outs (several blocked by the same one), some joins (a second
// blocker from an earlier layer), and a few epics (a checklist of issues that it is blocked by, as
// people write them). The layers swell and shrink, the widest capped at `maxWidth` (about that many
// ready at once). Seeded: the same seed gives the same milestone, so a figure compares across runs.
import type { SeedIssue } from './world.ts';

/** mulberry32: a small, fast, seeded generator of numbers in [0, 1). */
export const seededRandom = (seed: number): (() => number) => {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
};

export interface MilestoneGraphOptions {
  /** Issues in the milestone, epics included. */
  issues: number;
  seed: number;
  /** The widest layer (default 20). */
  maxWidth?: number;
  /** Share of issues with a second blocker (default 0.3). */
  joinShare?: number;
}

export interface MilestoneGraph {
  issues: SeedIssue[];
  /** The numbers of the epics (no worker takes them; they close with their children). */
  epics: number[];
  /** Issue numbers by layer (epics apart). */
  layers: number[][];
}

/** Layer widths summing to `n`: a hump (widest in the middle), none over `max`, none empty. */
const layerWidths = (n: number, max: number, rnd: () => number): number[] => {
  const depth = Math.max(Math.ceil(n / max), Math.min(n, Math.max(3, Math.round(Math.sqrt(n) * 1.2))));
  const weights = Array.from(
    { length: depth },
    (_, i) => 0.25 + Math.sin((Math.PI * (i + 0.5)) / depth) * (0.7 + 0.6 * rnd()),
  );
  const total = weights.reduce((s, w) => s + w, 0);
  const widths = weights.map((w) => Math.min(max, Math.max(1, Math.round((w / total) * n))));
  // Rounding and the cap leave the sum off by a little: take from or give to the layers that can.
  for (let diff = n - widths.reduce((s, w) => s + w, 0), i = 0; diff !== 0; i++) {
    const at = i % depth;
    if (diff > 0 && widths[at]! < max) {
      widths[at]! += 1;
      diff -= 1;
    } else if (diff < 0 && widths[at]! > 1) {
      widths[at]! -= 1;
      diff += 1;
    }
  }
  return widths;
};

export const milestoneGraph = (o: MilestoneGraphOptions): MilestoneGraph => {
  const rnd = seededRandom(o.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const epicCount = Math.max(1, Math.round(o.issues / 33));
  const work = o.issues - epicCount;
  const layers: number[][] = [];
  const issues: SeedIssue[] = [];
  let next = 1;
  for (const width of layerWidths(work, o.maxWidth ?? 20, rnd)) {
    const layer: number[] = [];
    const before = layers.at(-1);
    for (let i = 0; i < width; i++) {
      const number = next++;
      const blockedBy = new Set<number>();
      if (before) {
        blockedBy.add(pick(before));
        const earlier = layers.flat();
        if (rnd() < (o.joinShare ?? 0.3)) blockedBy.add(pick(earlier));
      }
      issues.push({
        number,
        title: `Part ${number}`,
        body: `Add \`src/part-${number}.ts\`.`,
        ...(blockedBy.size ? { blockedBy: [...blockedBy].sort((a, b) => a - b) } : {}),
      });
      layer.push(number);
    }
    layers.push(layer);
  }
  // Each epic tracks a handful of issues from one stretch of layers, as a feature's issues are.
  const epics: number[] = [];
  for (let e = 0; e < epicCount; e++) {
    const number = next++;
    const from = Math.floor((e / epicCount) * layers.length);
    const pool = layers.slice(from, from + 2).flat();
    const children = [...new Set(Array.from({ length: Math.min(pool.length, 4) }, () => pick(pool)))].sort(
      (a, b) => a - b,
    );
    issues.push({
      number,
      title: `Epic: feature ${e + 1}`,
      body: children.map((c) => `- [ ] #${c}`).join('\n'),
      blockedBy: children,
    });
    epics.push(number);
  }
  return { issues, epics, layers };
};
