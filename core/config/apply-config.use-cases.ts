/**
 * DEC-OPS-03: applying the configuration to the store at every start, idempotently.
 *
 * - Accounts are ensured; every profile's configuration is replaced by the file's (the file is the source
 *   of truth for profile configuration), written only when it differs.
 * - Users and API keys are created when missing. Grants and `disabled` follow the file on every start.
 * - A password or key is re-applied only when the file's value changed since it was last applied (the seed
 *   recorded beside the hash), so a reset through the admin API survives a restart and editing the file
 *   takes effect. An `env` secret's seed remembers the value it was seeded from (seedSecret), so an unchanged
 *   variable keeps an admin reset and a changed one replaces it.
 * - Nothing the file does not mention is deleted (users made through the admin API stay).
 *
 * Secrets from the environment are all read before anything is written, so a missing variable changes nothing.
 */
import type { SecretHasher } from "../ports/hashing.port.ts";
import type { IdSource } from "../ports/ids.port.ts";
import type { Stores } from "../ports/stores.ts";
import type { ApiKeyRecord, UserChanges } from "../ports/tenancy.store.ts";
import { err, ok, type Result } from "../result.ts";
import { passwordProblem } from "../session/secrets.rules.ts";
import { mergeGrants, newTokenGeneration } from "../session/session.rules.ts";
import { characterCount } from "../values/characters.ts";
import type { SecretSource, ServiceConfig } from "./config.model.ts";
import { ConfigError, type ConfigProblem } from "./config-error.ts";

export interface ApplyConfigDeps {
  readonly stores: Stores;
  readonly hasher: SecretHasher;
  /** Names a new generation of a user's bearer tokens, when the configuration resets or disables the user. */
  readonly ids: Pick<IdSource, "randomHex">;
  readonly now: number;
  /** The environment the `env` secrets are read from, handed over by the host (the core reads none itself). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Names the configuration in error messages; "configuration" when absent. */
  readonly source?: string;
}

/** What one application of the configuration changed; all zero when it changed nothing. */
export interface ApplyConfigReport {
  readonly accountsCreated: number;
  readonly profilesCreated: number;
  readonly profilesUpdated: number;
  readonly usersCreated: number;
  readonly usersUpdated: number;
  readonly apiKeysCreated: number;
  readonly apiKeysUpdated: number;
}

/** A secret as the store keeps it: the hash, and the configuration value it was seeded from. */
interface SeededSecret {
  readonly hash: string;
  readonly seed: string | null;
}

export async function applyConfig(
  deps: ApplyConfigDeps,
  config: ServiceConfig,
): Promise<Result<ApplyConfigReport, ConfigError>> {
  const secrets = readEnvironmentSecrets(config, deps.env);
  if (!secrets.ok) return err(new ConfigError(deps.source ?? "configuration", secrets.error));
  const clearValues = secrets.value;

  const { tenancy } = deps.stores;
  const report = {
    accountsCreated: 0,
    profilesCreated: 0,
    profilesUpdated: 0,
    usersCreated: 0,
    usersUpdated: 0,
    apiKeysCreated: 0,
    apiKeysUpdated: 0,
  };

  for (const account of config.accounts) {
    if (!(await tenancy.findAccount(account.name))) {
      await tenancy.ensureAccount(account.name, deps.now);
      report.accountsCreated++;
    }
    for (const profile of account.profiles) {
      const existing = await tenancy.findProfile(account.name, profile.name);
      if (existing && sameData(existing.config, profile)) continue;
      await tenancy.putProfile(account.name, profile, deps.now);
      if (existing) report.profilesUpdated++;
      else report.profilesCreated++;
    }
  }

  for (const [index, user] of config.users.entries()) {
    const existing = await tenancy.findUser(user.email);
    const stored = existing ? { hash: existing.passwordHash, seed: existing.passwordSeed } : null;
    const password = await seedSecret(deps.hasher, user.password, clearValues.get(`/users/${index}`), stored);
    // As the admin API does (SES-13): a new password, or a user disabled, ends the user's sessions and bearer
    // tokens for good.
    const endsSessions =
      existing !== null && (existing.passwordHash !== password.hash || (user.disabled && !existing.disabled));
    const grants = mergeGrants(user.grants);
    if (!existing) {
      await tenancy.putUser({
        email: user.email,
        passwordHash: password.hash,
        passwordSeed: password.seed,
        disabled: user.disabled,
        grants,
        tokenGeneration: null,
        createdAt: deps.now,
        updatedAt: deps.now,
      });
      report.usersCreated++;
      continue;
    }
    // Only what differs is written (TenancyStore.updateUser): an admin reset committed since the user was read
    // keeps its password and its generation of tokens.
    const changes: Omit<UserChanges, "updatedAt"> = {
      ...(existing.passwordHash !== password.hash && { passwordHash: password.hash }),
      ...(existing.passwordSeed !== password.seed && { passwordSeed: password.seed }),
      ...(existing.disabled !== user.disabled && { disabled: user.disabled }),
      ...(!sameData(existing.grants, grants) && { grants }),
      ...(endsSessions && { tokenGeneration: newTokenGeneration(deps.ids) }),
    };
    if (Object.keys(changes).length === 0) continue;
    await tenancy.updateUser(existing.email, { ...changes, updatedAt: deps.now });
    if (endsSessions) await deps.stores.sessions.deleteForUser(user.email);
    report.usersUpdated++;
  }

  const usersByEmail = new Map(config.users.map((user) => [user.email.toLowerCase(), user]));
  for (const [index, apiKey] of config.apiKeys.entries()) {
    const existing = await tenancy.findApiKey(apiKey.id);
    const stored = existing ? { hash: existing.keyHash, seed: existing.keySeed } : null;
    const key = await seedSecret(deps.hasher, apiKey.key, clearValues.get(`/apiKeys/${index}`), stored);
    const next: ApiKeyRecord = {
      id: apiKey.id,
      userEmail: usersByEmail.get(apiKey.user.toLowerCase())?.email ?? apiKey.user,
      keyHash: key.hash,
      keySeed: key.seed,
      createdAt: existing?.createdAt ?? deps.now,
      // A key revoked through the admin API stays revoked until the file gives it a new value.
      revokedAt: existing && key.hash === stored?.hash ? existing.revokedAt : null,
    };
    if (existing && sameData(existing, next)) continue;
    await tenancy.putApiKey(next);
    if (existing) report.apiKeysUpdated++;
    else report.apiKeysCreated++;
  }

  return ok(report);
}

