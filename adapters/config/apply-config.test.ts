/**
 * Applying the configuration (core/config/apply-config.use-cases.ts) where it needs more than the stores and a
 * fake hasher: the demo file read by the loader and its argon2 hashes checked with Bun, and the start of the
 * whole service (openService). The rest of its tests are core/config/apply-config.use-cases.test.ts.
 */
import { describe, expect, test } from "bun:test";
import type { ServiceConfig } from "../../core/config/index.ts";
import type { Stores } from "../../core/ports/index.ts";
import { apply, nothingChanged } from "../../testing/config/apply-config.ts";
import { createMemoryLogger } from "../runtime/logger.ts";
import { openService } from "../server/service.ts";
import { createMemoryStores } from "../store-memory/memory.stores.ts";
import { loadConfigFile, parseConfigText } from "./config.loader.ts";
import { loadYamlParser } from "./config.syntax.ts";
import { demoConfigPath } from "./demo-config.ts";

// parseConfigText reads YAML once its parser is loaded (loadConfigFile loads it).
await loadYamlParser();

function config(yaml: string): ServiceConfig {
  const result = parseConfigText(yaml, "yaml", "test.yaml");
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
