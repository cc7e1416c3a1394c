import type { Grant, ProfileConfig } from "../config/config.model.ts";

export interface AccountRecord {
  readonly name: string;
  readonly createdAt: number;
}

/** A profile with everything configured for it. */
export interface ProfileRecord {
  readonly account: string;
  readonly config: ProfileConfig;
  readonly createdAt: number;
  readonly updatedAt: number;
}

export interface UserRecord {
  readonly email: string;
  /** argon2id hash (DEC-SES-05). */
  readonly passwordHash: string;
  /**
   * The configuration value the password was last seeded from (a hash, or `env:<NAME>`), so that a restart
   * re-applies the configuration only when the configuration changed, and a password reset through the
   * admin API survives restarts. Null for users created through the admin API.
   */
  readonly passwordSeed: string | null;
  readonly disabled: boolean;
  readonly grants: readonly Grant[];
  /**
   * The random name of the user's current generation of bearer tokens: each token carries the generation it
   * was issued in, and one of another generation is refused (isTokenOfCurrentGeneration). A password reset and
   * a disabling start a new one, as the user's sessions end, so they end every token issued before them
   * exactly, whatever the clocks say. Null: the first generation, whose tokens name none.
   */
  readonly tokenGeneration: string | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** The fields of a user that updateUser changes; updatedAt always. */
export type UserChanges = Partial<
  Pick<UserRecord, "passwordHash" | "passwordSeed" | "disabled" | "grants" | "tokenGeneration">
> & { readonly updatedAt: number };

export interface ApiKeyRecord {
  readonly id: string;
  readonly userEmail: string;
  /** argon2id hash (DEC-SES-05). */
  readonly keyHash: string;
  /** As UserRecord.passwordSeed, for keys declared in the configuration. */
  readonly keySeed: string | null;
  readonly createdAt: number;
  readonly revokedAt: number | null;
}

/**
 * Accounts, profiles (with their configuration), users, grants and API keys.
 *
 * The records a read answers are immutable values, readonly in their types and frozen at run time (a change
 * through one throws), so a store may hand the same record to every reader: a moments lookup reads its
 * profile's configuration on every request, and a copy of it cost more than the lookup's own reads
 * (bench/FINDINGS.md, sixth round). A list is a new array on every call.
 */
export interface TenancyStore {
  listAccounts(): Promise<AccountRecord[]>;
  findAccount(name: string): Promise<AccountRecord | null>;
  /** Creates the account if absent; an existing account is left as it is. */
  ensureAccount(name: string, now: number): Promise<void>;

  listProfiles(account: string): Promise<ProfileRecord[]>;
  findProfile(account: string, profile: string): Promise<ProfileRecord | null>;
  /** Creates the profile or replaces its whole configuration. The account must exist. */
  putProfile(account: string, config: ProfileConfig, now: number): Promise<void>;

  listUsers(): Promise<UserRecord[]>;
  findUser(email: string): Promise<UserRecord | null>;
  /** Creates the user or replaces it (keyed by e-mail, compared case-insensitively). */
  putUser(user: UserRecord): Promise<void>;
  /**
   * Writes only the fields `changes` gives (the grants as a whole), in one transaction, and answers the user as it
   * then is; null, and nothing written, if there is no such user. A change that read the user before another
   * committed never writes back what it read: a grant change that read the user while a password reset was
   * hashing leaves the reset's password and tokenGeneration as they are, so the tokens the reset ended stay ended.
   */
  updateUser(email: string, changes: UserChanges): Promise<UserRecord | null>;

  listApiKeys(email: string): Promise<ApiKeyRecord[]>;
  findApiKey(id: string): Promise<ApiKeyRecord | null>;
  /** Creates the key or replaces it (keyed by id). The user must exist. */
  putApiKey(key: ApiKeyRecord): Promise<void>;
}
