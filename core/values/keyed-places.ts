/**
 * At most `places` tasks of a key hold a place at once. A task that finds its key's places taken may wait for
 * one, first come first served, with at most `maxWaiting` others of its key; one past that is refused at once.
 * A place given back goes to the key's first waiter. A key is kept only while a place of it is held.
 */
export class KeyedPlaces {
  private readonly keys = new Map<string, { held: number; readonly waiters: Array<() => void> }>();

  constructor(
    private readonly places: number,
    private readonly maxWaiting: number,
  ) {}

  /** A place of `key` now, if one is free. */
  tryTake(key: string): boolean {
    const entry = this.keys.get(key);
    if (entry === undefined) {
      this.keys.set(key, { held: 1, waiters: [] });
      return true;
    }
    if (entry.held >= this.places) return false;
    entry.held += 1;
    return true;
  }

  /**
   * A place of `key` once one is handed over, behind the tasks waiting already; null (not waiting) when
   * `maxWaiting` wait already. Only for a key whose places are all held (tryTake answered false).
   */
  waitFor(key: string): Promise<void> | null {
    const entry = this.keys.get(key);
    if (entry === undefined || entry.held < this.places) throw new Error(`a place of ${key} is free: take it`);
    if (entry.waiters.length >= this.maxWaiting) return null;
    return new Promise<void>((resolve) => entry.waiters.push(resolve));
  }

  /** Gives back a place of `key`: to its first waiter, or freed. */
  give(key: string): void {
    const entry = this.keys.get(key);
    if (entry === undefined) return;
    const next = entry.waiters.shift();
    if (next !== undefined) next();
    else if (entry.held > 1) entry.held -= 1;
    else this.keys.delete(key);
  }

  /** How many keys have a place held (for tests). */
  get busyKeys(): number {
    return this.keys.size;
  }
}
