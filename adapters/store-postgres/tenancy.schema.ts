import { boolean, foreignKey, index, integer, json, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { millis } from "./columns.ts";

/** Tables behind TenancyStore, as in the libSQL store (adapters/store-libsql/tenancy.schema.ts). */

export const accounts = pgTable("accounts", {
  name: text("name").primaryKey(),
  createdAt: millis("created_at").notNull(),
});

export const profiles = pgTable(
  "profiles",
  {
    account: text("account")
      .notNull()
      .references(() => accounts.name, { onDelete: "cascade" }),
    name: text("name").notNull(),
    createdAt: millis("created_at").notNull(),
    updatedAt: millis("updated_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.account, table.name] })],
);

/** Keyed by the lower-cased e-mail (computed in TypeScript, as in the libSQL store); `email` keeps the spelling. */
export const users = pgTable("users", {
  emailKey: text("email_key").primaryKey(),
  email: text("email").notNull(),
  passwordHash: text("password_hash").notNull(),
  passwordSeed: text("password_seed"),
  disabled: boolean("disabled").notNull(),
  tokenGeneration: text("token_generation"),
  createdAt: millis("created_at").notNull(),
  updatedAt: millis("updated_at").notNull(),
});

export const userGrants = pgTable(
  "user_grants",
  {
    userEmailKey: text("user_email_key").notNull(),
    position: integer("position").notNull(),
    account: text("account").notNull(),
    /** `"*"` for every profile of the account, or an array of profile names. */
    profiles: json("profiles").$type<"*" | readonly string[]>().notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.userEmailKey, table.position] }),
    foreignKey({ columns: [table.userEmailKey], foreignColumns: [users.emailKey] }).onDelete("cascade"),
    index("user_grants_account_idx").on(table.account),
  ],
);

export const apiKeys = pgTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    userEmailKey: text("user_email_key").notNull(),
    userEmail: text("user_email").notNull(),
    keyHash: text("key_hash").notNull(),
    keySeed: text("key_seed"),
    createdAt: millis("created_at").notNull(),
    revokedAt: millis("revoked_at"),
  },
  (table) => [
    foreignKey({ columns: [table.userEmailKey], foreignColumns: [users.emailKey] }).onDelete("cascade"),
    index("api_keys_user_email_key_idx").on(table.userEmailKey),
  ],
);
