import { and, desc, eq, lt, lte, ne, notInArray, or } from "drizzle-orm";
import type {
  LockoutKind,
  LockoutStore,
  SessionRecord,
  SessionStore,
  VersionedLockout,
} from "../../core/ports/index.ts";
import { newLockoutVersion } from "../../core/session/index.ts";
import { cryptoIds } from "../runtime/crypto.ts";
import type { PgDatabase } from "./database.ts";
import { lockouts, sessions } from "./sessions.schema.ts";
import { users } from "./tenancy.schema.ts";

function emailKey(email: string): string {
  return email.toLowerCase();
}

export class PgSessionRepo implements SessionStore {
  constructor(private readonly db: PgDatabase) {}

  /**
   * One transaction: the insert, then the user's sessions beyond `maxPerUser` but the new one. It first locks
   * the user's row, so that the logins of one user on several nodes take turns: each then sees the sessions the
   * others made, and the user never keeps more than `maxPerUser`. (FOR NO KEY UPDATE: it does not wait for the
   * foreign key checks of other writes, which only share the row's key.)
   */
  async create(session: SessionRecord, maxPerUser: number): Promise<number> {
    const userEmailKey = emailKey(session.userEmail);
    const othersOfUser = and(eq(sessions.userEmailKey, userEmailKey), ne(sessions.id, session.id));
    return this.db.transaction(async (tx) => {
      await tx
        .select({ emailKey: users.emailKey })
        .from(users)
        .where(eq(users.emailKey, userEmailKey))
        .for("no key update");
      await tx.insert(sessions).values({ ...session, userEmailKey });
      // Newest first; `made` orders the sessions made in the same millisecond as they were made.
      const kept = tx
        .select({ id: sessions.id })
        .from(sessions)
        .where(othersOfUser)
        .orderBy(desc(sessions.createdAt), desc(sessions.made))
        .limit(Math.max(maxPerUser - 1, 0));
      const ended = await tx.delete(sessions).where(and(othersOfUser, notInArray(sessions.id, kept)));
      return ended.count;
    });
  }

  async findByCookieHash(cookieHash: string): Promise<SessionRecord | null> {
    const [row] = await this.db
      .select({
        id: sessions.id,
        userEmail: sessions.userEmail,
        cookieHash: sessions.cookieHash,
        utkHash: sessions.utkHash,
        createdAt: sessions.createdAt,
        lastSeenAt: sessions.lastSeenAt,
      })
      .from(sessions)
      .where(eq(sessions.cookieHash, cookieHash));
    return row ?? null;
  }

  /**
   * DEC-SES-02: one statement per use, moving the last use forward only (a node with an older use that waited
   * for another's write re-checks it against the newer value). Not batched into transactions as the libSQL store
   * does: PostgreSQL already flushes together the commits that arrive together, and two nodes' batches touching
   * the same sessions in different orders could deadlock.
   */
  async touch(id: string, lastSeenAt: number): Promise<void> {
    await this.db
      .update(sessions)
      .set({ lastSeenAt })
      .where(and(eq(sessions.id, id), lt(sessions.lastSeenAt, lastSeenAt)));
  }

  async delete(id: string): Promise<void> {
    await this.db.delete(sessions).where(eq(sessions.id, id));
  }

  async deleteForUser(email: string): Promise<number> {
    const result = await this.db.delete(sessions).where(eq(sessions.userEmailKey, emailKey(email)));
    return result.count;
  }

  async deleteExpired(before: number, createdBefore: number): Promise<number> {
    const result = await this.db
      .delete(sessions)
      .where(or(lt(sessions.lastSeenAt, before), lt(sessions.createdAt, createdBefore)));
    return result.count;
  }
}

/**
 * DEC-SES-01: the login and API key lockouts count for the whole cluster because every write is one conditional
 * statement on the row: of two nodes writing over the same version, the one that waited re-checks the version
 * against the row the other committed and writes nothing; of two making the first row, the second finds the key
 * taken and writes nothing.
 */
export class PgLockoutRepo implements LockoutStore {
  constructor(private readonly db: PgDatabase) {}

  async read(kind: LockoutKind, name: string): Promise<VersionedLockout | null> {
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
    if (expectedVersion === null) {
      const inserted = await this.db
        .insert(lockouts)
        .values({ kind, name, state, version: newLockoutVersion(cryptoIds), relevantUntil })
        .onConflictDoNothing();
      return inserted.count === 1;
    }
    const updated = await this.db
      .update(lockouts)
      .set({ state, version: expectedVersion + 1, relevantUntil })
      .where(and(eq(lockouts.kind, kind), eq(lockouts.name, name), eq(lockouts.version, expectedVersion)));
    return updated.count === 1;
  }

  /**
   * One statement, so it judges each row as it is when deleted: a compare-and-set that made a row matter again
   * has moved its relevant_until past `before`, and the row stays (PostgreSQL re-checks the condition on a row
   * another node changed while the delete waited for it).
   */
  async deleteExpired(before: number): Promise<number> {
    const result = await this.db.delete(lockouts).where(lte(lockouts.relevantUntil, before));
    return result.count;
  }
}
