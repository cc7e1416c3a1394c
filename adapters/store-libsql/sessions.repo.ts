import { and, eq, lt, or } from "drizzle-orm";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import type { LockoutKind, LockoutStore, SessionRecord, SessionStore, VersionedLockout } from "../../core/ports/index.ts";
import { lockouts, sessions } from "./sessions.schema.ts";

function emailKey(email: string): string {
  return email.toLowerCase();
}

export class LibsqlSessionRepo implements SessionStore {
  constructor(private readonly db: LibSQLDatabase) {}

  async create(session: SessionRecord): Promise<void> {
    await this.db.insert(sessions).values({ ...session, userEmailKey: emailKey(session.userEmail) });
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

  async touch(id: string, lastSeenAt: number): Promise<void> {
    await this.db.update(sessions).set({ lastSeenAt }).where(and(eq(sessions.id, id), lt(sessions.lastSeenAt, lastSeenAt)));
  }

  async delete(id: string): Promise<void> {
    await this.db.delete(sessions).where(eq(sessions.id, id));
  }

  async deleteForUser(email: string): Promise<number> {
    const result = await this.db.delete(sessions).where(eq(sessions.userEmailKey, emailKey(email)));
    return result.rowsAffected;
  }

  async deleteExpired(before: number, createdBefore: number): Promise<number> {
    const result = await this.db.delete(sessions).where(or(lt(sessions.lastSeenAt, before), lt(sessions.createdAt, createdBefore)));
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

  async compareAndSet(kind: LockoutKind, name: string, expectedVersion: number | null, state: string): Promise<boolean> {
    if (expectedVersion === null) {
      const inserted = await this.db.insert(lockouts).values({ kind, name, state, version: 1 }).onConflictDoNothing();
      return inserted.rowsAffected === 1;
    }
    const updated = await this.db
      .update(lockouts)
      .set({ state, version: expectedVersion + 1 })
      .where(and(eq(lockouts.kind, kind), eq(lockouts.name, name), eq(lockouts.version, expectedVersion)));
    return updated.rowsAffected === 1;
  }
}
