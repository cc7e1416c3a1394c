import type { ColumnKit, ColumnTypes, SchemaColumn } from "./sql-columns.ts";

/**
 * `sessionOrder`: the columns a dialect adds to `sessions` to number them in the order they were made, what
 * SessionStore.create needs to tell apart two made in the same millisecond (SQLite has its rowid, none).
 */
export function sessionsTables<D extends ColumnTypes, O extends Record<string, unknown>>(
  c: ColumnKit<D>,
  users: { readonly emailKey: SchemaColumn },
  sessionOrder: O,
) {
  /** DEC-SES-02: v1 sessions; the cookie and the utk are kept only as SHA-256 hashes. */
  const sessions = c.table(
    "sessions",
    {
      id: c.textKey("id"),
      userEmailKey: c.text("user_email_key", { referencesOnDeleteCascade: () => users.emailKey }),
      userEmail: c.text("user_email"),
      cookieHash: c.text("cookie_hash", { unique: true }),
      utkHash: c.text("utk_hash"),
      createdAt: c.int64("created_at"),
      lastSeenAt: c.int64("last_seen_at"),
      ...sessionOrder,
    },
    (table) => [
      c.index("sessions_user_idx", [table.userEmailKey]),
      c.index("sessions_last_seen_idx", [table.lastSeenAt]),
    ],
  );

  /**
   * DEC-SES-01, DEC-AUT-01: lockout state per kind and name, updated by compare-and-set on `version` (64-bit: a
   * new record's version is 48 random bits, core's newLockoutVersion). `relevant_until`: from when the state no
   * longer matters, so the session janitor may delete the row.
   */
  const lockouts = c.table(
    "lockouts",
    {
      kind: c.text("kind"),
      name: c.text("name"),
      state: c.text("state"),
      version: c.int64("version"),
      relevantUntil: c.int64("relevant_until"),
    },
    (table) => [c.primaryKey([table.kind, table.name]), c.index("lockouts_relevant_until_idx", [table.relevantUntil])],
  );

  return { sessions, lockouts };
}
