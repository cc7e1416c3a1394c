import { and, desc, eq, lt, ne, notInArray } from "drizzle-orm";
import type { SessionRecord } from "../../core/ports/index.ts";
import { emailKey, SqlLockoutRepo, SqlSessionRepo } from "../store-sql/sessions.repo.ts";
import type { PgDatabase } from "./database.ts";
import { postgresDialect } from "./postgres.dialect.ts";
import { lockouts, sessions } from "./sessions.schema.ts";
import { users } from "./tenancy.schema.ts";

/** DEC-SES-02: v1 sessions in PostgreSQL (adapters/store-sql/sessions.repo.ts), for every node. */
export class PgSessionRepo extends SqlSessionRepo {
  constructor(private readonly pg: PgDatabase) {
    super(pg, sessions, postgresDialect);
  }

  /**
   * One transaction: the insert, then the user's sessions beyond `maxPerUser` but the new one. It first locks
   * the user's row, so that the logins of one user on several nodes take turns: each then sees the sessions the
   * others made, and the user never keeps more than `maxPerUser`. (FOR NO KEY UPDATE: it does not wait for the
   * foreign key checks of other writes, which only share the row's key.)
   */
  async create(session: SessionRecord, maxPerUser: number): Promise<number> {
    const userEmailKey = emailKey(session.userEmail);
    const othersOfUser = and(eq(sessions.userEmailKey, userEmailKey), ne(sessions.id, session.id));
    return this.pg.transaction(async (tx) => {
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

  /**
   * DEC-SES-02: one statement per use, moving the last use forward only (a node with an older use that waited
   * for another's write re-checks it against the newer value). Not batched into transactions as the libSQL store
   * does: PostgreSQL already flushes together the commits that arrive together, and two nodes' batches touching
   * the same sessions in different orders could deadlock.
   */
  async touch(id: string, lastSeenAt: number): Promise<void> {
    await this.pg
      .update(sessions)
      .set({ lastSeenAt })
      .where(and(eq(sessions.id, id), lt(sessions.lastSeenAt, lastSeenAt)));
  }
}

/** DEC-SES-01: the lockouts in PostgreSQL (adapters/store-sql/sessions.repo.ts), counting for the whole cluster. */
export class PgLockoutRepo extends SqlLockoutRepo {
  constructor(db: PgDatabase) {
    super(db, lockouts, postgresDialect);
  }
}
