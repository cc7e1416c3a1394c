import { bigserial, index, json, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import type { VisitorProfile } from "../../core/profiles/index.ts";
import { millis } from "./columns.ts";

/** DEC-PRO-03: one profile per group of stitched visitors, keyed by the group's canonical id. */
export const visitorProfiles = pgTable(
  "visitor_profiles",
  {
    account: text("account").notNull(),
    profile: text("profile").notNull(),
    canonical: text("canonical").notNull(),
    data: json("data").$type<VisitorProfile>().notNull(),
    lastSeenAt: millis("last_seen_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.account, table.profile, table.canonical] })],
);

/** Every visitor id of a group (anonymous and known ids), so any of them finds the profile with one read. */
export const visitorMembers = pgTable(
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
export const visitorMerges = pgTable(
  "visitor_merges",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    account: text("account").notNull(),
    profile: text("profile").notNull(),
    fromId: text("from_id").notNull(),
    intoId: text("into_id").notNull(),
    at: millis("at").notNull(),
  },
  (table) => [index("visitor_merges_into_idx").on(table.account, table.profile, table.intoId)],
);

/** DEC-MOM-04: since when each engine has been enabled. */
export const engineStates = pgTable(
  "engine_states",
  {
    account: text("account").notNull(),
    profile: text("profile").notNull(),
    engineId: text("engine_id").notNull(),
    enabledSince: millis("enabled_since"),
  },
  (table) => [primaryKey({ columns: [table.account, table.profile, table.engineId] })],
);
