import { describe, expect, test } from "bun:test";
import type { ServiceConfig } from "../../core/config/config.model.ts";
import type { SecretHasher } from "../../core/ports/hashing.port.ts";
import type { Stores } from "../../core/ports/stores.ts";
import { createMemoryLogger } from "../runtime/logger.ts";
import { openService } from "../server/service.ts";
import { createMemoryStores } from "../store-memory/memory.stores.ts";
import { loadConfigFile, parseConfigText } from "./config.loader.ts";
import { demoConfigPath } from "./demo-config.ts";
import { applyConfig, type SeedReport } from "./seed-config.ts";

/** Deterministic and readable: the "hash" of s is `fake$s`. Counts calls so tests can see what was re-hashed. */
function fakeHasher(): SecretHasher & { hashed: string[] } {
  const hashed: string[] = [];
  return {
    hashed,
    async hash(secret) {
      hashed.push(secret);
      return `fake$${secret}`;
    },
    async verify(secret, hash) {
      return hash === `fake$${secret}`;
    },
  };
}

const hashA = "$argon2id$v=19$m=65536,t=2,p=1$c2FsdEE$aGFzaEE";
const hashB = "$argon2id$v=19$m=65536,t=2,p=1$c2FsdEI$aGFzaEI";

const nothingChanged: SeedReport = {
  accountsCreated: 0,
  profilesCreated: 0,
  profilesUpdated: 0,
  usersCreated: 0,
  usersUpdated: 0,
  apiKeysCreated: 0,
  apiKeysUpdated: 0,
};

function config(yaml: string): ServiceConfig {
  const result = parseConfigText(yaml, "yaml", "test.yaml");
  if (!result.ok) throw new Error(result.error.format());
  return result.value;
}

function oneUser(password: string, key = `{ hash: "${hashA}" }`): ServiceConfig {
  return config(`
accounts: [{ name: acme, profiles: [{ name: main }] }]
users:
  - { email: a@example.com, password: ${password}, grants: [{ account: acme, profiles: "*" }] }
apiKeys:
  - { id: k1, user: a@example.com, key: ${key} }
`);
}

async function apply(
  stores: Stores,
  serviceConfig: ServiceConfig,
  options: { now?: number; env?: Record<string, string>; hasher?: SecretHasher } = {},
) {
  const result = await applyConfig(
    { stores, hasher: options.hasher ?? fakeHasher(), now: options.now ?? 1000, env: options.env ?? {} },
    serviceConfig,
  );
  if (!result.ok) throw new Error(result.error.format());
  return result.value;
}

async function snapshot(stores: Stores) {
  const accounts = await stores.tenancy.listAccounts();
  const users = await stores.tenancy.listUsers();
  return {
    accounts,
    profiles: await Promise.all(accounts.map((account) => stores.tenancy.listProfiles(account.name))),
    users,
    apiKeys: await Promise.all(users.map((user) => stores.tenancy.listApiKeys(user.email))),
  };
}

describe("applying the demo configuration", () => {
  test("creates the accounts, profiles, users and keys, then changes nothing on a second start", async () => {
    const loaded = await loadConfigFile(demoConfigPath);
    if (!loaded.ok) throw new Error(loaded.error.format());
    const stores = createMemoryStores();

    expect(await apply(stores, loaded.value, { now: 1000 })).toEqual({
      ...nothingChanged,
      accountsCreated: 2,
      profilesCreated: 3,
      usersCreated: 3,
      apiKeysCreated: 2,
    });
    const first = await snapshot(stores);
    expect(await apply(stores, loaded.value, { now: 2000 })).toEqual(nothingChanged);
    expect(await snapshot(stores)).toEqual(first);

    const demo = await stores.tenancy.findUser("demo@example.com");
    expect(demo?.passwordSeed).toBe(demo?.passwordHash ?? "missing");
    expect(await Bun.password.verify("demo-password-1", demo?.passwordHash ?? "")).toBe(true);
    expect((await stores.tenancy.findApiKey("demo-acme"))?.userEmail).toBe("demo@example.com");
    expect((await stores.tenancy.findUser("nogrant@example.com"))?.grants).toEqual([]);
  });
});

