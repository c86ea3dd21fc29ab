// The planner's per-key tables on integer ids: a graph interns each issue key once (its id is its
// position in key order) and keeps one array per table; KeyedView reads such an array as a
// ReadonlyMap by key, so callers keep their Map idiom while the hot path walks ids.
import type { IssueKey } from './types.ts';

export class KeyedView<V> implements ReadonlyMap<IssueKey, V> {
  constructor(
    /** Keys by id, in key order: the iteration order. */
    private readonly keyList: readonly IssueKey[],
    private readonly ids: { get(k: IssueKey): number | undefined; has(k: IssueKey): boolean },
    /**
     * One value per id; an id whose slot is `undefined` is worked out by `make` the first time it is
     * read and kept, so a pass pays only for the values someone reads.
     */
    private readonly valueList: (V | undefined)[],
    private readonly make?: (id: number) => V,
  ) {}

  private at(id: number): V {
    const v = this.valueList[id];
    if (v !== undefined || this.make === undefined) return v!;
    const made = this.make(id);
    this.valueList[id] = made;
    return made;
  }

  get size(): number {
    return this.keyList.length;
  }

  get(k: IssueKey): V | undefined {
    const id = this.ids.get(k);
    return id === undefined ? undefined : this.at(id);
  }

  has(k: IssueKey): boolean {
    return this.ids.has(k);
  }

  forEach(f: (value: V, key: IssueKey, map: ReadonlyMap<IssueKey, V>) => void, thisArg?: unknown): void {
    for (let i = 0; i < this.keyList.length; i++) f.call(thisArg, this.at(i), this.keyList[i]!, this);
  }

  *entries(): MapIterator<[IssueKey, V]> {
    for (let i = 0; i < this.keyList.length; i++) yield [this.keyList[i]!, this.at(i)];
  }

  *keys(): MapIterator<IssueKey> {
    yield* this.keyList;
  }

  *values(): MapIterator<V> {
    for (let i = 0; i < this.keyList.length; i++) yield this.at(i);
  }

  [Symbol.iterator](): MapIterator<[IssueKey, V]> {
    return this.entries();
  }
}
