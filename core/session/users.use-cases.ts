import type { Grant } from "../config/config.model.ts";
import { type ManagementError, managementError } from "../errors/index.ts";
import { isEmailAddress } from "../names/names.rules.ts";
import type { Clock } from "../ports/clock.port.ts";
import type { SecretHasher } from "../ports/hashing.port.ts";
import type { IdSource } from "../ports/ids.port.ts";
import type { Stores } from "../ports/stores.ts";
import type { ApiKeyRecord, UserChanges, UserRecord } from "../ports/tenancy.store.ts";
import { err, ok, type Result } from "../result.ts";
import { isStorableText } from "../values/storable-text.rules.ts";
import { issuedApiKey, issuedApiKeySeed, passwordProblem } from "./secrets.rules.ts";
import { mergeGrants, newTokenGeneration } from "./session.rules.ts";

/** A grant as JSON answers carry it. */
export interface GrantView {
  account: string;
  profiles: "*" | string[];
}

/** A user as the admin API shows it: never a hash. */
export interface UserView {
  readonly email: string;
  readonly disabled: boolean;
  readonly grants: GrantView[];
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface ApiKeyView {
  readonly id: string;
  readonly user: string;
  readonly createdAt: string;
  readonly revokedAt: string | null;
}

/** The longest e-mail address (RFC 5321's path limit); a login with a longer name is refused unread. */
export const maxEmailLength = 254;
const keyIdPattern = /^[A-Za-z0-9_~-]{1,100}$/;

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

export function userView(user: UserRecord): UserView {
  const grants = user.grants.map((grant) => ({
    account: grant.account,
    profiles: grant.profiles === "*" ? ("*" as const) : [...grant.profiles],
  }));
  return {
    email: user.email,
    disabled: user.disabled,
    grants,
    createdAt: iso(user.createdAt),
    updatedAt: iso(user.updatedAt),
  };
}

function apiKeyView(key: ApiKeyRecord): ApiKeyView {
  return {
    id: key.id,
    user: key.userEmail,
    createdAt: iso(key.createdAt),
    revokedAt: key.revokedAt === null ? null : iso(key.revokedAt),
  };
}

function invalid(parameter: string, problem: string): ManagementError {
  return managementError("invalidParameter", { parameter, problem });
}

function notFound(what: string): ManagementError {
  return managementError("itemNotFound", { what });
}

/**
 * The admin use-cases for users and API keys (issue: sessions and tenancy): create users, reset
 * passwords, change grants, enable or disable, unlock, issue, list and revoke API keys. Changing a password or
 * disabling a user ends that user's sessions; a reset also unlocks the name.
 */
export class UsersService {
  constructor(
    private readonly deps: {
      stores: Stores;
      hasher: SecretHasher;
      ids: IdSource;
      clock: Clock;
      /** DEC-SES-01: forgets a name's failed logins and key checks (AuthService.unlock); none: nothing to unlock. */
      unlock?: (email: string) => Promise<void>;
    },
  ) {}

  /** The accounts and the names of their profiles (the admin API's GET /admin/accounts). */
  async listTenants(): Promise<Array<{ name: string; profiles: string[] }>> {
    const accounts = await this.deps.stores.tenancy.listAccounts();
    return Promise.all(
      accounts.map(async (account) => ({
        name: account.name,
        profiles: (await this.deps.stores.tenancy.listProfiles(account.name)).map((profile) => profile.config.name),
      })),
    );
  }

  async list(): Promise<UserView[]> {
    return (await this.deps.stores.tenancy.listUsers()).map(userView);
  }

  async get(email: string): Promise<Result<UserView, ManagementError>> {
    const user = await this.findUser(email);
    return user ? ok(userView(user)) : err(notFound(`User ${email}`));
  }

  async create(input: {
    email: string;
    password: string;
    grants?: readonly Grant[];
    disabled?: boolean;
  }): Promise<Result<UserView, ManagementError>> {
    if (!isEmailAddress(input.email) || input.email.length > maxEmailLength)
      return err(invalid("email", `must be an e-mail address of at most ${maxEmailLength} characters`));
    const password = this.checkPassword(input.password);
    if (!password.ok) return password;
    const grants = await this.checkGrants(input.grants ?? []);
    if (!grants.ok) return grants;
    if (await this.deps.stores.tenancy.findUser(input.email))
      return err(invalid("email", `a user ${input.email} exists already`));
    const now = this.deps.clock.now();
    const user: UserRecord = {
      email: input.email,
      passwordHash: await this.deps.hasher.hash(input.password),
      passwordSeed: null,
      disabled: input.disabled ?? false,
      grants: grants.value,
      tokenGeneration: null,
      createdAt: now,
      updatedAt: now,
    };
    await this.deps.stores.tenancy.putUser(user);
    return ok(userView(user));
  }

  /** Sets a new password: the user's sessions end, and the name is unlocked so the new password works at once. */
  async resetPassword(email: string, password: string): Promise<Result<UserView, ManagementError>> {
    const checked = this.checkPassword(password);
    if (!checked.ok) return checked;
    const reset = await this.update(email, async () => ({ passwordHash: await this.deps.hasher.hash(password) }), {
      endSessions: true,
    });
    if (reset.ok) await this.deps.unlock?.(reset.value.email);
    return reset;
  }

