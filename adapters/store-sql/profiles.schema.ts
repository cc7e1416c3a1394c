import type { VisitorProfile } from "../../core/profiles/index.ts";
import type { ColumnKit, ColumnTypes } from "./sql-columns.ts";

export function profilesTables<D extends ColumnTypes>(c: ColumnKit<D>) {
  /**
   * DEC-PRO-03: one profile per group of stitched visitors, keyed by the group's canonical id. In SQLite a
   * WITHOUT ROWID table, as is visitor_members (libSQL migration 0008: drizzle's schema cannot say it; a test in
   * libsql.stores.test.ts checks it, so a migration generated later that rebuilds the table without it fails).
   */
  const visitorProfiles = c.table(
    "visitor_profiles",
    {
      account: c.text("account"),
      profile: c.text("profile"),
      canonical: c.text("canonical"),
      data: c.json<VisitorProfile>("data"),
      lastSeenAt: c.int64("last_seen_at"),
    },
    (table) => [c.primaryKey([table.account, table.profile, table.canonical])],
  );

  /** Every visitor id of a group (anonymous and known ids), so any of them finds the profile with one read. */
  const visitorMembers = c.table(
    "visitor_members",
    {
      account: c.text("account"),
      profile: c.text("profile"),
      visitorId: c.text("visitor_id"),
      canonical: c.text("canonical"),
    },
    (table) => [
      c.primaryKey([table.account, table.profile, table.visitorId]),
      c.index("visitor_members_canonical_idx", [table.account, table.profile, table.canonical]),
    ],
  );

  /** VID-08, PRV-09: which groups were joined into which, and when. */
  const visitorMerges = c.table(
    "visitor_merges",
    {
      id: c.serialKey("id"),
      account: c.text("account"),
      profile: c.text("profile"),
      fromId: c.text("from_id"),
      intoId: c.text("into_id"),
      at: c.int64("at"),
    },
    (table) => [c.index("visitor_merges_into_idx", [table.account, table.profile, table.intoId])],
  );

  /** DEC-MOM-04: since when each engine has been enabled. */
  const engineStates = c.table(
    "engine_states",
    {
      account: c.text("account"),
      profile: c.text("profile"),
      engineId: c.text("engine_id"),
      enabledSince: c.int64OrNull("enabled_since"),
    },
    (table) => [c.primaryKey([table.account, table.profile, table.engineId])],
  );

  return { visitorProfiles, visitorMembers, visitorMerges, engineStates };
}
