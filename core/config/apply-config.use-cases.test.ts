import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryStores } from "../../adapters/store-memory/memory.stores.ts";
import {
  apply,
  serviceConfigWith as config,
  configIds,
  fakeHasher,
  nothingChanged,
} from "../../testing/config/apply-config.ts";
import { gate, storesHoldingAUserRead } from "../../testing/fakes.ts";
import { profileWith } from "../../testing/fixtures.ts";
import { UsersService } from "../session/users.use-cases.ts";
import { applyConfig } from "./apply-config.use-cases.ts";
import type { EngineDefinition, ProfileConfig, SecretSource, ServiceConfig, UserConfig } from "./config.model.ts";

const hashA = "$argon2id$v=19$m=65536,t=2,p=1$c2FsdEE$aGFzaEE";
const hashB = "$argon2id$v=19$m=65536,t=2,p=1$c2FsdEI$aGFzaEI";

/** A profile with nothing configured but what is given, as the loader fills in a file's `{ name: main }`. */
function profile(name: string, parts: Partial<ProfileConfig> = {}): ProfileConfig {
  return profileWith({ name, ...parts });
}

/** An engine as the loader fills in a file's `{ id }`. */
function engine(id: string): EngineDefinition {
  return {
    id,
    name: id,
    enabled: true,
    allowedDomains: [],
    keys: "names",
    audiences: [],
    badges: [],
    attributes: [],
  };
}

const acmeMain = [{ name: "acme", profiles: [profile("main")] }];

function user(password: SecretSource, parts: Partial<UserConfig> = {}): UserConfig {
  return { email: "a@example.com", password, disabled: false, grants: [{ account: "acme", profiles: "*" }], ...parts };
}

/** acme/main, the user a@example.com with every profile of acme, and the key k1 of that user. */
function oneUser(password: SecretSource, key: SecretSource = { hash: hashA }): ServiceConfig {
  return config({
    accounts: acmeMain,
    users: [user(password)],
    apiKeys: [{ id: "k1", user: "a@example.com", key }],
  });
}

/** That `actual` exists and holds `expected`'s fields with their values; other fields are not looked at. */
function assertFields(actual: object | null | undefined, expected: Readonly<Record<string, unknown>>) {
  assert.ok(actual, "the record is missing");
  const fields = actual as Readonly<Record<string, unknown>>;
  assert.deepEqual(Object.fromEntries(Object.keys(expected).map((name) => [name, fields[name]])), expected);
}

describe("passwords and keys given as hashes", () => {
  it("a changed hash in the configuration is applied at the next start", async () => {
    const stores = createMemoryStores();
    await apply(stores, oneUser({ hash: hashA }));
    const report = await apply(stores, oneUser({ hash: hashB }, { hash: hashB }), { now: 2000 });
    assert.deepEqual(report, { ...nothingChanged, usersUpdated: 1, apiKeysUpdated: 1 });
    const found = await stores.tenancy.findUser("a@example.com");
    assertFields(found, { passwordHash: hashB, passwordSeed: hashB, createdAt: 1000, updatedAt: 2000 });
    assertFields(await stores.tenancy.findApiKey("k1"), { keyHash: hashB, keySeed: hashB });
  });

  it("a password changed in the store (an admin reset) is kept while the configuration is unchanged", async () => {
    const stores = createMemoryStores();
    await apply(stores, oneUser({ hash: hashA }));
    const found = await stores.tenancy.findUser("a@example.com");
    if (!found) throw new Error("user missing");
    await stores.tenancy.putUser({ ...found, passwordHash: "reset-by-admin", updatedAt: 1500 });

    assert.deepEqual(await apply(stores, oneUser({ hash: hashA }), { now: 2000 }), nothingChanged);
    assert.equal((await stores.tenancy.findUser("a@example.com"))?.passwordHash, "reset-by-admin");
  });

  it("a key revoked in the store stays revoked until the configuration gives it a new value", async () => {
    const stores = createMemoryStores();
    await apply(stores, oneUser({ hash: hashA }));
    const key = await stores.tenancy.findApiKey("k1");
    if (!key) throw new Error("key missing");
    await stores.tenancy.putApiKey({ ...key, revokedAt: 1500 });

    assert.deepEqual(await apply(stores, oneUser({ hash: hashA }), { now: 2000 }), nothingChanged);
    assert.equal((await stores.tenancy.findApiKey("k1"))?.revokedAt, 1500);

    await apply(stores, oneUser({ hash: hashA }, { hash: hashB }), { now: 3000 });
    assertFields(await stores.tenancy.findApiKey("k1"), { keyHash: hashB, revokedAt: null, createdAt: 1000 });
  });
});

