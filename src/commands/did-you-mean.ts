// Suggests the nearest known word for a misspelt flag or config key ("did you mean `--max`?").

/** Edit distance where swapping two neighbouring letters (`biuld`) is one typo, not two. */
const distance = (a: string, b: string): number => {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
};

/** The candidate closest to `word`, when it is close enough to be a likely typo; else undefined. */
export const closestMatch = (word: string, candidates: readonly string[]): string | undefined => {
  const w = word.toLowerCase();
  if (w.length > 64) return undefined;
  let best: { candidate: string; d: number } | undefined;
  for (const candidate of candidates) {
    const d = distance(w, candidate.toLowerCase());
    if (best === undefined || d < best.d) best = { candidate, d };
  }
  // One edit in four characters, at least one: `polcy`→`policy`, but not `foo`→`max`.
  return best && best.d <= Math.max(1, Math.floor(best.candidate.length / 4)) ? best.candidate : undefined;
};
