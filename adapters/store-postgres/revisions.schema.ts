import { foreignKey, json, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import type { RevisionDetails } from "../../core/revisions/index.ts";
import { bytea, millis } from "./columns.ts";
import { profiles } from "./tenancy.schema.ts";

/** REV-*, DEC-REV-*: published revisions with their bundles, in the database so that every node serves them. */
export const revisions = pgTable(
  "revisions",
  {
    account: text("account").notNull(),
    profile: text("profile").notNull(),
    revisionId: text("revision_id").notNull(),
    createdAt: millis("created_at").notNull(),
    seed: text("seed"),
    details: json("details").$type<RevisionDetails>().notNull(),
    bundle: bytea("bundle").notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.account, table.profile, table.revisionId] }),
    foreignKey({ columns: [table.account, table.profile], foreignColumns: [profiles.account, profiles.name] }).onDelete(
      "cascade",
    ),
    uniqueIndex("revisions_seed_idx").on(table.account, table.profile, table.seed),
  ],
);

export const revisionTargets = pgTable(
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