describe("passwords and keys from environment variables", () => {
  it("are hashed with the hasher and kept on restart while the variable is unchanged", async () => {
    const stores = createMemoryStores();
    const hasher = fakeHasher();
    const env = { A_PASSWORD: "secret-1", A_KEY: "key-1" };
    const serviceConfig = oneUser({ env: "A_PASSWORD" }, { env: "A_KEY" });

    await apply(stores, serviceConfig, { hasher, env });
    assertFields(await stores.tenancy.findUser("a@example.com"), {
      passwordHash: "fake$secret-1",
      passwordSeed: "env:A_PASSWORD:fake$secret-1",
    });
    assertFields(await stores.tenancy.findApiKey("k1"), {
      keyHash: "fake$key-1",
      keySeed: "env:A_KEY:fake$key-1",
    });
    assert.deepEqual(hasher.hashed, ["secret-1", "key-1"]);

    assert.deepEqual(await apply(stores, serviceConfig, { hasher, env, now: 2000 }), nothingChanged);
    assert.equal(hasher.hashed.length, 2);
  });

  it("a password reset through the admin API is kept while the variable is unchanged, and replaced when it changes", async () => {
    const stores = createMemoryStores();
    const serviceConfig = oneUser({ env: "A_PASSWORD" });
    await apply(stores, serviceConfig, { env: { A_PASSWORD: "secret-1" } });
    const seeded = await stores.tenancy.findUser("a@example.com");
    if (!seeded) throw new Error("user missing");
    // What UsersService.resetPassword writes: a new hash, the seed kept.
    await stores.tenancy.putUser({ ...seeded, passwordHash: "fake$reset-1" });

    assert.deepEqual(
      await apply(stores, serviceConfig, { env: { A_PASSWORD: "secret-1" }, now: 2000 }),
      nothingChanged,
    );
    assert.equal((await stores.tenancy.findUser("a@example.com"))?.passwordHash, "fake$reset-1");
    await apply(stores, serviceConfig, { env: { A_PASSWORD: "secret-2" }, now: 3000 });
    assert.equal((await stores.tenancy.findUser("a@example.com"))?.passwordHash, "fake$secret-2");
  });

  it("a seed of the earlier form (env:NAME) is kept when the variable is unchanged, and given the value's hash", async () => {
    const stores = createMemoryStores();
    const serviceConfig = oneUser({ env: "A_PASSWORD" });
    await apply(stores, serviceConfig, { env: { A_PASSWORD: "secret-1" } });
    const seeded = await stores.tenancy.findUser("a@example.com");
    if (!seeded) throw new Error("user missing");
    await stores.tenancy.putUser({ ...seeded, passwordSeed: "env:A_PASSWORD" });
    await apply(stores, serviceConfig, { env: { A_PASSWORD: "secret-1" }, now: 2000 });
    assertFields(await stores.tenancy.findUser("a@example.com"), {
      passwordHash: "fake$secret-1",
      passwordSeed: "env:A_PASSWORD:fake$secret-1",
    });
  });

  it("a key revoked through the admin API stays revoked when its seed of the earlier form is given the value's hash", async () => {
    const stores = createMemoryStores();
    const serviceConfig = oneUser({ hash: hashA }, { env: "A_KEY" });
    await apply(stores, serviceConfig, { env: { A_KEY: "key-1" } });
    const key = await stores.tenancy.findApiKey("k1");
    if (!key) throw new Error("key missing");
    await stores.tenancy.putApiKey({ ...key, keySeed: "env:A_KEY", revokedAt: 1500 });
    await apply(stores, serviceConfig, { env: { A_KEY: "key-1" }, now: 2000 });
    assertFields(await stores.tenancy.findApiKey("k1"), { keySeed: "env:A_KEY:fake$key-1", revokedAt: 1500 });
  });

  it("are hashed again when the variable's value changed", async () => {
    const stores = createMemoryStores();
    const serviceConfig = oneUser({ env: "A_PASSWORD" });
    await apply(stores, serviceConfig, { env: { A_PASSWORD: "secret-1" } });
    const report = await apply(stores, serviceConfig, { env: { A_PASSWORD: "secret-2" }, now: 2000 });
    assert.deepEqual(report, { ...nothingChanged, usersUpdated: 1 });
    assert.equal((await stores.tenancy.findUser("a@example.com"))?.passwordHash, "fake$secret-2");
  });

  it("a password variable shorter than 8 characters is an error naming the path, as the admin API refuses it; a key may be shorter", async () => {
    const stores = createMemoryStores();
    const result = await applyConfig(
      { stores, hasher: fakeHasher(), ids: configIds, now: 1000, env: { SHORT_PW: "abc", A_KEY: "k1" } },
      oneUser({ env: "SHORT_PW" }, { env: "A_KEY" }),
    );
    if (result.ok) throw new Error("expected an error");
    assert.deepEqual(result.error.problems, [
      {
        path: "/users/0/password/env",
        message:
          "environment variable SHORT_PW holds a password of 3 characters: a password must be at least 8 characters",
      },
    ]);
    assert.deepEqual(await stores.tenancy.listAccounts(), []);
  });

  it("a variable that is not set is an error naming the path, and nothing is written", async () => {
    const stores = createMemoryStores();
    const result = await applyConfig(
      { stores, hasher: fakeHasher(), ids: configIds, now: 1000, env: { A_KEY: "" } },
      oneUser({ env: "DEMO_PW" }, { env: "A_KEY" }),
    );
    if (result.ok) throw new Error("expected an error");
    assert.deepEqual(result.error.problems, [
      { path: "/users/0/password/env", message: "environment variable DEMO_PW is not set" },
      { path: "/apiKeys/0/key/env", message: "environment variable A_KEY is empty" },
    ]);
    assert.equal(
      result.error.withSource("svc.config.yaml").format(),
      "svc.config.yaml: /users/0/password/env: environment variable DEMO_PW is not set\n" +
        "svc.config.yaml: /apiKeys/0/key/env: environment variable A_KEY is empty",
    );
    assert.deepEqual(await stores.tenancy.listAccounts(), []);
    assert.deepEqual(await stores.tenancy.listUsers(), []);
  });
});

