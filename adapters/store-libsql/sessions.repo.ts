import { and, desc, eq, lt, lte, ne, notInArray, or, sql } from "drizzle-orm";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import { GroupCommitWriter } from "../../core/collect/index.ts";
import type {
  LockoutKind,
  LockoutStore,
  SessionRecord,
  SessionStore,
  VersionedLockout,
} from "../../core/ports/index.ts";
import { newLockoutVersion } from "../../core/session/index.ts";
import { cryptoIds } from "../runtime/crypto.ts";
import { nextEventLoopTurn } from "../runtime/event-loop.ts";
import { lockouts, sessions } from "./sessions.schema.ts";
import { type ReaderQuery, readerQuery, type StatementReader } from "./statement-reader.ts";

function emailKey(email: string): string {
  return email.toLowerCase();
}

interface Touch {
  readonly id: string;
  readonly lastSeenAt: number;
}

export class LibsqlSessionRepo implements SessionStore {
  /**
   * DEC-SES-02: every authenticated call writes its session's last use. The writes of the calls that arrive
   * together share one commit (one WAL sync) instead of one each; each call still waits for its own to be
   * committed, as the collection endpoint's events do (core/collect/group-commit.ts).
   */
  private readonly touches = new GroupCommitWriter<Touch>((batch) => this.commitTouches(batch), {
    gather: nextEventLoopTurn,
  });

  /** Every authenticated v1 call reads its session: on the statement reader, prepared once (a `file:` database). */
  private readonly byCookieHash: ReaderQuery | null;

  constructor(
    private readonly db: LibSQLDatabase,
    private readonly reader: StatementReader | null = null,
  ) {
    this.byCookieHash = reader
      ? readerQuery(
          this.selectSession()
            .where(eq(sessions.cookieHash, sql.placeholder("cookieHash")))
            .toSQL(),
        )
      : null;
  }

  /** One batch (one transaction): the insert, then the user's sessions beyond `maxPerUser` but the new one. */
  async create(session: SessionRecord, maxPerUser: number): Promise<number> {
    const userEmailKey = emailKey(session.userEmail);
    const othersOfUser = and(eq(sessions.userEmailKey, userEmailKey), ne(sessions.id, session.id));
    // Newest first; rowid orders the sessions made in the same millisecond as they were made.
    const kept = this.db
      .select({ id: sessions.id })
      .from(sessions)
      .where(othersOfUser)
      .orderBy(desc(sessions.createdAt), desc(sql`rowid`))
      .limit(Math.max(maxPerUser - 1, 0));
    const [, ended] = await this.db.batch([
      this.db.insert(sessions).values({ ...session, userEmailKey }),
      this.db.delete(sessions).where(and(othersOfUser, notInArray(sessions.id, kept))),
    ]);
    return ended.rowsAffected;
  }

  async findByCookieHash(cookieHash: string): Promise<SessionRecord | null> {
    if (this.reader && this.byCookieHash) {
      const row = this.reader.row(this.byCookieHash, { cookieHash });
      if (!row) return null;
      const [id, userEmail, storedCookieHash, utkHash, createdAt, lastSeenAt] = row;
      return {
        id: id as string,
        userEmail: userEmail as string,
        cookieHash: storedCookieHash as string,
        utkHash: utkHash as string,
        createdAt: createdAt as number,
        lastSeenAt: lastSeenAt as number,
      };
    }
    const [row] = await this.selectSession().where(eq(sessions.cookieHash, cookieHash));
    return row ?? null;
  }

  /** The columns of a SessionRecord, in its order. */
  private selectSession() {
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

  touch(id: string, lastSeenAt: number): Promise<void> {
    return this.touches.write({ id, lastSeenAt });
  }

  /** One transaction: each session of the batch moves to the latest of its uses, never back. */
  private async commitTouches(batch: readonly Touch[]): Promise<void> {
    const latest = new Map<string, number>();
    for (const { id, lastSeenAt } of batch) latest.set(id, Math.max(latest.get(id) ?? lastSeenAt, lastSeenAt));
    const [first, ...rest] = [...latest].map(([id, lastSeenAt]) =>
      this.db
        .update(sessions)
        .set({ lastSeenAt })
        .where(and(eq(sessions.id, id), lt(sessions.lastSeenAt, lastSeenAt))),
    );
    if (first) await this.db.batch([first, ...rest]);
  }

  async delete(id: string): Promise<void> {
    await this.db.delete(sessions).where(eq(sessions.id, id));
  }

  async deleteForUser(email: string): Promise<number> {
    const result = await this.db.delete(sessions).where(eq(sessions.userEmailKey, emailKey(email)));
    return result.rowsAffected;
  }

  async deleteExpired(before: number, createdBefore: number): Promise<number> {
    const result = await this.db
      .delete(sessions)
      .where(or(lt(sessions.lastSeenAt, before), lt(sessions.createdAt, createdBefore)));
    return result.rowsAffected;
  }
}

export class LibsqlLockoutRepo implements LockoutStore {
  constructor(private readonly db: LibSQLDatabase) {}

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
      return inserted.rowsAffected === 1;
    }
    const updated = await this.db
      .update(lockouts)
      .set({ state, version: expectedVersion + 1, relevantUntil })
      .where(and(eq(lockouts.kind, kind), eq(lockouts.name, name), eq(lockouts.version, expectedVersion)));
    return updated.rowsAffected === 1;
  }

  /**
   * One statement, so it judges each row as it is when deleted: a compare-and-set that made a row matter again
   * has moved its relevant_until past `before`, and the row stays.
   */
  async deleteExpired(before: number): Promise<number> {
    const result = await this.db.delete(lockouts).where(lte(lockouts.relevantUntil, before));
    return result.rowsAffected;
  }
}
