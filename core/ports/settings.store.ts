/** Small named values the service keeps across restarts (the clock offset, the generated admin token). */
export interface SettingsStore {
  get(key: string): Promise<string | null>;
  set(key: string, value: string): Promise<void>;
  /** Stores `value` unless the key has one already, and answers the value kept: the first writer wins on every node. */
  setIfAbsent(key: string, value: string): Promise<string>;
  /**
   * Writes `next` only if the key still holds `expected` (null: no value yet) and says whether it did: the
   * building block of leases and of changes several nodes may make at once.
   */
  compareAndSet(key: string, expected: string | null, next: string): Promise<boolean>;
  /**
   * Removes the key only if it still holds `expected` and says whether it did: how a value that is no longer
   * needed (the lease of a finished import) goes without undoing another node's write made since it was read.
   */
  deleteIf(key: string, expected: string): Promise<boolean>;
  /** The keys that start with `prefix`, in order (the leases of file imports, to find those left behind). */
  keysStartingWith(prefix: string): Promise<string[]>;
}
