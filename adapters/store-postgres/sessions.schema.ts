import { index, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { millis } from "./columns.ts";
import { users } from "./tenancy.schema.ts";

/** DEC-SES-02: v1 sessions; the cookie and the utk are kept only as SHA-256 hashes. */
export const sessions = pgTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    userEmailKey: text("user_email_key")
      .notNull()
      .references(() => users.emailKey, { onDelete: "cascade" }),
    userEmail: text("user_email").notNull(),
    cookieHash: text("cookie_hash").notNull().unique(),
    utkHash: text("utk_hash").notNull(),
    createdAt: millis("created_at").notNull(),
    lastSeenAt: millis("last_seen_at").notNull(),
  },
  (table) => [index("sessions_user_idx").on(table.userEmailKey), index("sessions_last_seen_idx").on(table.lastSeenAt)],
);

/** DEC-SES-01, DEC-AUT-01: lockout state per kind and name, updated by compare-and-set on `version`. */
export const lockouts = pgTable(
  "lockouts",
  {
    kind: text("kind").notNull(),
    name: text("name").notNull(),
    state: text("state").notNull(),
    version: integer("version").notNull(),
    relevantUntil: millis("relevant_until").notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.kind, table.name] }),
    index("lockouts_relevant_until_idx").on(table.relevantUntil),
  ],
);
