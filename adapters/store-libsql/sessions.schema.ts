import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "./tenancy.schema.ts";

/** DEC-SES-02: v1 sessions; the cookie and the utk are kept only as SHA-256 hashes. */
export const sessions = sqliteTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    userEmailKey: text("user_email_key")
      .notNull()
      .references(() => users.emailKey, { onDelete: "cascade" }),
    userEmail: text("user_email").notNull(),
    cookieHash: text("cookie_hash").notNull().unique(),
    utkHash: text("utk_hash").notNull(),
    createdAt: integer("created_at").notNull(),
    lastSeenAt: integer("last_seen_at").notNull(),
  },
  (table) => [index("sessions_user_idx").on(table.userEmailKey), index("sessions_last_seen_idx").on(table.lastSeenAt)],
);

/**
 * DEC-SES-01, DEC-AUT-01: lockout state per kind and name, updated by compare-and-set on `version`.
 * `relevant_until`: from when the state no longer matters, so the session janitor may delete the row.
 */
export const lockouts = sqliteTable(
  "lockouts",
  {
    kind: text("kind").notNull(),
    name: text("name").notNull(),
    state: text("state").notNull(),
    version: integer("version").notNull(),
    relevantUntil: integer("relevant_until").notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.kind, table.name] }),
    index("lockouts_relevant_until_idx").on(table.relevantUntil),
  ],
);
