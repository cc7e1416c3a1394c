import { and, desc, eq } from "drizzle-orm";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import type { NewRevision, RevisionStore, StoredRevision } from "../../core/ports/index.ts";
import { revisions, revisionTargets } from "./revisions.schema.ts";
import { profiles } from "./tenancy.schema.ts";

/** The columns of a StoredRevision: everything but the bundle. */
const storedColumns = {
  account: revisions.account,
  profile: revisions.profile,
  revisionId: revisions.revisionId,
  createdAt: revisions.createdAt,
  seed: revisions.seed,
  details: revisions.details,
};

export class LibsqlRevisionRepo implements RevisionStore {
  constructor(private readonly db: LibSQLDatabase) {}

  async insert(revision: NewRevision): Promise<boolean> {
    const { db } = this;
    const owner = and(eq(profiles.account, revision.account), eq(profiles.name, revision.profile));
    // The foreign key would refuse the revision as well; checking first gives the reference's error.
    const [profile] = await db.select({ name: profiles.name }).from(profiles).where(owner);
    if (!profile) throw new Error(`profile ${revision.account}/${revision.profile} does not exist`);
    if (await this.isTaken(revision)) return false;
    const { account, profile: profileName, revisionId } = revision;
    try {
      // One batch is one transaction: the revision and its targets are stored together or not at all.
      const targets = revision.details.targets_published.map((target) => ({
        account,
        profile: profileName,
        target,
        revisionId,
      }));
      const insertRevision = db.insert(revisions).values({
        account,
        profile: profileName,
        revisionId,
        createdAt: revision.createdAt,
        seed: revision.seed,
        details: revision.details,
        bundle: Buffer.from(revision.bundle),
      });
      if (targets.length === 0) await insertRevision;
      else await db.batch([insertRevision, db.insert(revisionTargets).values(targets)]);
      return true;
    } catch (error) {
      // Another process took the id or the seed between the check and the insert.
      if (await this.isTaken(revision)) return false;
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

  private async isTaken(revision: NewRevision): Promise<boolean> {
    if (await this.find(revision.account, revision.profile, revision.revisionId)) return true;
    return (
      revision.seed !== null && (await this.findBySeed(revision.account, revision.profile, revision.seed)) !== null
    );
  }
}
