import { and, eq } from "drizzle-orm";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import type { NewRevision } from "../../core/ports/index.ts";
import { revisionRowsOf, SqlRevisionRepo } from "../store-sql/revisions.repo.ts";
import { revisions, revisionTargets } from "./revisions.schema.ts";
import { profiles } from "./tenancy.schema.ts";

/** REV-*, DEC-REV-01..03: published revisions in libSQL (adapters/store-sql/revisions.repo.ts). */
export class LibsqlRevisionRepo extends SqlRevisionRepo {
  constructor(private readonly libsql: LibSQLDatabase) {
    super(libsql, { revisions, targets: revisionTargets });
  }

  async insert(revision: NewRevision): Promise<boolean> {
    const { libsql } = this;
    const owner = and(eq(profiles.account, revision.account), eq(profiles.name, revision.profile));
    // The foreign key would refuse the revision as well; checking first gives the reference's error.
    const [profile] = await libsql.select({ name: profiles.name }).from(profiles).where(owner);
    if (!profile) throw new Error(`profile ${revision.account}/${revision.profile} does not exist`);
    if (await this.isTaken(revision)) return false;
    try {
      // One batch is one transaction: the revision and its targets are stored together or not at all.
      const rows = revisionRowsOf(revision);
      const insertRevision = libsql.insert(revisions).values(rows.revision);
      if (rows.targets.length === 0) await insertRevision;
      else await libsql.batch([insertRevision, libsql.insert(revisionTargets).values(rows.targets)]);
      return true;
    } catch (error) {
      // Another process took the id or the seed between the check and the insert.
      if (await this.isTaken(revision)) return false;
      throw error;
    }
  }

  private async isTaken(revision: NewRevision): Promise<boolean> {
    if (await this.find(revision.account, revision.profile, revision.revisionId)) return true;
    return (
      revision.seed !== null && (await this.findBySeed(revision.account, revision.profile, revision.seed)) !== null
    );
  }
}
