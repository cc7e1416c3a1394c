import { blob, foreignKey, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { RevisionDetails } from "../../core/revisions/index.ts";
import { profiles } from "./tenancy.schema.ts";

/**
 * REV-*, DEC-REV-01..03: published revisions. `details` is the JSON answered by the details call, exactly;
 * `bundle` the zip built once at publish time (last column, so reads of the other columns skip its pages).
 * `seed` marks a revision published from the configuration, unique per profile, so that a restart (or two
 * nodes starting together) cannot publish it twice.
 */
export const revisions = sqliteTable(
  "revisions",
  {
    account: text("account").notNull(),
    profile: text("profile").notNull(),
    revisionId: text("revision_id").notNull(),
    createdAt: integer("created_at").notNull(),
    seed: text("seed"),
    details: text("details", { mode: "json" }).$type<RevisionDetails>().notNull(),
    bundle: blob("bundle", { mode: "buffer" }).notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.account, table.profile, table.revisionId] }),
    foreignKey({ columns: [table.account, table.profile], foreignColumns: [profiles.account, profiles.name] }).onDelete(
      "cascade",
    ),
    uniqueIndex("revisions_seed_idx").on(table.account, table.profile, table.seed),
  ],
);

/** DEC-REV-03: which targets each revision was published to; the key serves "newest revision of a target". */
export const revisionTargets = sqliteTable(
  "revision_targets",
  {
    account: text("account").notNull(),
    profile: text("profile").notNull(),
    target: text("target").notNull(),
    revisionId: text("revision_id").notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.account, table.profile, table.target, table.revisionId] }),
    foreignKey({
      columns: [table.account, table.profile, table.revisionId],
      foreignColumns: [revisions.account, revisions.profile, revisions.revisionId],
    }).onDelete("cascade"),
  ],
);
