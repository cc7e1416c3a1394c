import { and, desc, eq, lt, ne, notInArray, sql } from "drizzle-orm";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import { GroupCommitWriter } from "../../core/collect/index.ts";
import type { SessionRecord } from "../../core/ports/index.ts";
import { nextEventLoopTurn } from "../runtime/event-loop.ts";
import { emailKey, SqlLockoutRepo, SqlSessionRepo } from "../store-sql/sessions.repo.ts";
import { libsqlDialect } from "./libsql.dialect.ts";
import { lockouts, sessions } from "./sessions.schema.ts";
import { type ReaderQuery, readerQuery, type StatementReader } from "./statement-reader.ts";

interface Touch {
  readonly id: string;
  readonly lastSeenAt: number;
}

/** DEC-SES-02: v1 sessions in libSQL (adapters/store-sql/sessions.repo.ts). */
export class LibsqlSessionRepo extends SqlSessionRepo {
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
    private readonly libsql: LibSQLDatabase,
    private readonly reader: StatementReader | null = null,
  ) {
    super(libsql, sessions, libsqlDialect);
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
    const kept = this.libsql
      .select({ id: sessions.id })
      .from(sessions)
      .where(othersOfUser)
      .orderBy(desc(sessions.createdAt), desc(sql`rowid`))
      .limit(Math.max(maxPerUser - 1, 0));
    const [, ended] = await this.libsql.batch([
      this.libsql.insert(sessions).values({ ...session, userEmailKey }),
      this.libsql.delete(sessions).where(and(othersOfUser, notInArray(sessions.id, kept))),
    ]);
    return ended.rowsAffected;
  }

  override async findByCookieHash(cookieHash: string): Promise<SessionRecord | null> {
    if (!this.reader || !this.byCookieHash) return super.findByCookieHash(cookieHash);
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

  touch(id: string, lastSeenAt: number): Promise<void> {
    return this.touches.write({ id, lastSeenAt });
  }

  /** One transaction: each session of the batch moves to the latest of its uses, never back. */
  private async commitTouches(batch: readonly Touch[]): Promise<void> {
    const latest = new Map<string, number>();
    for (const { id, lastSeenAt } of batch) latest.set(id, Math.max(latest.get(id) ?? lastSeenAt, lastSeenAt));
    const [first, ...rest] = [...latest].map(([id, lastSeenAt]) =>
      this.libsql
        .update(sessions)
        .set({ lastSeenAt })
        .where(and(eq(sessions.id, id), lt(sessions.lastSeenAt, lastSeenAt))),
    );
    if (first) await this.libsql.batch([first, ...rest]);
  }
}

/** DEC-SES-01: the lockouts in libSQL (adapters/store-sql/sessions.repo.ts). */
export class LibsqlLockoutRepo extends SqlLockoutRepo {
  constructor(db: LibSQLDatabase) {
    super(db, lockouts, libsqlDialect);
  }
}