describe("passwords and keys given as hashes", () => {
  test("a changed hash in the configuration is applied at the next start", async () => {
    const stores = createMemoryStores();
    await apply(stores, oneUser(`{ hash: "${hashA}" }`));
    const report = await apply(stores, oneUser(`{ hash: "${hashB}" }`, `{ hash: "${hashB}" }`), { now: 2000 });
    expect(report).toEqual({ ...nothingChanged, usersUpdated: 1, apiKeysUpdated: 1 });
    const user = await stores.tenancy.findUser("a@example.com");
    expect(user).toMatchObject({ passwordHash: hashB, passwordSeed: hashB, createdAt: 1000, updatedAt: 2000 });
    expect(await stores.tenancy.findApiKey("k1")).toMatchObject({ keyHash: hashB, keySeed: hashB });
  });

  test("a password changed in the store (an admin reset) is kept while the configuration is unchanged", async () => {
    const stores = createMemoryStores();
    await apply(stores, oneUser(`{ hash: "${hashA}" }`));
    const user = await stores.tenancy.findUser("a@example.com");
    if (!user) throw new Error("user missing");
    await stores.tenancy.putUser({ ...user, passwordHash: "reset-by-admin", updatedAt: 1500 });

    expect(await apply(stores, oneUser(`{ hash: "${hashA}" }`), { now: 2000 })).toEqual(nothingChanged);
    expect((await stores.tenancy.findUser("a@example.com"))?.passwordHash).toBe("reset-by-admin");
  });

  test("a key revoked in the store stays revoked until the configuration gives it a new value", async () => {
    const stores = createMemoryStores();
    await apply(stores, oneUser(`{ hash: "${hashA}" }`));
    const key = await stores.tenancy.findApiKey("k1");
    if (!key) throw new Error("key missing");
    await stores.tenancy.putApiKey({ ...key, revokedAt: 1500 });

    expect(await apply(stores, oneUser(`{ hash: "${hashA}" }`), { now: 2000 })).toEqual(nothingChanged);
    expect((await stores.tenancy.findApiKey("k1"))?.revokedAt).toBe(1500);

    await apply(stores, oneUser(`{ hash: "${hashA}" }`, `{ hash: "${hashB}" }`), { now: 3000 });
    expect(await stores.tenancy.findApiKey("k1")).toMatchObject({ keyHash: hashB, revokedAt: null, createdAt: 1000 });
  });
});

