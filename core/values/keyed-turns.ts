/**
 * Tasks of one key run one after another, in the order they came; tasks of different keys run side by side.
 * A task that fails does not stop the ones after it.
 */
export class KeyedTurns {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const result = (this.tails.get(key) ?? Promise.resolve()).then(task);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** How many keys have a task running or waiting (for tests). */
  get busyKeys(): number {
    return this.tails.size;
  }
}
