import type { ProfileConfig } from "../../core/config/index.ts";
import { deepFreeze } from "../../core/json/index.ts";
import type {
  AccountRecord,
  ApiKeyRecord,
  ErasedRecords,
  IdSource,
  LockoutKind,
  LockoutStore,
  ProfileRecord,
  SessionRecord,
  SessionStore,
  SettingsStore,
  Stores,
  TenancyStore,
  UserChanges,
  UserRecord,
  VersionedLockout,
} from "../../core/ports/index.ts";
import { newLockoutVersion } from "../../core/session/index.ts";
import { MemoryDataLayerStore } from "./memory.datalayers.ts";
import { MemoryEventStore } from "./memory.events.ts";
import { MemoryFileStatusStore } from "./memory.files.ts";
import { MemoryPrivacyStore } from "./memory.privacy.ts";
import { MemoryProfileStore } from "./memory.profiles.ts";
import { MemoryRateCountStore } from "./memory.rate-counts.ts";
import { MemoryRevisionStore } from "./memory.revisions.ts";
import { webRandomIds } from "./web-random.ts";

/** Records are copied in and out so that a caller can never change stored state by holding a reference. */
function copy<T>(value: T): T {
  return structuredClone(value);
}

/** Tenancy records are copied in and frozen, then shared by every read (TenancyStore). */
function frozenCopy<T>(value: T): T {
  return deepFreeze(structuredClone(value));
}

function emailKey(email: string): string {
  return email.toLowerCase();
}

class MemoryTenancyStore implements TenancyStore {
  private readonly accounts = new Map<string, AccountRecord>();
  private readonly profiles = new Map<string, Map<string, ProfileRecord>>();
  private readonly users = new Map<string, UserRecord>();
  private readonly apiKeys = new Map<string, ApiKeyRecord>();

  /** Removes every record at once (Stores.eraseAll); answers how many of each there were. */
  eraseAll(): Pick<ErasedRecords, "accounts" | "profiles" | "users" | "apiKeys"> {
    let profiles = 0;
    for (const ofAccount of this.profiles.values()) profiles += ofAccount.size;
    const counts = { accounts: this.accounts.size, profiles, users: this.users.size, apiKeys: this.apiKeys.size };
    this.accounts.clear();
    this.profiles.clear();
    this.users.clear();
    this.apiKeys.clear();
    return counts;
  }

  async listAccounts(): Promise<AccountRecord[]> {
    return [...this.accounts.values()].sort((a, b) => compareCodeUnits(a.name, b.name));
  }

  async findAccount(name: string): Promise<AccountRecord | null> {
    const account = this.accounts.get(name);
    return account ?? null;
  }

  async ensureAccount(name: string, now: number): Promise<void> {
    if (!this.accounts.has(name)) {
      this.accounts.set(name, frozenCopy({ name, createdAt: now }));
      this.profiles.set(name, new Map());
    }
  }

  async listProfiles(account: string): Promise<ProfileRecord[]> {
    const profiles = this.profiles.get(account);
    if (!profiles) return [];
    return [...profiles.values()].sort((a, b) => compareCodeUnits(a.config.name, b.config.name));
  }

  async findProfile(account: string, profile: string): Promise<ProfileRecord | null> {
    const found = this.profiles.get(account)?.get(profile);
    return found ?? null;
  }

  async putProfile(account: string, config: ProfileConfig, now: number): Promise<void> {
    const profiles = this.profiles.get(account);
    if (!profiles) throw new Error(`account ${account} does not exist`);
    const existing = profiles.get(config.name);
    profiles.set(config.name, frozenCopy({ account, config, createdAt: existing?.createdAt ?? now, updatedAt: now }));
  }

  async listUsers(): Promise<UserRecord[]> {
    return [...this.users.values()].sort((a, b) => compareCodeUnits(a.email, b.email));
  }

  async findUser(email: string): Promise<UserRecord | null> {
    const user = this.users.get(emailKey(email));
    return user ?? null;
  }

  async putUser(user: UserRecord): Promise<void> {
    this.users.set(emailKey(user.email), frozenCopy(user));
  }

