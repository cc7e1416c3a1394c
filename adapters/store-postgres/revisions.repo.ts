import { and, desc, eq } from "drizzle-orm";
import type { NewRevision, RevisionStore, StoredRevision } from "../../core/ports/index.ts";
import type { PgDatabase } from "./database.ts";
import { revisions, revisionTargets } from "./revisions.schema.ts";

/** The columns of a StoredRevision: everything but the bundle. */
const storedColumns = {
  account: revisions.account,
  profile: revisions.profile,
  revisionId: revisions.revisionId,
  createdAt: revisions.createdAt,
  seed: revisions.seed,
  details: revisions.details,
};

/** PostgreSQL's SQLSTATE for a row whose foreign key names no row: here, a revision of a missing profile. */
const foreignKeyViolation = "23503";

/** drizzle wraps the driver's error (a PostgresError with its SQLSTATE in `code`) as its `cause`. */
function isForeignKeyViolation(error: unknown): boolean {
  for (let each = error; each instanceof Error; each = each.cause) {
    if ((each as Error & { code?: unknown }).code === foreignKeyViolation) return true;
  }
  return false;
}

/**
 * REV-*, DEC-REV-01..03: published revisions with their bundles in the `bytea` column, so that every node
 * serves every revision, whichever node published it.
 */
export class PgRevisionRepo implements RevisionStore {
  constructor(private readonly db: PgDatabase) {}

  /**
   * One transaction: the revision and its targets are stored together or not at all. The primary key and the
   * seed's unique index decide between publications racing on any node: ON CONFLICT DO NOTHING waits for the
   * other's commit and then stores nothing, so exactly one of them is stored.
   */
  async insert(revision: NewRevision): Promise<boolean> {
    const { account, profile, revisionId } = revision;
    try {
      return await this.db.transaction(async (tx) => {
        const stored = await tx
          .insert(revisions)
          .values({
            account,
            profile,
            revisionId,
            createdAt: revision.createdAt,
            seed: revision.seed,
            details: revision.details,
            bundle: Buffer.from(revision.bundle),
          })
          .onConflictDoNothing()
          .returning({ revisionId: revisions.revisionId });
        if (stored.length === 0) return false;
        const targets = revision.details.targets_published.map((target) => ({ account, profile, target, revisionId }));
        if (targets.length > 0) await tx.insert(revisionTargets).values(targets);
        return true;
      });
    } catch (error) {
      if (isForeignKeyViolation(error))
        throw new Error(`profile ${account}/${profile} does not exist`, { cause: error });
      throw error;
    }
  }

  async listIds(account: string, profile: string): Promise<string[]> {
    const rows = await this.db
      .select({ revisionId: revisions.revisionId })
      .from(revisions)
      .where(and(eq(revisions.account, account), eq(revisions.profile, profile)))
      .orderBy(desc(revisions.revisionId));
    return rows.map((row) => row.revisionId);
  }

  async find(account: string, profile: string, revisionId: string): Promise<StoredRevision | null> {
    const [row] = await this.db
      .select(storedColumns)
      .from(revisions)
      .where(and(eq(revisions.account, account), eq(revisions.profile, profile), eq(revisions.revisionId, revisionId)));
    return row ?? null;
  }

  async findBySeed(account: string, profile: string, seed: string): Promise<StoredRevision | null> {
    const [row] = await this.db
      .select(storedColumns)
      .from(revisions)
      .where(and(eq(revisions.account, account), eq(revisions.profile, profile), eq(revisions.seed, seed)));
    return row ?? null;
  }

  async readBundle(account: string, profile: string, revisionId: string): Promise<Uint8Array | null> {
    const [row] = await this.db
      .select({ bundle: revisions.bundle })
      .from(revisions)
      .where(and(eq(revisions.account, account), eq(revisions.profile, profile), eq(revisions.revisionId, revisionId)));
    return row ? new Uint8Array(row.bundle) : null;
  }

  async latestForTarget(account: string, profile: string, target: string): Promise<string | null> {
    const [row] = await this.db
      .select({ revisionId: revisionTargets.revisionId })
      .from(revisionTargets)
      .where(
        and(
          eq(revisionTargets.account, account),
          eq(revisionTargets.profile, profile),
          eq(revisionTargets.target, target),
        ),
      )
      .orderBy(desc(revisionTargets.revisionId))
      .limit(1);
    return row?.revisionId ?? null;
  }
}