describe("passwords and keys from environment variables", () => {
  test("are hashed with the hasher and kept on restart while the variable is unchanged", async () => {
    const stores = createMemoryStores();
    const hasher = fakeHasher();
    const env = { A_PASSWORD: "secret-1", A_KEY: "key-1" };
    const serviceConfig = oneUser(`{ env: A_PASSWORD }`, `{ env: A_KEY }`);

    await apply(stores, serviceConfig, { hasher, env });
    expect(await stores.tenancy.findUser("a@example.com")).toMatchObject({
      passwordHash: "fake$secret-1",
      passwordSeed: "env:A_PASSWORD:fake$secret-1",
    });
    expect(await stores.tenancy.findApiKey("k1")).toMatchObject({
      keyHash: "fake$key-1",
      keySeed: "env:A_KEY:fake$key-1",
    });
    expect(hasher.hashed).toEqual(["secret-1", "key-1"]);

    expect(await apply(stores, serviceConfig, { hasher, env, now: 2000 })).toEqual(nothingChanged);
    expect(hasher.hashed).toHaveLength(2);
  });

  test("a password reset through the admin API is kept while the variable is unchanged, and replaced when it changes", async () => {
    const stores = createMemoryStores();
    const serviceConfig = oneUser(`{ env: A_PASSWORD }`);
    await apply(stores, serviceConfig, { env: { A_PASSWORD: "secret-1" } });
    const seeded = await stores.tenancy.findUser("a@example.com");
    if (!seeded) throw new Error("user missing");
    // What UsersService.resetPassword writes: a new hash, the seed kept.
    await stores.tenancy.putUser({ ...seeded, passwordHash: "fake$reset-1" });

    expect(await apply(stores, serviceConfig, { env: { A_PASSWORD: "secret-1" }, now: 2000 })).toEqual(nothingChanged);
    expect((await stores.tenancy.findUser("a@example.com"))?.passwordHash).toBe("fake$reset-1");
    await apply(stores, serviceConfig, { env: { A_PASSWORD: "secret-2" }, now: 3000 });
    expect((await stores.tenancy.findUser("a@example.com"))?.passwordHash).toBe("fake$secret-2");
  });

  test("a seed of the earlier form (env:NAME) is kept when the variable is unchanged, and given the value's hash", async () => {
    const stores = createMemoryStores();
    const serviceConfig = oneUser(`{ env: A_PASSWORD }`);
    await apply(stores, serviceConfig, { env: { A_PASSWORD: "secret-1" } });
    const seeded = await stores.tenancy.findUser("a@example.com");
    if (!seeded) throw new Error("user missing");
    await stores.tenancy.putUser({ ...seeded, passwordSeed: "env:A_PASSWORD" });
    await apply(stores, serviceConfig, { env: { A_PASSWORD: "secret-1" }, now: 2000 });
    expect(await stores.tenancy.findUser("a@example.com")).toMatchObject({
      passwordHash: "fake$secret-1",
      passwordSeed: "env:A_PASSWORD:fake$secret-1",
    });
  });

  test("a key revoked through the admin API stays revoked when its seed of the earlier form is given the value's hash", async () => {
    const stores = createMemoryStores();
    const serviceConfig = oneUser(`{ hash: "${hashA}" }`, `{ env: A_KEY }`);
    await apply(stores, serviceConfig, { env: { A_KEY: "key-1" } });
    const key = await stores.tenancy.findApiKey("k1");
    if (!key) throw new Error("key missing");
    await stores.tenancy.putApiKey({ ...key, keySeed: "env:A_KEY", revokedAt: 1500 });
    await apply(stores, serviceConfig, { env: { A_KEY: "key-1" }, now: 2000 });
    expect(await stores.tenancy.findApiKey("k1")).toMatchObject({ keySeed: "env:A_KEY:fake$key-1", revokedAt: 1500 });
  });

  test("are hashed again when the variable's value changed", async () => {
    const stores = createMemoryStores();
    const serviceConfig = oneUser(`{ env: A_PASSWORD }`);
    await apply(stores, serviceConfig, { env: { A_PASSWORD: "secret-1" } });
    const report = await apply(stores, serviceConfig, { env: { A_PASSWORD: "secret-2" }, now: 2000 });
    expect(report).toEqual({ ...nothingChanged, usersUpdated: 1 });
    expect((await stores.tenancy.findUser("a@example.com"))?.passwordHash).toBe("fake$secret-2");
  });

  test("a password variable shorter than 8 characters is an error naming the path, as the admin API refuses it; a key may be shorter", async () => {
    const stores = createMemoryStores();
    const result = await applyConfig(
      { stores, hasher: fakeHasher(), now: 1000, env: { SHORT_PW: "abc", A_KEY: "k1" } },
      oneUser(`{ env: SHORT_PW }`, `{ env: A_KEY }`),
    );
    if (result.ok) throw new Error("expected an error");
    expect(result.error.problems).toEqual([
      {
        path: "/users/0/password/env",
        message:
          "environment variable SHORT_PW holds a password of 3 characters: a password must be at least 8 characters",
      },
    ]);
    expect(await stores.tenancy.listAccounts()).toEqual([]);
  });

  test("a variable that is not set is an error naming the path, and nothing is written", async () => {
    const stores = createMemoryStores();
    const result = await applyConfig(
      { stores, hasher: fakeHasher(), now: 1000, env: { A_KEY: "" } },
      oneUser(`{ env: DEMO_PW }`, `{ env: A_KEY }`),
    );
    if (result.ok) throw new Error("expected an error");
    expect(result.error.problems).toEqual([
      { path: "/users/0/password/env", message: "environment variable DEMO_PW is not set" },
      { path: "/apiKeys/0/key/env", message: "environment variable A_KEY is empty" },
    ]);
    expect(result.error.withSource("svc.config.yaml").format()).toBe(
      "svc.config.yaml: /users/0/password/env: environment variable DEMO_PW is not set\n" +
        "svc.config.yaml: /apiKeys/0/key/env: environment variable A_KEY is empty",
    );
    expect(await stores.tenancy.listAccounts()).toEqual([]);
    expect(await stores.tenancy.listUsers()).toEqual([]);
  });
});

describe("DEC-OPS-03: a secret missing at start names the file, like the loader's problems", () => {
  test("openService reports an unset or empty environment variable with the configuration file's name", async () => {
    const serviceConfig = config(`
users:
  - { email: a@example.com, password: { env: SVC_TEST_UNSET } }
  - { email: b@example.com, password: { env: SVC_TEST_EMPTY } }
`);
    const opened = await openService({
      store: { kind: "memory" },
      config: serviceConfig,
      logger: createMemoryLogger(),
      env: { SVC_TEST_EMPTY: "" },
      adminToken: "t",
    });
    if (opened.ok) {
      await opened.value.close();
      throw new Error("expected the start to be refused");
    }
    expect(opened.error.format().split("\n")).toEqual([
      "test.yaml: /users/0/password/env: environment variable SVC_TEST_UNSET is not set",
      "test.yaml: /users/1/password/env: environment variable SVC_TEST_EMPTY is empty",
    ]);
  });
});

