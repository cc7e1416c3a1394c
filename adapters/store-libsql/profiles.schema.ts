import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { VisitorProfile } from "../../core/profiles/index.ts";

/**
 * DEC-PRO-03: one profile per group of stitched visitors, keyed by the group's canonical id. A WITHOUT ROWID
 * table, as is visitor_members (migration 0008: drizzle's schema cannot say it; a test in libsql.stores.test.ts
 * checks it, so a migration generated later that rebuilds the table without it fails).
 */
export const visitorProfiles = sqliteTable(
  "visitor_profiles",
  {
    account: text("account").notNull(),
    profile: text("profile").notNull(),
    canonical: text("canonical").notNull(),
    data: text("data", { mode: "json" }).$type<VisitorProfile>().notNull(),
    lastSeenAt: integer("last_seen_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.account, table.profile, table.canonical] })],
);

/** Every visitor id of a group (anonymous and known ids), so any of them finds the profile with one read. */
export const visitorMembers = sqliteTable(
  "visitor_members",
  {
    account: text("account").notNull(),
    profile: text("profile").notNull(),
    visitorId: text("visitor_id").notNull(),
    canonical: text("canonical").notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.account, table.profile, table.visitorId] }),
    index("visitor_members_canonical_idx").on(table.account, table.profile, table.canonical),
  ],
);

/** VID-08, PRV-09: which groups were joined into which, and when. */
export const visitorMerges = sqliteTable(
  "visitor_merges",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    account: text("account").notNull(),
    profile: text("profile").notNull(),
    fromId: text("from_id").notNull(),
    intoId: text("into_id").notNull(),
    at: integer("at").notNull(),
  },
  (table) => [index("visitor_merges_into_idx").on(table.account, table.profile, table.intoId)],
);

/** DEC-MOM-04: since when each engine has been enabled. */
export const engineStates = sqliteTable(
  "engine_states",
  {
    account: text("account").notNull(),
    profile: text("profile").notNull(),
    engineId: text("engine_id").notNull(),
    enabledSince: integer("enabled_since"),
  },
  (table) => [primaryKey({ columns: [table.account, table.profile, table.engineId] })],
);
