import { foreignKey, index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Tables behind TenancyStore. Timestamps are integer epoch milliseconds, as the ports carry them. */

export const accounts = sqliteTable("accounts", {
  name: text("name").primaryKey(),
  createdAt: integer("created_at").notNull(),
});

/** A profile row; its configuration lives in the child tables of profile-config.schema.ts. */
export const profiles = sqliteTable(
  "profiles",
  {
    account: text("account")
      .notNull()
      .references(() => accounts.name, { onDelete: "cascade" }),
    name: text("name").notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.account, table.name] })],
);

/**
 * Users are keyed by the lower-cased e-mail so that lookups ignore case (the key is computed in
 * TypeScript, because SQLite's lower() folds ASCII only); `email` keeps the spelling last stored.
 */
export const users = sqliteTable("users", {
  emailKey: text("email_key").primaryKey(),
  email: text("email").notNull(),
  passwordHash: text("password_hash").notNull(),
  passwordSeed: text("password_seed"),
  disabled: integer("disabled", { mode: "boolean" }).notNull(),
  /** UserRecord.tokenGeneration: bearer tokens of another generation are refused; null for the first. */
  tokenGeneration: text("token_generation"),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

/**
 * One row per grant, in the order the user record lists them. No foreign key to accounts: a grant may
 * name an account that is not (or not yet) configured, as the in-memory reference allows.
 */
export const userGrants = sqliteTable(
  "user_grants",
  {
    userEmailKey: text("user_email_key").notNull(),
    position: integer("position").notNull(),
    account: text("account").notNull(),
    /** `"*"` for every profile of the account, or a JSON array of profile names. */
    profiles: text("profiles", { mode: "json" }).$type<"*" | readonly string[]>().notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.userEmailKey, table.position] }),
    foreignKey({ columns: [table.userEmailKey], foreignColumns: [users.emailKey] }).onDelete("cascade"),
    index("user_grants_account_idx").on(table.account),
  ],
);

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    userEmailKey: text("user_email_key").notNull(),
    /** The owner's e-mail as given on the key record, returned unchanged. */
    userEmail: text("user_email").notNull(),
    keyHash: text("key_hash").notNull(),
    keySeed: text("key_seed"),
    createdAt: integer("created_at").notNull(),
    revokedAt: integer("revoked_at"),
  },
  (table) => [
    foreignKey({ columns: [table.userEmailKey], foreignColumns: [users.emailKey] }).onDelete("cascade"),
    index("api_keys_user_email_key_idx").on(table.userEmailKey),
  ],
);
