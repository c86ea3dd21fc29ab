// The planner's per-key tables on integer ids: a graph interns each issue key once (its id is its
// position in key order) and keeps one array per table; KeyedView reads such an array as a
// ReadonlyMap by key, so callers keep their Map idiom while the hot path walks ids.
import type { IssueKey } from './types.ts';

export class KeyedView<V> implements ReadonlyMap<IssueKey, V> {
  constructor(
    /** Keys by id, in key order: the iteration order. */
    private readonly keyList: readonly IssueKey[],
    private readonly ids: { get(k: IssueKey): number | undefined; has(k: IssueKey): boolean },
    /** One value per id. */
    private readonly valueList: readonly V[],
  ) {}

  get size(): number {
    return this.keyList.length;
  }

  get(k: IssueKey): V | undefined {
    const id = this.ids.get(k);
    return id === undefined ? undefined : this.valueList[id];
  }

  has(k: IssueKey): boolean {
    return this.ids.has(k);
  }

  forEach(f: (value: V, key: IssueKey, map: ReadonlyMap<IssueKey, V>) => void, thisArg?: unknown): void {
    for (let i = 0; i < this.keyList.length; i++) f.call(thisArg, this.valueList[i]!, this.keyList[i]!, this);
  }

  *entries(): MapIterator<[IssueKey, V]> {
    for (let i = 0; i < this.keyList.length; i++) yield [this.keyList[i]!, this.valueList[i]!];
  }

  *keys(): MapIterator<IssueKey> {
    yield* this.keyList;
  }

  *values(): MapIterator<V> {
    yield* this.valueList;
  }

  [Symbol.iterator](): MapIterator<[IssueKey, V]> {
    return this.entries();
  }
}