  /** DEC-SES-01: the admin's unlock of a user whom failed attempts (an attacker's, say) locked out. */
  async unlock(email: string): Promise<Result<UserView, ManagementError>> {
    const found = await this.get(email);
    if (found.ok) await this.deps.unlock?.(found.value.email);
    return found;
  }

  async setGrants(email: string, grants: readonly Grant[]): Promise<Result<UserView, ManagementError>> {
    const checked = await this.checkGrants(grants);
    if (!checked.ok) return checked;
    return this.update(email, async () => ({ grants: checked.value }), { endSessions: false });
  }

  async setDisabled(email: string, disabled: boolean): Promise<Result<UserView, ManagementError>> {
    return this.update(email, async () => ({ disabled }), { endSessions: disabled });
  }

  /** Makes a new key for the user; the key itself is answered this once and kept only as a hash. */
  async issueApiKey(email: string, id?: string): Promise<Result<ApiKeyView & { key: string }, ManagementError>> {
    const user = await this.findUser(email);
    if (!user) return err(notFound(`User ${email}`));
    const keyId = id ?? `key-${this.deps.ids.randomHex(8)}`;
    if (!keyIdPattern.test(keyId)) return err(invalid("id", "may contain only A-Z a-z 0-9 _ - ~ (at most 100)"));
    if (await this.deps.stores.tenancy.findApiKey(keyId))
      return err(invalid("id", `an API key ${keyId} exists already`));
    const key = issuedApiKey(keyId, this.deps.ids.randomToken(32));
    const record: ApiKeyRecord = {
      id: keyId,
      userEmail: user.email,
      keyHash: await this.deps.hasher.hash(key),
      keySeed: issuedApiKeySeed,
      createdAt: this.deps.clock.now(),
      revokedAt: null,
    };
    await this.deps.stores.tenancy.putApiKey(record);
    return ok({ ...apiKeyView(record), key });
  }

  async listApiKeys(email: string): Promise<Result<ApiKeyView[], ManagementError>> {
    const user = await this.findUser(email);
    if (!user) return err(notFound(`User ${email}`));
    return ok((await this.deps.stores.tenancy.listApiKeys(user.email)).map(apiKeyView));
  }

  /** DEC-AUT-02: a revoked key stops at once; tokens issued from it live until they expire. */
  async revokeApiKey(email: string, id: string): Promise<Result<ApiKeyView, ManagementError>> {
    const key = isStorableText(id) ? await this.deps.stores.tenancy.findApiKey(id) : null;
    if (!key || key.userEmail.toLowerCase() !== email.toLowerCase()) return err(notFound(`API key ${id} of ${email}`));
    const revoked = key.revokedAt === null ? { ...key, revokedAt: this.deps.clock.now() } : key;
    await this.deps.stores.tenancy.putApiKey(revoked);
    return ok(apiKeyView(revoked));
  }

  /**
   * `endSessions`: a reset or a disabling ends the user's sessions, and the bearer tokens issued until now (a
   * new tokenGeneration), so that neither outlives it, also once the user is enabled again. Only the fields
   * `change` names are written (TenancyStore.updateUser): a change that read the user while a reset was hashing
   * must not write back the password or the generation of tokens that the reset ended.
   */
  private async update(
    email: string,
    change: (user: UserRecord) => Promise<Omit<UserChanges, "tokenGeneration" | "updatedAt">>,
    options: { endSessions: boolean },
  ): Promise<Result<UserView, ManagementError>> {
    const user = await this.findUser(email);
    if (!user) return err(notFound(`User ${email}`));
    const now = this.deps.clock.now();
    const changes = await change(user);
    const generation = options.endSessions ? { tokenGeneration: newTokenGeneration(this.deps.ids) } : {};
    const next = await this.deps.stores.tenancy.updateUser(user.email, { ...changes, ...generation, updatedAt: now });
    if (!next) return err(notFound(`User ${email}`));
    if (options.endSessions) await this.deps.stores.sessions.deleteForUser(user.email);
    return ok(userView(next));
  }

  /**
   * The user of an e-mail address; none for one that no store keeps (decisions of our own, "Text that a store
   * cannot keep").
   */
  private findUser(email: string): Promise<UserRecord | null> {
    return isStorableText(email) ? this.deps.stores.tenancy.findUser(email) : Promise.resolve(null);
  }

  private checkPassword(password: string): Result<string, ManagementError> {
    const problem = passwordProblem(password);
    return problem === null ? ok(password) : err(invalid("password", problem));
  }

  /** Grants must name accounts and profiles that exist, so that a typo is not a silent lack of access. */
  private async checkGrants(grants: readonly Grant[]): Promise<Result<Grant[], ManagementError>> {
    for (const [index, grant] of grants.entries()) {
      if (!isStorableText(grant.account) || !(await this.deps.stores.tenancy.findAccount(grant.account)))
        return err(invalid(`grants/${index}/account`, `account ${grant.account} does not exist`));
      if (grant.profiles !== "*") {
        for (const profile of grant.profiles) {
          if (!isStorableText(profile) || !(await this.deps.stores.tenancy.findProfile(grant.account, profile))) {
            return err(invalid(`grants/${index}/profiles`, `profile ${grant.account}/${profile} does not exist`));
          }
        }
      }
    }
    return ok(mergeGrants(grants));
  }
}
