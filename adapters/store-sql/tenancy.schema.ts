import type { ColumnKit, ColumnTypes } from "./sql-columns.ts";

/** Tables behind TenancyStore. Timestamps are epoch milliseconds, as the ports carry them. */
export function tenancyTables<D extends ColumnTypes>(c: ColumnKit<D>) {
  const accounts = c.table("accounts", {
    name: c.textKey("name"),
    createdAt: c.int64("created_at"),
  });

  /** A profile row; its configuration lives in the child tables of profile-config.schema.ts. */
  const profiles = c.table(
    "profiles",
    {
      account: c.text("account", { referencesOnDeleteCascade: () => accounts.name }),
      name: c.text("name"),
      createdAt: c.int64("created_at"),
      updatedAt: c.int64("updated_at"),
    },
    (table) => [c.primaryKey([table.account, table.name])],
  );

  /**
   * Users are keyed by the lower-cased e-mail so that lookups ignore case (the key is computed in
   * TypeScript, because SQLite's lower() folds ASCII only); `email` keeps the spelling last stored.
   */
  const users = c.table("users", {
    emailKey: c.textKey("email_key"),
    email: c.text("email"),
    passwordHash: c.text("password_hash"),
    passwordSeed: c.textOrNull("password_seed"),
    disabled: c.bool("disabled"),
    /** UserRecord.tokenGeneration: bearer tokens of another generation are refused; null for the first. */
    tokenGeneration: c.textOrNull("token_generation"),
    createdAt: c.int64("created_at"),
    updatedAt: c.int64("updated_at"),
  });

  /**
   * One row per grant, in the order the user record lists them. No foreign key to accounts: a grant may
   * name an account that is not (or not yet) configured, as the in-memory reference allows.
   */
  const userGrants = c.table(
    "user_grants",
    {
      userEmailKey: c.text("user_email_key"),
      position: c.int("position"),
      account: c.text("account"),
      /** `"*"` for every profile of the account, or a JSON array of profile names. */
      profiles: c.json<"*" | readonly string[]>("profiles"),
    },
    (table) => [
      c.primaryKey([table.userEmailKey, table.position]),
      c.foreignKeyOnDeleteCascade([table.userEmailKey], [users.emailKey]),
      c.index("user_grants_account_idx", [table.account]),
    ],
  );

  const apiKeys = c.table(
    "api_keys",
    {
      id: c.textKey("id"),
      userEmailKey: c.text("user_email_key"),
      /** The owner's e-mail as given on the key record, returned unchanged. */
      userEmail: c.text("user_email"),
      keyHash: c.text("key_hash"),
      keySeed: c.textOrNull("key_seed"),
      createdAt: c.int64("created_at"),
      revokedAt: c.int64OrNull("revoked_at"),
    },
    (table) => [
      c.foreignKeyOnDeleteCascade([table.userEmailKey], [users.emailKey]),
      c.index("api_keys_user_email_key_idx", [table.userEmailKey]),
    ],
  );

  return { accounts, profiles, users, userGrants, apiKeys };
}
