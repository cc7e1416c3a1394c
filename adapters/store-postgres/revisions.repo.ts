import type { NewRevision } from "../../core/ports/index.ts";
import { revisionRowsOf, SqlRevisionRepo } from "../store-sql/revisions.repo.ts";
import type { PgDatabase } from "./database.ts";
import { revisions, revisionTargets } from "./revisions.schema.ts";

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
 * REV-*, DEC-REV-01..03: published revisions (adapters/store-sql/revisions.repo.ts) with their bundles in the
 * `bytea` column, so that every node serves every revision, whichever node published it.
 */
export class PgRevisionRepo extends SqlRevisionRepo {
  constructor(private readonly pg: PgDatabase) {
    super(pg, { revisions, targets: revisionTargets });
  }

  /**
   * One transaction: the revision and its targets are stored together or not at all. The primary key and the
   * seed's unique index decide between publications racing on any node: ON CONFLICT DO NOTHING waits for the
   * other's commit and then stores nothing, so exactly one of them is stored.
   */
  async insert(revision: NewRevision): Promise<boolean> {
    const rows = revisionRowsOf(revision);
    try {
      return await this.pg.transaction(async (tx) => {
        const stored = await tx
          .insert(revisions)
          .values(rows.revision)
          .onConflictDoNothing()
          .returning({ revisionId: revisions.revisionId });
        if (stored.length === 0) return false;
        if (rows.targets.length > 0) await tx.insert(revisionTargets).values(rows.targets);
        return true;
      });
    } catch (error) {
      if (isForeignKeyViolation(error))
        throw new Error(`profile ${revision.account}/${revision.profile} does not exist`, { cause: error });
      throw error;
    }
  }
}