describe("what the configuration owns and what it leaves alone", () => {
  test("grants and disabled follow the configuration on every start", async () => {
    const stores = createMemoryStores();
    await apply(stores, oneUser(`{ hash: "${hashA}" }`));
    const user = await stores.tenancy.findUser("a@example.com");
    if (!user) throw new Error("user missing");
    await stores.tenancy.putUser({ ...user, grants: [], disabled: true });

    expect(await apply(stores, oneUser(`{ hash: "${hashA}" }`), { now: 2000 })).toEqual({
      ...nothingChanged,
      usersUpdated: 1,
    });
    expect(await stores.tenancy.findUser("a@example.com")).toMatchObject({
      disabled: false,
      grants: [{ account: "acme", profiles: "*" }],
    });
  });

  test("[SES-13] a password changed in the file, or a user disabled by it, ends that user's sessions and bearer tokens; grants changed do not", async () => {
    const stores = createMemoryStores();
    const session = (id: string) => ({
      id,
      userEmail: "a@example.com",
      cookieHash: `c-${id}`,
      utkHash: `u-${id}`,
      createdAt: 1000,
      lastSeenAt: 1000,
    });
    const live = async (id: string) => (await stores.sessions.findByCookieHash(`c-${id}`)) !== null;
    await apply(stores, oneUser(`{ hash: "${hashA}" }`));

    await stores.sessions.create(session("s1"), 50);
    await apply(
      stores,
      config(`
accounts: [{ name: acme, profiles: [{ name: main }] }]
users:
  - { email: a@example.com, password: { hash: "${hashA}" }, grants: [] }
`),
      { now: 1500 },
    );
    expect(await live("s1")).toBe(true);
    const tokensValidAfter = async () => (await stores.tenancy.findUser("a@example.com"))?.tokensValidAfter;
    expect(await tokensValidAfter()).toBeNull();

    await apply(stores, oneUser(`{ hash: "${hashB}" }`), { now: 2000 });
    expect(await live("s1")).toBe(false);
    expect(await tokensValidAfter()).toBe(2000);

    await stores.sessions.create(session("s2"), 50);
    await apply(
      stores,
      config(`
accounts: [{ name: acme, profiles: [{ name: main }] }]
users:
  - { email: a@example.com, password: { hash: "${hashB}" }, disabled: true, grants: [{ account: acme, profiles: "*" }] }
`),
      { now: 3000 },
    );
    expect(await live("s2")).toBe(false);
    expect(await tokensValidAfter()).toBe(3000);
    // Enabled again by the file: the sessions and tokens ended stay ended.
    await apply(stores, oneUser(`{ hash: "${hashB}" }`), { now: 4000 });
    expect(await live("s2")).toBe(false);
    expect(await tokensValidAfter()).toBe(3000);
  });

  test("a profile's configuration is replaced when the file changes it", async () => {
    const stores = createMemoryStores();
    await apply(stores, config(`accounts: [{ name: acme, profiles: [{ name: main }] }]`));
    const changed = config(`accounts: [{ name: acme, profiles: [{ name: main, engines: [{ id: e1 }] }] }]`);
    expect(await apply(stores, changed, { now: 2000 })).toEqual({ ...nothingChanged, profilesUpdated: 1 });
    const profile = await stores.tenancy.findProfile("acme", "main");
    expect(profile?.config.engines.map((engine) => engine.id)).toEqual(["e1"]);
    expect(profile).toMatchObject({ createdAt: 1000, updatedAt: 2000 });
  });

  test("users, keys and profiles the configuration does not mention are kept", async () => {
    const stores = createMemoryStores();
    await apply(stores, oneUser(`{ hash: "${hashA}" }`));
    await stores.tenancy.putProfile(
      "acme",
      { name: "extra", visitorIdAttributes: [], attributes: [], audiences: [], engines: [], fileDefinitions: [] },
      1100,
    );
    await stores.tenancy.putUser({
      email: "admin-made@example.com",
      passwordHash: "h",
      passwordSeed: null,
      disabled: false,
      grants: [],
      tokensValidAfter: null,
      createdAt: 1100,
      updatedAt: 1100,
    });
    await stores.tenancy.putApiKey({
      id: "k2",
      userEmail: "admin-made@example.com",
      keyHash: "h",
      keySeed: null,
      createdAt: 1100,
      revokedAt: null,
    });

    expect(await apply(stores, oneUser(`{ hash: "${hashA}" }`), { now: 2000 })).toEqual(nothingChanged);
    expect(await stores.tenancy.findProfile("acme", "extra")).not.toBeNull();
    expect(await stores.tenancy.findUser("admin-made@example.com")).not.toBeNull();
    expect(await stores.tenancy.findApiKey("k2")).not.toBeNull();
  });

  test("a user made through the admin API and later added to the file takes the file's password", async () => {
    const stores = createMemoryStores();
    await stores.tenancy.putUser({
      email: "A@example.com",
      passwordHash: "h",
      passwordSeed: null,
      disabled: false,
      grants: [],
      tokensValidAfter: null,
      createdAt: 500,
      updatedAt: 500,
    });
    const report = await apply(stores, oneUser(`{ hash: "${hashA}" }`));
    expect(report.usersUpdated).toBe(1);
    expect(await stores.tenancy.findUser("a@example.com")).toMatchObject({
      passwordHash: hashA,
      passwordSeed: hashA,
      createdAt: 500,
    });
  });
});
