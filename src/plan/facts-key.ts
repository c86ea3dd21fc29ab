// One key for a set of typed facts, whatever order their fields come in: a cause read back from the store
// (PostgreSQL's JSONB reorders an object's keys) compares equal to the one the planner makes now.

/** JSON with every object's keys sorted. */
export const factsKey = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === 'object' && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : x,
  );