/**
 * The stored secret when the configuration still says what it said when the secret was seeded; otherwise
 * the configuration's value, with its new seed. A `{hash}` secret's seed is the hash; an `{env}` secret's is
 * `env:<NAME>:<hash of the value it was seeded from>`, so a value reset through the admin API (which keeps the
 * seed) is kept while the variable still holds what it held, and replaced once the variable changes. Seeds of
 * the earlier form `env:<NAME>` are kept when the stored secret is the variable's value, and given the hash.
 */
async function seedSecret(
  hasher: SecretHasher,
  source: SecretSource,
  clearValue: string | undefined,
  stored: SeededSecret | null,
): Promise<SeededSecret> {
  if ("hash" in source) {
    return stored?.seed === source.hash ? stored : { hash: source.hash, seed: source.hash };
  }
  const name = `env:${source.env}`;
  const clear = clearValue ?? "";
  const seededFrom = stored?.seed?.startsWith(`${name}:`) ? stored.seed.slice(name.length + 1) : null;
  if (stored && seededFrom !== null && (await hasher.verify(clear, seededFrom))) return stored;
  if (stored?.seed === name && (await hasher.verify(clear, stored.hash)))
    return { hash: stored.hash, seed: `${name}:${stored.hash}` };
  const hash = await hasher.hash(clear);
  return { hash, seed: `${name}:${hash}` };
}

/** The clear value of every `env` secret, keyed by the path of its user or key; or the variables missing. */
function readEnvironmentSecrets(
  config: ServiceConfig,
  env: Readonly<Record<string, string | undefined>>,
): Result<Map<string, string>, ConfigProblem[]> {
  const values = new Map<string, string>();
  const problems: ConfigProblem[] = [];
  const read = (owner: string, field: string, source: SecretSource) => {
    if (!("env" in source)) return;
    const value = env[source.env];
    const path = `${owner}/${field}/env`;
    if (value === undefined) problems.push({ path, message: `environment variable ${source.env} is not set` });
    else if (value === "") problems.push({ path, message: `environment variable ${source.env} is empty` });
    else if (field === "password" && passwordProblem(value) !== null) {
      problems.push({
        path,
        message: `environment variable ${source.env} holds a password of ${characterCount(value)} characters: a password ${passwordProblem(value)}`,
      });
    } else values.set(owner, value);
  };
  for (const [index, user] of config.users.entries()) read(`/users/${index}`, "password", user.password);
  for (const [index, apiKey] of config.apiKeys.entries()) read(`/apiKeys/${index}`, "key", apiKey.key);
  return problems.length > 0 ? err(problems) : ok(values);
}

/** Equality of plain data as a store would keep it (key order and absent-versus-undefined do not matter). */
function sameData(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === "object" && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
      : inner,
  );
}
