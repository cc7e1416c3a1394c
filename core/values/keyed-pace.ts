/**
 * At most one task of a key starts every `spacingMs`, in the order they came; at most `maxWaiting` of a key
 * wait their turn, and one past that is refused (`take` answers false) without waiting. Keys are forgotten once
 * their spacing has passed with nothing waiting (swept when many are kept), so memory follows the keys of the
 * last moment, not every key ever seen.
 */
export class KeyedPace {
  private readonly keys = new Map<string, { nextAt: number; waiting: number }>();

  constructor(
    private readonly spacingMs: number,
    private readonly maxWaiting: number,
    private readonly now: () => number,
    private readonly sleep: (ms: number) => Promise<void>,
  ) {}

  /** Resolves true once it is this task's turn, or false at once when too many of its key are waiting. */
  async take(key: string): Promise<boolean> {
    const now = this.now();
    const entry = this.keys.get(key);
    if (entry === undefined || (entry.nextAt <= now && entry.waiting === 0)) {
      if (entry === undefined && this.keys.size >= sweepAbove) this.sweep(now);
      this.keys.set(key, { nextAt: now + this.spacingMs, waiting: 0 });
      return true;
    }
    if (entry.waiting >= this.maxWaiting) return false;
    const startAt = Math.max(entry.nextAt, now);
    entry.nextAt = startAt + this.spacingMs;
    entry.waiting += 1;
    try {
      await this.sleep(startAt - now);
    } finally {
      entry.waiting -= 1;
    }
    return true;
  }

  /** How many keys are kept (for tests). */
  get keptKeys(): number {
    return this.keys.size;
  }

  private sweep(now: number): void {
    for (const [key, entry] of this.keys) if (entry.nextAt <= now && entry.waiting === 0) this.keys.delete(key);
  }
}

/** Past this many keys kept, a new key first forgets the ones whose spacing has passed. */
const sweepAbove = 1024;
