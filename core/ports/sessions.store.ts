/** DEC-SES-02: a v1 session. The cookie value and the utk are kept only as hashes. */
export interface SessionRecord {
  readonly id: string;
  readonly userEmail: string;
  /** SHA-256 hex of the JSESSIONID value. */
  readonly cookieHash: string;
  /** SHA-256 hex of the utk. */
  readonly utkHash: string;
  readonly createdAt: number;
  readonly lastSeenAt: number;
}

export interface SessionStore {
  /**
   * Creates the session and, in the same transaction, ends the user's oldest sessions so that at most
   * `maxPerUser` remain: the new one always stays; of the others the newest by `createdAt` stay (of two made
   * at the same time, the later made). Answers how many ended.
   */
  create(session: SessionRecord, maxPerUser: number): Promise<number>;
  findByCookieHash(cookieHash: string): Promise<SessionRecord | null>;
  touch(id: string, lastSeenAt: number): Promise<void>;
  delete(id: string): Promise<void>;
  /** Ends every session of a user (password reset, disabling); returns how many ended. */
  deleteForUser(email: string): Promise<number>;
  /** Removes sessions whose last use is before `before` or which were created before `createdBefore`. */
  deleteExpired(before: number, createdBefore: number): Promise<number>;
}

/** Which secret a lockout counts attempts for: the password login and the API key token issue are separate (DEC-AUT-01). */
export type LockoutKind = "password" | "api-key";

export interface VersionedLockout {
  /** JSON of core's LockoutState. */
  readonly state: string;
  readonly version: number;
}

/**
 * DEC-SES-01: lockout state kept in the store, so it holds across processes and nodes. Updates are
 * compare-and-set on a version, so concurrent attempts from any node are each counted exactly once.
 */
export interface LockoutStore {
  read(kind: LockoutKind, name: string): Promise<VersionedLockout | null>;
  /**
   * Writes `state` if the stored version is still `expectedVersion` (null: no row yet) and says whether it
   * did. The new version is expectedVersion + 1; a new row's is random (newLockoutVersion), never the 1 of
   * every new row, so that a writer holding the version of a row deleteExpired removed cannot win against
   * the row made after it. `relevantUntil` is the time from which the state no longer matters (core's
   * lockoutRelevantUntil), when deleteExpired may remove it.
   */
  compareAndSet(
    kind: LockoutKind,
    name: string,
    expectedVersion: number | null,
    state: string,
    relevantUntil: number,
  ): Promise<boolean>;
  /**
   * Removes the records whose state no longer matters at `before` (relevantUntil <= before) and says how
   * many: anyone can make records, one per name tried. A removed name starts again from no record. A record
   * rewritten meanwhile to matter longer is kept, so a removal never undoes a concurrent compare-and-set.
   */
  deleteExpired(before: number): Promise<number>;
}
