/**
 * The behaviour every implementation of the store ports must show, run against each of them
 * (store-memory is the reference; store-libsql must be indistinguishable from it).
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { AttributeDefinition, FileDefinition, Grant, ProfileConfig } from "../../core/config/index.ts";
import type { Stores } from "../../core/ports/index.ts";
import { fullProfileConfig, sampleApiKey, sampleUser } from "../../testing/fixtures.ts";

function emptyProfileConfig(name: string): ProfileConfig {
  return { name, visitorIdAttributes: [], attributes: [], audiences: [], engines: [], fileDefinitions: [] };
}

/** Names whose code-unit order differs from their UTF-8 byte order (U+FF21 against a surrogate pair). */
const namesInCodeUnitOrder = ["Zeta", "alpha", "beta", "\u{1F600}smile", "\uFF21wide"];

export function describeStoreContract(name: string, open: () => Promise<Stores>): void {
  describe(`${name} store contract`, () => {
    let stores: Stores;

    beforeEach(async () => {
      stores = await open();
    });

    afterEach(async () => {
      await stores.close();
    });

    describe("accounts", () => {
      test("start empty", async () => {
        expect(await stores.tenancy.listAccounts()).toEqual([]);
        expect(await stores.tenancy.findAccount("acme")).toBeNull();
      });

      test("ensureAccount creates an account that find and list return", async () => {
        await stores.tenancy.ensureAccount("acme", 1000);
        expect(await stores.tenancy.findAccount("acme")).toEqual({ name: "acme", createdAt: 1000 });
        expect(await stores.tenancy.listAccounts()).toEqual([{ name: "acme", createdAt: 1000 }]);
      });

      test("ensureAccount leaves an existing account as it is", async () => {
        await stores.tenancy.ensureAccount("acme", 1000);
        await stores.tenancy.ensureAccount("acme", 2000);
        expect(await stores.tenancy.listAccounts()).toEqual([{ name: "acme", createdAt: 1000 }]);
      });

      test("account names are case-sensitive", async () => {
        await stores.tenancy.ensureAccount("acme", 1000);
        expect(await stores.tenancy.findAccount("ACME")).toBeNull();
      });

      test("listAccounts orders names by UTF-16 code unit", async () => {
        for (const account of [...namesInCodeUnitOrder].reverse()) await stores.tenancy.ensureAccount(account, 1);
        const listed = await stores.tenancy.listAccounts();
        expect(listed.map((account) => account.name)).toEqual(namesInCodeUnitOrder);
      });
    });

    describe("profiles", () => {
      beforeEach(async () => {
        await stores.tenancy.ensureAccount("acme", 1000);
      });

      test("putProfile refuses an account that does not exist", async () => {
        await expect(stores.tenancy.putProfile("nobody", fullProfileConfig(), 2000)).rejects.toThrow("does not exist");
        expect(await stores.tenancy.findProfile("nobody", "main")).toBeNull();
        expect(await stores.tenancy.listProfiles("nobody")).toEqual([]);
      });

      test("a profile's whole configuration reads back deep-equal", async () => {
        const config = fullProfileConfig();
        await stores.tenancy.putProfile("acme", config, 2000);
        const found = await stores.tenancy.findProfile("acme", "main");
        expect(found).toEqual({ account: "acme", config, createdAt: 2000, updatedAt: 2000 });
        expect(await stores.tenancy.listProfiles("acme")).toEqual([found!]);
      });

      test("definitions keep the order they were given in, not the order of their ids", async () => {
        await stores.tenancy.putProfile("acme", fullProfileConfig(), 2000);
        const found = await stores.tenancy.findProfile("acme", "main");
        expect(found!.config.attributes.map((attribute) => attribute.id)).toEqual([7, 3, 12, 20, 30]);
        expect(found!.config.engines.map((engine) => engine.id)).toEqual(["web", "app"]);
        expect(found!.config.fileDefinitions.map((definition) => definition.prefix)).toEqual(["orders", "crm"]);
      });

      test("an empty configuration reads back empty", async () => {
        await stores.tenancy.putProfile("acme", emptyProfileConfig("dev"), 2000);
        expect((await stores.tenancy.findProfile("acme", "dev"))!.config).toEqual(emptyProfileConfig("dev"));
      });

      test("putProfile replaces the whole configuration and keeps the creation time", async () => {
        await stores.tenancy.putProfile("acme", fullProfileConfig(), 2000);
        const replacement: ProfileConfig = {
          ...emptyProfileConfig("main"),
          attributes: [{ id: 99, name: "Only one", type: "string", pii: false, enrichments: [] }],
        };
        await stores.tenancy.putProfile("acme", replacement, 3000);
        expect(await stores.tenancy.findProfile("acme", "main")).toEqual({
          account: "acme",
          config: replacement,
          createdAt: 2000,
          updatedAt: 3000,
        });
      });

      test("profiles are kept per account and listed by code unit", async () => {
        await stores.tenancy.ensureAccount("globex", 1000);
        for (const profile of [...namesInCodeUnitOrder].reverse()) {
          await stores.tenancy.putProfile("acme", emptyProfileConfig(profile), 2000);
        }
        await stores.tenancy.putProfile("globex", fullProfileConfig("alpha"), 2500);
        const listed = await stores.tenancy.listProfiles("acme");
        expect(listed.map((profile) => profile.config.name)).toEqual(namesInCodeUnitOrder);
        expect(listed.every((profile) => profile.account === "acme")).toBe(true);
        expect((await stores.tenancy.findProfile("acme", "alpha"))!.config).toEqual(emptyProfileConfig("alpha"));
        expect((await stores.tenancy.findProfile("globex", "alpha"))!.config).toEqual(fullProfileConfig("alpha"));
        expect(await stores.tenancy.listProfiles("globex")).toHaveLength(1);
      });

      test("replacing one profile leaves its neighbours alone", async () => {
        await stores.tenancy.putProfile("acme", fullProfileConfig("main"), 2000);
        await stores.tenancy.putProfile("acme", fullProfileConfig("dev"), 2000);
        await stores.tenancy.putProfile("acme", emptyProfileConfig("dev"), 3000);
        expect((await stores.tenancy.findProfile("acme", "main"))!.config).toEqual(fullProfileConfig("main"));
      });

      test("an unknown profile is null", async () => {
        expect(await stores.tenancy.findProfile("acme", "nope")).toBeNull();
        expect(await stores.tenancy.listProfiles("acme")).toEqual([]);
      });
    });

    describe("users", () => {
      test("start empty", async () => {
        expect(await stores.tenancy.listUsers()).toEqual([]);
        expect(await stores.tenancy.findUser("ann@example.com")).toBeNull();
      });

      test("a user reads back deep-equal, with grants on all profiles and on a list", async () => {
        const user = sampleUser("ann@example.com");
        await stores.tenancy.putUser(user);
        expect(await stores.tenancy.findUser("ann@example.com")).toEqual(user);
        expect(await stores.tenancy.listUsers()).toEqual([user]);
      });

      test("a user without a password seed and without grants reads back deep-equal", async () => {
        const user = sampleUser("bob@example.com", { passwordSeed: null, disabled: true, grants: [] });
        await stores.tenancy.putUser(user);
        expect(await stores.tenancy.findUser("bob@example.com")).toEqual(user);
      });

      test("grants keep their order", async () => {
        const grants = [
          { account: "zeta", profiles: ["b", "a"] },
          { account: "acme", profiles: "*" as const },
          { account: "acme", profiles: [] },
        ];
        await stores.tenancy.putUser(sampleUser("ann@example.com", { grants }));
        expect((await stores.tenancy.findUser("ann@example.com"))!.grants).toEqual(grants);
      });

      test("e-mail is found case-insensitively and keeps its spelling", async () => {
        const user = sampleUser("Ann.Lee@Example.COM");
        await stores.tenancy.putUser(user);
        expect(await stores.tenancy.findUser("ann.lee@example.com")).toEqual(user);
        expect(await stores.tenancy.findUser("ANN.LEE@EXAMPLE.COM")).toEqual(user);
      });

      test("putUser replaces the user with the same e-mail in any case", async () => {
        await stores.tenancy.putUser(sampleUser("ann@example.com"));
        const replacement = sampleUser("ANN@example.com", {
          passwordHash: "new-hash",
          passwordSeed: null,
          disabled: true,
          grants: [{ account: "initech", profiles: ["prod"] }],
          tokenGeneration: "6d0c1e7a9b3f42c58e1d2a4b7c9f0e13",
          updatedAt: 1_800_000_000_000,
        });
        await stores.tenancy.putUser(replacement);
        expect(await stores.tenancy.listUsers()).toEqual([replacement]);
        expect(await stores.tenancy.findUser("ann@example.com")).toEqual(replacement);
      });

      test("updateUser writes only the fields it is given and answers the user as it then is", async () => {
        const user = sampleUser("Ann@example.com", { tokenGeneration: "6d0c1e7a9b3f42c58e1d2a4b7c9f0e13" });
        await stores.tenancy.putUser(user);
        const grants = [{ account: "initech", profiles: ["prod"] }];
        const granted = await stores.tenancy.updateUser("ANN@example.com", { grants, updatedAt: 1_800_000_000_000 });
        expect(granted).toEqual({ ...user, grants, updatedAt: 1_800_000_000_000 });
        const reset = { passwordHash: "new-hash", tokenGeneration: "0f1e2d3c4b5a69788796a5b4c3d2e1f0" };
        await stores.tenancy.updateUser("ann@example.com", { ...reset, updatedAt: 1_800_000_000_001 });
        await stores.tenancy.updateUser("ann@example.com", {
          disabled: true,
          grants: [],
          updatedAt: 1_800_000_000_002,
        });
        const expected = { ...user, ...reset, disabled: true, grants: [], updatedAt: 1_800_000_000_002 };
        expect(await stores.tenancy.findUser("ann@example.com")).toEqual(expected);
        expect(await stores.tenancy.listUsers()).toEqual([expected]);
      });

      test("updateUser of a user that does not exist answers null and creates none", async () => {
        expect(await stores.tenancy.updateUser("nobody@example.com", { disabled: true, updatedAt: 1 })).toBeNull();
        expect(await stores.tenancy.listUsers()).toEqual([]);
      });

      test("listUsers orders e-mails by code unit", async () => {
        for (const local of [...namesInCodeUnitOrder].reverse()) {
          await stores.tenancy.putUser(sampleUser(`${local}@example.com`));
        }
        const listed = await stores.tenancy.listUsers();
        expect(listed.map((user) => user.email)).toEqual(namesInCodeUnitOrder.map((local) => `${local}@example.com`));
      });
    });

    describe("API keys", () => {
      beforeEach(async () => {
        await stores.tenancy.putUser(sampleUser("ann@example.com"));
        await stores.tenancy.putUser(sampleUser("bob@example.com"));
      });

      test("putApiKey refuses a user that does not exist", async () => {
        await expect(stores.tenancy.putApiKey(sampleApiKey("k1", "nobody@example.com"))).rejects.toThrow(
          "does not exist",
        );
        expect(await stores.tenancy.findApiKey("k1")).toBeNull();
      });

      test("a key reads back deep-equal", async () => {
        const key = sampleApiKey("k1", "ann@example.com", { keySeed: "env:ANN_KEY" });
        await stores.tenancy.putApiKey(key);
        expect(await stores.tenancy.findApiKey("k1")).toEqual(key);
        expect(await stores.tenancy.listApiKeys("ann@example.com")).toEqual([key]);
      });

      test("an unknown key is null", async () => {
        expect(await stores.tenancy.findApiKey("nope")).toBeNull();
      });

      test("putApiKey replaces the key with the same id", async () => {
        await stores.tenancy.putApiKey(sampleApiKey("k1", "ann@example.com"));
        const revoked = sampleApiKey("k1", "ann@example.com", { revokedAt: 1_750_000_000_000 });
        await stores.tenancy.putApiKey(revoked);
        expect(await stores.tenancy.findApiKey("k1")).toEqual(revoked);
        expect(await stores.tenancy.listApiKeys("ann@example.com")).toEqual([revoked]);
      });

      test("keys are listed per user, case-insensitively, by id in code-unit order", async () => {
        for (const id of [...namesInCodeUnitOrder].reverse()) {
          await stores.tenancy.putApiKey(sampleApiKey(id, "Ann@Example.com"));
        }
        await stores.tenancy.putApiKey(sampleApiKey("bobs", "bob@example.com"));
        const listed = await stores.tenancy.listApiKeys("ANN@EXAMPLE.COM");
        expect(listed.map((key) => key.id)).toEqual(namesInCodeUnitOrder);
        expect(listed.every((key) => key.userEmail === "Ann@Example.com")).toBe(true);
        expect((await stores.tenancy.listApiKeys("bob@example.com")).map((key) => key.id)).toEqual(["bobs"]);
        expect(await stores.tenancy.listApiKeys("carol@example.com")).toEqual([]);
      });

      test("replacing a user keeps its keys", async () => {
        const key = sampleApiKey("k1", "ann@example.com");
        await stores.tenancy.putApiKey(key);
        await stores.tenancy.putUser(sampleUser("ANN@example.com", { disabled: true }));
        expect(await stores.tenancy.findApiKey("k1")).toEqual(key);
        expect(await stores.tenancy.listApiKeys("ann@example.com")).toEqual([key]);
      });
    });

    describe("settings", () => {
      test("an unset key is null", async () => {
        expect(await stores.settings.get("clock.offset")).toBeNull();
      });

      test("set stores a value and set again replaces it", async () => {
        await stores.settings.set("clock.offset", "0");
        await stores.settings.set("admin.token", "secret");
        await stores.settings.set("clock.offset", "86400000");
        expect(await stores.settings.get("clock.offset")).toBe("86400000");
        expect(await stores.settings.get("admin.token")).toBe("secret");
      });

      test("an empty string is a value, not an absence", async () => {
        await stores.settings.set("empty", "");
        expect(await stores.settings.get("empty")).toBe("");
      });

      test("compareAndSet writes only over the value read", async () => {
        expect(await stores.settings.compareAndSet("lease", null, "a")).toBe(true);
        expect(await stores.settings.compareAndSet("lease", null, "b")).toBe(false);
        expect(await stores.settings.compareAndSet("lease", "b", "c")).toBe(false);
        expect(await stores.settings.compareAndSet("lease", "a", "c")).toBe(true);
        expect(await stores.settings.get("lease")).toBe("c");
      });

      test("deleteIf removes the key only while it holds the value read, and says whether it did", async () => {
        await stores.settings.set("lease.file-import.1", "a");
        await stores.settings.set("lease.file-import.2", "a");
        expect(await stores.settings.deleteIf("lease.file-import.1", "b")).toBe(false);
        expect(await stores.settings.get("lease.file-import.1")).toBe("a");
        expect(await stores.settings.deleteIf("lease.file-import.1", "a")).toBe(true);
        expect(await stores.settings.get("lease.file-import.1")).toBeNull();
        expect(await stores.settings.deleteIf("lease.file-import.1", "a")).toBe(false);
        expect(await stores.settings.get("lease.file-import.2")).toBe("a");
        // Gone is gone: the key can be taken again as a new one.
        expect(await stores.settings.compareAndSet("lease.file-import.1", null, "c")).toBe(true);
      });

      test("keysStartingWith lists the keys of a prefix in order, with `_` and `%` taken as themselves", async () => {
        for (const key of [
          "lease.file-import.b",
          "lease.file-import.a",
          "lease.profiles",
          "lease_file-import.c",
          "lease.file-import%d",
        ])
          await stores.settings.set(key, "x");
        expect(await stores.settings.keysStartingWith("lease.file-import.")).toEqual([
          "lease.file-import.a",
          "lease.file-import.b",
        ]);
        expect(await stores.settings.keysStartingWith("nothing.")).toEqual([]);
      });

      test("setIfAbsent keeps the first value and answers the one kept", async () => {
        expect(await stores.settings.setIfAbsent("auth.jwtSecret", "first")).toBe("first");
        expect(await stores.settings.setIfAbsent("auth.jwtSecret", "second")).toBe("first");
        expect(await stores.settings.get("auth.jwtSecret")).toBe("first");
      });
    });

    describe("isolation of records", () => {
      // TenancyStore: a record read is an immutable value that the store may share between readers.
      test("a returned profile is frozen all the way down: changing it throws, and the stored one stays", async () => {
        await stores.tenancy.ensureAccount("acme", 1000);
        await stores.tenancy.putProfile("acme", fullProfileConfig(), 2000);
        for (const found of [
          await stores.tenancy.findProfile("acme", "main"),
          (await stores.tenancy.listProfiles("acme"))[0],
        ]) {
          expect(() => ((found!.config as { name: string }).name = "changed")).toThrow(TypeError);
          expect(() => (found!.config.attributes as AttributeDefinition[]).pop()).toThrow(TypeError);
          expect(() => ((found!.config.attributes[0]!.enrichments as unknown[]).length = 0)).toThrow(TypeError);
          expect(() => (found!.config.engines[0]!.allowedDomains as string[]).push("evil.example")).toThrow(TypeError);
        }
        expect((await stores.tenancy.findProfile("acme", "main"))!.config).toEqual(fullProfileConfig());
      });

      test("changing a profile after putting it does not change the stored one", async () => {
        await stores.tenancy.ensureAccount("acme", 1000);
        const config = fullProfileConfig();
        await stores.tenancy.putProfile("acme", config, 2000);
        (config.attributes as AttributeDefinition[]).length = 0;
        (config.fileDefinitions as FileDefinition[]).push({ ...config.fileDefinitions[0]!, prefix: "late" });
        expect((await stores.tenancy.findProfile("acme", "main"))!.config).toEqual(fullProfileConfig());
      });

      test("changing a user or a key given does not change the stored one; a returned one is frozen", async () => {
        const user = sampleUser("ann@example.com");
        await stores.tenancy.putUser(user);
        (user.grants as Grant[]).length = 0;
        (user as { disabled: boolean }).disabled = true;
        for (const found of [await stores.tenancy.findUser("ann@example.com"), (await stores.tenancy.listUsers())[0]]) {
          expect(() => (found!.grants as Grant[]).push({ account: "evil", profiles: "*" })).toThrow(TypeError);
        }
        expect(await stores.tenancy.findUser("ann@example.com")).toEqual(sampleUser("ann@example.com"));

        const key = sampleApiKey("k1", "ann@example.com");
        await stores.tenancy.putApiKey(key);
        (key as { revokedAt: number | null }).revokedAt = 5;
        for (const found of [
          await stores.tenancy.findApiKey("k1"),
          (await stores.tenancy.listApiKeys("ann@example.com"))[0],
        ]) {
          expect(() => ((found as { revokedAt: number | null }).revokedAt = 6)).toThrow(TypeError);
        }
        expect(await stores.tenancy.findApiKey("k1")).toEqual(sampleApiKey("k1", "ann@example.com"));
      });

      test("a returned account is frozen", async () => {
        await stores.tenancy.ensureAccount("acme", 1000);
        const found = await stores.tenancy.findAccount("acme");
        expect(() => ((found as { createdAt: number }).createdAt = 5)).toThrow(TypeError);
        const [listed] = await stores.tenancy.listAccounts();
        expect(() => ((listed as { createdAt: number }).createdAt = 6)).toThrow(TypeError);
        expect(await stores.tenancy.findAccount("acme")).toEqual({ name: "acme", createdAt: 1000 });
      });

      test("a list is a new array on every call: changing it does not change the next answer", async () => {
        await stores.tenancy.ensureAccount("acme", 1000);
        await stores.tenancy.putProfile("acme", fullProfileConfig(), 2000);
        await stores.tenancy.putUser(sampleUser("ann@example.com"));
        await stores.tenancy.putApiKey(sampleApiKey("k1", "ann@example.com"));
        const lists: Array<() => Promise<unknown[]>> = [
          () => stores.tenancy.listAccounts(),
          () => stores.tenancy.listProfiles("acme"),
          () => stores.tenancy.listUsers(),
          () => stores.tenancy.listApiKeys("ann@example.com"),
        ];
        for (const list of lists) {
          (await list()).pop();
          expect(await list()).toHaveLength(1);
        }
      });
    });

    describe("lifecycle", () => {
      test("ping resolves while the store is open", async () => {
        await expect(stores.ping()).resolves.toBeUndefined();
      });

      test("ping rejects once the store is closed", async () => {
        await stores.close();
        await expect(stores.ping()).rejects.toThrow();
      });
    });
  });
}