  async updateUser(email: string, changes: UserChanges): Promise<UserRecord | null> {
    const user = this.users.get(emailKey(email));
    if (!user) return null;
    const updated = frozenCopy({ ...user, ...changes });
    this.users.set(emailKey(email), updated);
    return updated;
  }

  async listApiKeys(email: string): Promise<ApiKeyRecord[]> {
    const key = emailKey(email);
    return [...this.apiKeys.values()]
      .filter((apiKey) => emailKey(apiKey.userEmail) === key)
      .sort((a, b) => compareCodeUnits(a.id, b.id));
  }

  async findApiKey(id: string): Promise<ApiKeyRecord | null> {
    const apiKey = this.apiKeys.get(id);
    return apiKey ?? null;
  }

  async putApiKey(apiKey: ApiKeyRecord): Promise<void> {
    if (!this.users.has(emailKey(apiKey.userEmail))) throw new Error(`user ${apiKey.userEmail} does not exist`);
    this.apiKeys.set(apiKey.id, frozenCopy(apiKey));
  }
}

class MemorySettingsStore implements SettingsStore {
  private readonly values = new Map<string, string>();

  async get(key: string): Promise<string | null> {
    return this.values.get(key) ?? null;
  }

  /** Removes every setting but those named (Stores.eraseAll); answers how many went. */
  eraseAllBut(keep: readonly string[]): number {
    let count = 0;
    for (const key of [...this.values.keys()]) {
      if (keep.includes(key)) continue;
      this.values.delete(key);
      count += 1;
    }
    return count;
  }

  async set(key: string, value: string): Promise<void> {
    this.setNow(key, value);
  }

  /** For the event store's marks, which land in the same step as the events. */
  setNow(key: string, value: string): void {
    this.values.set(key, value);
  }

  async compareAndSet(key: string, expected: string | null, next: string): Promise<boolean> {
    if ((this.values.get(key) ?? null) !== expected) return false;
    this.values.set(key, next);
    return true;
  }

  async setIfAbsent(key: string, value: string): Promise<string> {
    if (!this.values.has(key)) this.values.set(key, value);
    return this.values.get(key) as string;
  }

  async deleteIf(key: string, expected: string): Promise<boolean> {
    if (this.values.get(key) !== expected) return false;
    return this.values.delete(key);
  }

  async keysStartingWith(prefix: string): Promise<string[]> {
    return [...this.values.keys()].filter((key) => key.startsWith(prefix)).sort();
  }
}

class MemorySessionStore implements SessionStore {
  private readonly byId = new Map<string, SessionRecord>();

  /** Removes every session (Stores.eraseAll); answers how many there were. */
  eraseAll(): number {
    const count = this.byId.size;
    this.byId.clear();
    return count;
  }

  async create(session: SessionRecord, maxPerUser: number): Promise<number> {
    for (const existing of this.byId.values()) {
      if (existing.cookieHash === session.cookieHash) throw new Error("a session with this cookie exists");
    }
    this.byId.set(session.id, copy(session));
    // The user's other sessions, newest first; the map keeps the order they were made in.
    const others = [...this.byId.values()]
      .map((stored, made) => ({ stored, made }))
      .filter(({ stored }) => stored.id !== session.id && emailKey(stored.userEmail) === emailKey(session.userEmail))
      .sort((a, b) => b.stored.createdAt - a.stored.createdAt || b.made - a.made);
    const ended = others.slice(Math.max(maxPerUser - 1, 0));
    for (const { stored } of ended) this.byId.delete(stored.id);
    return ended.length;
  }

  async findByCookieHash(cookieHash: string): Promise<SessionRecord | null> {
    for (const session of this.byId.values()) if (session.cookieHash === cookieHash) return copy(session);
    return null;
  }

  async touch(id: string, lastSeenAt: number): Promise<void> {
    const session = this.byId.get(id);
    if (session && session.lastSeenAt < lastSeenAt) this.byId.set(id, { ...session, lastSeenAt });
  }

  async delete(id: string): Promise<void> {
    this.byId.delete(id);
  }

