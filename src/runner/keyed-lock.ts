// An in-process lock per key: two attempts on one repo must not clone, fetch or add worktrees in
// the same clone at once (git's ref locks would fail one of them).
export class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>();

  async with<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => {
      release = r;
    });
    const tail = previous.then(() => mine);
    this.tails.set(key, tail);
    await previous;
    try {
      return await fn();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
