import type { RevisionDetails } from "../../core/revisions/index.ts";
import type { ColumnKit, ColumnTypes, SchemaColumn } from "./sql-columns.ts";

export function revisionsTables<D extends ColumnTypes>(
  c: ColumnKit<D>,
  profiles: { readonly account: SchemaColumn; readonly name: SchemaColumn },
) {
  /**
   * REV-*, DEC-REV-01..03: published revisions, in the database so that every node serves them. `details` is
   * the JSON answered by the details call, exactly; `bundle` the zip built once at publish time (last column, so
   * SQLite's reads of the other columns skip its pages). `seed` marks a revision published from the
   * configuration, unique per profile, so that a restart (or two nodes starting together) cannot publish it twice.
   */
  const revisions = c.table(
    "revisions",
    {
      account: c.text("account"),
      profile: c.text("profile"),
      revisionId: c.text("revision_id"),
      createdAt: c.int64("created_at"),
      seed: c.textOrNull("seed"),
      details: c.json<RevisionDetails>("details"),
      bundle: c.bytes("bundle"),
    },
    (table) => [
      c.primaryKey([table.account, table.profile, table.revisionId]),
      c.foreignKeyOnDeleteCascade([table.account, table.profile], [profiles.account, profiles.name]),
      c.uniqueIndex("revisions_seed_idx", [table.account, table.profile, table.seed]),
    ],
  );

  /** DEC-REV-03: which targets each revision was published to; the key serves "newest revision of a target". */
  const revisionTargets = c.table(
    "revision_targets",
    {
      account: c.text("account"),
      profile: c.text("profile"),
      target: c.text("target"),
      revisionId: c.text("revision_id"),
    },
    (table) => [
      c.primaryKey([table.account, table.profile, table.target, table.revisionId]),
      c.foreignKeyOnDeleteCascade(
        [table.account, table.profile, table.revisionId],
        [revisions.account, revisions.profile, revisions.revisionId],
      ),
    ],
  );

  return { revisions, revisionTargets };
}