  async deleteForUser(email: string): Promise<number> {
    return this.deleteWhere((session) => emailKey(session.userEmail) === emailKey(email));
  }

  async deleteExpired(before: number, createdBefore: number): Promise<number> {
    return this.deleteWhere((session) => session.lastSeenAt < before || session.createdAt < createdBefore);
  }

  private deleteWhere(test: (session: SessionRecord) => boolean): number {
    let count = 0;
    for (const [id, session] of this.byId) {
      if (test(session)) {
        this.byId.delete(id);
        count += 1;
      }
    }
    return count;
  }
}

class MemoryLockoutStore implements LockoutStore {
  constructor(private readonly ids: IdSource) {}

  private readonly rows = new Map<string, { readonly lockout: VersionedLockout; readonly relevantUntil: number }>();

  /** Removes every lockout record (Stores.eraseAll); answers how many there were. */
  eraseAll(): number {
    const count = this.rows.size;
    this.rows.clear();
    return count;
  }

  async read(kind: LockoutKind, name: string): Promise<VersionedLockout | null> {
    return this.rows.get(`${kind}\u0000${name}`)?.lockout ?? null;
  }

  async compareAndSet(
    kind: LockoutKind,
    name: string,
    expectedVersion: number | null,
    state: string,
    relevantUntil: number,
  ): Promise<boolean> {
    const key = `${kind}\u0000${name}`;
    const current = this.rows.get(key);
    if ((current?.lockout.version ?? null) !== expectedVersion) return false;
    this.rows.set(key, {
      lockout: { state, version: expectedVersion === null ? newLockoutVersion(this.ids) : expectedVersion + 1 },
      relevantUntil,
    });
    return true;
  }

  async deleteExpired(before: number): Promise<number> {
    let count = 0;
    for (const [key, row] of this.rows) {
      if (row.relevantUntil > before) continue;
      this.rows.delete(key);
      count += 1;
    }
    return count;
  }
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The reference implementation of every store port, held in memory: fast tests, and nothing kept on exit. It
 * imports nothing but the core, so a host on any runtime (Bun, Deno, Node, a worker) can give it to the core's
 * use cases. `ids`: the randomness of new lockout versions (the Web Crypto API unless given).
 */
export function createMemoryStores(ids: IdSource = webRandomIds): Stores {
  let closed = false;
  const tenancy = new MemoryTenancyStore();
  const settings = new MemorySettingsStore();
  const sessions = new MemorySessionStore();
  const lockouts = new MemoryLockoutStore(ids);
  const dataLayers = new MemoryDataLayerStore();
  const events = new MemoryEventStore(
    () => closed,
    (key, value) => settings.setNow(key, value),
  );
  const profiles = new MemoryProfileStore(() => closed);
  const files = new MemoryFileStatusStore(() => closed);
  const privacy = new MemoryPrivacyStore(() => closed);
  const revisions = new MemoryRevisionStore(tenancy, () => closed);
  const rateCounts = new MemoryRateCountStore(() => closed);
  return {
    kind: "memory",
    tenancy,
    settings,
    sessions,
    lockouts,
    dataLayers,
    events,
    profiles,
    files,
    privacy,
    revisions,
    rateCounts,
    // Every store in one step, with no await in between: no other caller sees part of it done.
    async eraseAll({ keepSettings }) {
      if (closed) throw new Error("store is closed");
      // Not counted among the records: what nodes admitted lately is no record of the service's.
      rateCounts.eraseAll();
      return {
        ...tenancy.eraseAll(),
        sessions: sessions.eraseAll(),
        lockouts: lockouts.eraseAll(),
        events: events.eraseAll(),
        visitorProfiles: profiles.eraseAll(),
        dataLayers: dataLayers.eraseAll(),
        revisions: revisions.eraseAll(),
        privacyTransactions: privacy.eraseAll(),
        fileImports: files.eraseAll(),
        settings: settings.eraseAllBut(keepSettings),
      };
    },
    async ping() {
      if (closed) throw new Error("store is closed");
    },
    async close() {
      closed = true;
    },
  };
}