describe("what the configuration owns and what it leaves alone", () => {
  it("grants and disabled follow the configuration on every start", async () => {
    const stores = createMemoryStores();
    await apply(stores, oneUser({ hash: hashA }));
    const found = await stores.tenancy.findUser("a@example.com");
    if (!found) throw new Error("user missing");
    await stores.tenancy.putUser({ ...found, grants: [], disabled: true });

    assert.deepEqual(await apply(stores, oneUser({ hash: hashA }), { now: 2000 }), {
      ...nothingChanged,
      usersUpdated: 1,
    });
    assertFields(await stores.tenancy.findUser("a@example.com"), {
      disabled: false,
      grants: [{ account: "acme", profiles: "*" }],
    });
  });

  it("[SES-13] a password changed in the file, or a user disabled by it, ends that user's sessions and bearer tokens; grants changed do not", async () => {
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
    await apply(stores, oneUser({ hash: hashA }));

    await stores.sessions.create(session("s1"), 50);
    await apply(stores, config({ accounts: acmeMain, users: [user({ hash: hashA }, { grants: [] })] }), { now: 1500 });
    assert.equal(await live("s1"), true);
    const tokenGeneration = async () => (await stores.tenancy.findUser("a@example.com"))?.tokenGeneration;
    assert.equal(await tokenGeneration(), null);

    await apply(stores, oneUser({ hash: hashB }), { now: 2000 });
    assert.equal(await live("s1"), false);
    const afterReset = await tokenGeneration();
    assert.notEqual(afterReset, null);

    await stores.sessions.create(session("s2"), 50);
    // In the same millisecond as the reset: the tokens issued between them end all the same.
    await apply(stores, config({ accounts: acmeMain, users: [user({ hash: hashB }, { disabled: true })] }), {
      now: 2000,
    });
    assert.equal(await live("s2"), false);
    const afterDisabling = await tokenGeneration();
    assert.notEqual(afterDisabling, null);
    assert.notEqual(afterDisabling, afterReset);
    // Enabled again by the file: the sessions and tokens ended stay ended.
    await apply(stores, oneUser({ hash: hashB }), { now: 4000 });
    assert.equal(await live("s2"), false);
    assert.equal(await tokenGeneration(), afterDisabling);
  });

  it("[SES-13] a start that read a user before an admin reset committed keeps the reset's password and token ending", async () => {
    const stores = createMemoryStores();
    await apply(stores, oneUser({ hash: hashA }));
    const reading = gate();
    const held = storesHoldingAUserRead(stores, reading);
    held.hold();
    // The file changes the user's grants only: the start ends no tokens, and reads the user before the reset.
    const start = apply(held.stores, config({ accounts: acmeMain, users: [user({ hash: hashA }, { grants: [] })] }), {
      now: 2000,
    });
    await reading.arrived;
    const users = new UsersService({ stores, hasher: fakeHasher(), ids: configIds, clock: { now: () => 2000 } });
    assert.equal((await users.resetPassword("a@example.com", "a-new-password")).ok, true);
    const reset = await stores.tenancy.findUser("a@example.com");
    reading.open();
    assert.deepEqual(await start, { ...nothingChanged, usersUpdated: 1 });
    assertFields(await stores.tenancy.findUser("a@example.com"), {
      passwordHash: "fake$a-new-password",
      tokenGeneration: reset?.tokenGeneration,
      grants: [],
    });
    assert.notEqual(reset?.tokenGeneration, null);
  });

  it("a profile's configuration is replaced when the file changes it", async () => {
    const stores = createMemoryStores();
    await apply(stores, config({ accounts: acmeMain }));
    const changed = config({ accounts: [{ name: "acme", profiles: [profile("main", { engines: [engine("e1")] })] }] });
    assert.deepEqual(await apply(stores, changed, { now: 2000 }), { ...nothingChanged, profilesUpdated: 1 });
    const found = await stores.tenancy.findProfile("acme", "main");
    assert.deepEqual(
      found?.config.engines.map((definition) => definition.id),
      ["e1"],
    );
    assertFields(found, { createdAt: 1000, updatedAt: 2000 });
  });

  it("users, keys and profiles the configuration does not mention are kept", async () => {
    const stores = createMemoryStores();
    await apply(stores, oneUser({ hash: hashA }));
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
      tokenGeneration: null,
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

    assert.deepEqual(await apply(stores, oneUser({ hash: hashA }), { now: 2000 }), nothingChanged);
    assert.notEqual(await stores.tenancy.findProfile("acme", "extra"), null);
    assert.notEqual(await stores.tenancy.findUser("admin-made@example.com"), null);
    assert.notEqual(await stores.tenancy.findApiKey("k2"), null);
  });

  it("a user made through the admin API and later added to the file takes the file's password", async () => {
    const stores = createMemoryStores();
    await stores.tenancy.putUser({
      email: "A@example.com",
      passwordHash: "h",
      passwordSeed: null,
      disabled: false,
      grants: [],
      tokenGeneration: null,
      createdAt: 500,
      updatedAt: 500,
    });
    const report = await apply(stores, oneUser({ hash: hashA }));
    assert.equal(report.usersUpdated, 1);
    assertFields(await stores.tenancy.findUser("a@example.com"), {
      passwordHash: hashA,
      passwordSeed: hashA,
      createdAt: 500,
    });
  });
});
