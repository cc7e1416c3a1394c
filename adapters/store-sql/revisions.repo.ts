import { and, desc, eq, type Table } from "drizzle-orm";
import type { NewRevision, RevisionStore, StoredRevision } from "../../core/ports/index.ts";
import type { RevisionDetails } from "../../core/revisions/index.ts";
import { columnsOf, type SqlColumn, type SqlDatabase } from "./sql-database.ts";

/** The `revisions` table (revisions.schema.ts of each store): the bundle is bytes, a Buffer in TypeScript. */
export type RevisionsTable = Table & {
  readonly account: SqlColumn<string>;
  readonly profile: SqlColumn<string>;
  readonly revisionId: SqlColumn<string>;
  readonly createdAt: SqlColumn<number>;
  readonly seed: SqlColumn<string, true>;
  readonly details: SqlColumn<RevisionDetails>;
  readonly bundle: SqlColumn<Buffer>;
};

/** The `revision_targets` table: which revision each target published. */
export type RevisionTargetsTable = Table & {
  readonly account: SqlColumn<string>;
  readonly profile: SqlColumn<string>;
  readonly target: SqlColumn<string>;
  readonly revisionId: SqlColumn<string>;
};

export interface RevisionTables {
  readonly revisions: RevisionsTable;
  readonly targets: RevisionTargetsTable;
}

/** The columns of a StoredRevision: everything but the bundle. */
const storedColumnNames = ["account", "profile", "revisionId", "createdAt", "seed", "details"] as const;

/** A new revision as the rows that store it: its own, and one per target it publishes. */
export function revisionRowsOf(revision: NewRevision) {
  const { account, profile, revisionId } = revision;
  return {
    revision: {
      account,
      profile,
      revisionId,
      createdAt: revision.createdAt,
      seed: revision.seed,
      details: revision.details,
      bundle: Buffer.from(revision.bundle),
    },
    targets: revision.details.targets_published.map((target) => ({ account, profile, target, revisionId })),
  };
}

/**
 * REV-*, DEC-REV-01..03: published revisions in SQL, for both stores. Storing one (the revision and its
 * targets together or not at all, once per id and seed) is each store's own.
 */
export abstract class SqlRevisionRepo implements RevisionStore {
  constructor(
    protected readonly db: SqlDatabase,
    protected readonly tables: RevisionTables,
  ) {}

  abstract insert(revision: NewRevision): Promise<boolean>;

  private isRevision(account: string, profile: string, revisionId: string) {
    const { revisions } = this.tables;
    return and(eq(revisions.account, account), eq(revisions.profile, profile), eq(revisions.revisionId, revisionId));
  }

  async listIds(account: string, profile: string): Promise<string[]> {
    const { revisions } = this.tables;
    const rows = await this.db
      .select({ revisionId: revisions.revisionId })
      .from(revisions)
      .where(and(eq(revisions.account, account), eq(revisions.profile, profile)))
      .orderBy(desc(revisions.revisionId));
    return rows.map((row) => row.revisionId);
  }

  async find(account: string, profile: string, revisionId: string): Promise<StoredRevision | null> {
    const { revisions } = this.tables;
    const [row] = await this.db
      .select(columnsOf(revisions, storedColumnNames))
      .from(revisions)
      .where(this.isRevision(account, profile, revisionId));
    return row ?? null;
  }

  async findBySeed(account: string, profile: string, seed: string): Promise<StoredRevision | null> {
    const { revisions } = this.tables;
    const [row] = await this.db
      .select(columnsOf(revisions, storedColumnNames))
      .from(revisions)
      .where(and(eq(revisions.account, account), eq(revisions.profile, profile), eq(revisions.seed, seed)));
    return row ?? null;
  }

  async readBundle(account: string, profile: string, revisionId: string): Promise<Uint8Array | null> {
    const { revisions } = this.tables;
    const [row] = await this.db
      .select({ bundle: revisions.bundle })
      .from(revisions)
      .where(this.isRevision(account, profile, revisionId));
    return row ? new Uint8Array(row.bundle) : null;
  }

  async latestForTarget(account: string, profile: string, target: string): Promise<string | null> {
    const { targets } = this.tables;
    const [row] = await this.db
      .select({ revisionId: targets.revisionId })
      .from(targets)
      .where(and(eq(targets.account, account), eq(targets.profile, profile), eq(targets.target, target)))
      .orderBy(desc(targets.revisionId))
      .limit(1);
    return row?.revisionId ?? null;
  }
}
