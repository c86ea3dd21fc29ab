// Suggests the nearest known word for a misspelt flag or config key ("did you mean `--max`?").

const distance = (a: string, b: string): number => {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row.push(Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    }
    prev = row;
  }
  return prev[b.length]!;
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
