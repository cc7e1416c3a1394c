import { bigint, bigserial, index, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { millis } from "./columns.ts";
import { users } from "./tenancy.schema.ts";

/**
 * DEC-SES-02: v1 sessions; the cookie and the utk are kept only as SHA-256 hashes. `made` numbers the sessions
 * in the order they were made, what SessionStore.create needs to tell apart two made in the same millisecond
 * (the libSQL store uses its rowid; PostgreSQL has none that stays when a row is updated).
 */
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
    made: bigserial("made", { mode: "number" }).notNull(),
  },
  (table) => [index("sessions_user_idx").on(table.userEmailKey), index("sessions_last_seen_idx").on(table.lastSeenAt)],
);

/**
 * DEC-SES-01, DEC-AUT-01: lockout state per kind and name, updated by compare-and-set on `version` (64-bit: a
 * new record's version is 48 random bits, core's newLockoutVersion).
 */
export const lockouts = pgTable(
  "lockouts",
  {
    kind: text("kind").notNull(),
    name: text("name").notNull(),
    state: text("state").notNull(),
    version: bigint("version", { mode: "number" }).notNull(),
    relevantUntil: millis("relevant_until").notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.kind, table.name] }),
    index("lockouts_relevant_until_idx").on(table.relevantUntil),
  ],
);
