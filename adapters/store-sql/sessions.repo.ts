import { and, eq, lt, lte, or, type Table } from "drizzle-orm";
import type {
  LockoutKind,
  LockoutStore,
  SessionRecord,
  SessionStore,
  VersionedLockout,
} from "../../core/ports/index.ts";
import { newLockoutVersion } from "../../core/session/index.ts";
import { cryptoIds } from "../runtime/crypto.ts";
import type { SqlColumn, SqlDatabase } from "./sql-database.ts";
import type { SqlDialect } from "./sql-dialect.ts";

/** The `sessions` table (sessions.schema.ts of each store). */
export type SessionsTable = Table & {
  readonly id: SqlColumn<string>;
  readonly userEmailKey: SqlColumn<string>;
  readonly userEmail: SqlColumn<string>;
  readonly cookieHash: SqlColumn<string>;
  readonly utkHash: SqlColumn<string>;
  readonly createdAt: SqlColumn<number>;
  readonly lastSeenAt: SqlColumn<number>;
};

/** The `lockouts` table (sessions.schema.ts of each store). */
export type LockoutsTable = Table & {
  readonly kind: SqlColumn<string>;
  readonly name: SqlColumn<string>;
  readonly state: SqlColumn<string>;
  readonly version: SqlColumn<number>;
  readonly relevantUntil: SqlColumn<number>;
};

/**
 * Users are found by their e-mail address whatever its case, folded as the in-memory reference folds it:
 * JavaScript's toLowerCase (SQLite's lower() folds ASCII only, PostgreSQL's follows the database's locale).
 */
export function emailKey(email: string): string {
  return email.toLowerCase();
}

/**
 * DEC-SES-02: v1 sessions in SQL, for both stores. Making one (with the user's sessions beyond the limit
 * ended in the same transaction) and recording each use are each store's own.
 */
export abstract class SqlSessionRepo implements SessionStore {
  constructor(
    protected readonly db: SqlDatabase,
    protected readonly sessions: SessionsTable,
    private readonly dialect: SqlDialect,
  ) {}

  abstract create(session: SessionRecord, maxPerUser: number): Promise<number>;
  abstract touch(id: string, lastSeenAt: number): Promise<void>;

  /** The columns of a SessionRecord, in its order. */
  protected selectSession() {
    const { sessions } = this;
    return this.db
      .select({
        id: sessions.id,
        userEmail: sessions.userEmail,
        cookieHash: sessions.cookieHash,
        utkHash: sessions.utkHash,
        createdAt: sessions.createdAt,
        lastSeenAt: sessions.lastSeenAt,
      })
      .from(sessions);
  }

  async findByCookieHash(cookieHash: string): Promise<SessionRecord | null> {
    const [row] = await this.selectSession().where(eq(this.sessions.cookieHash, cookieHash));
    return row ?? null;
  }

  async delete(id: string): Promise<void> {
    await this.db.delete(this.sessions).where(eq(this.sessions.id, id));
  }

  async deleteForUser(email: string): Promise<number> {
    const result = await this.db.delete(this.sessions).where(eq(this.sessions.userEmailKey, emailKey(email)));
    return this.dialect.rowsChanged(result);
  }

  async deleteExpired(before: number, createdBefore: number): Promise<number> {
    const { sessions } = this;
    const result = await this.db
      .delete(sessions)
      .where(or(lt(sessions.lastSeenAt, before), lt(sessions.createdAt, createdBefore)));
    return this.dialect.rowsChanged(result);
  }
}

/**
 * DEC-SES-01: the login and API key lockouts, for both stores. They count for every node on the database because
 * every write is one conditional statement on the row: of two writes over the same version, the second finds the
 * version moved on and writes nothing (PostgreSQL re-checks the condition on the row the other committed); of two
 * making the first row, the second finds the key taken and writes nothing.
 */
export class SqlLockoutRepo implements LockoutStore {
  constructor(
    private readonly db: SqlDatabase,
    private readonly lockouts: LockoutsTable,
    private readonly dialect: SqlDialect,
  ) {}

  async read(kind: LockoutKind, name: string): Promise<VersionedLockout | null> {
    const { lockouts } = this;
    const [row] = await this.db
      .select({ state: lockouts.state, version: lockouts.version })
      .from(lockouts)
      .where(and(eq(lockouts.kind, kind), eq(lockouts.name, name)));
    return row ?? null;
  }

  async compareAndSet(
    kind: LockoutKind,
    name: string,
    expectedVersion: number | null,
    state: string,
    relevantUntil: number,
  ): Promise<boolean> {
    const { lockouts } = this;
    if (expectedVersion === null) {
      const inserted = await this.db
        .insert(lockouts)
        .values({ kind, name, state, version: newLockoutVersion(cryptoIds), relevantUntil })
        .onConflictDoNothing();
      return this.dialect.rowsChanged(inserted) === 1;
    }
    const updated = await this.db
      .update(lockouts)
      .set({ state, version: expectedVersion + 1, relevantUntil })
      .where(and(eq(lockouts.kind, kind), eq(lockouts.name, name), eq(lockouts.version, expectedVersion)));
    return this.dialect.rowsChanged(updated) === 1;
  }

  /**
   * One statement, so it judges each row as it is when deleted: a compare-and-set that made a row matter again
   * has moved its relevant_until past `before`, and the row stays.
   */
  async deleteExpired(before: number): Promise<number> {
    const result = await this.db.delete(this.lockouts).where(lte(this.lockouts.relevantUntil, before));
    return this.dialect.rowsChanged(result);
  }
}
