/** The session and lockout part of the store contract, run against every store implementation. */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { SessionRecord, Stores } from "../../core/ports/index.ts";
import { sampleUser } from "../../testing/fixtures.ts";

function session(overrides: Partial<SessionRecord> = {}): SessionRecord {
  return {
    id: "s1",
    userEmail: "Demo@Example.com",
    cookieHash: "c".repeat(64),
    utkHash: "u".repeat(64),
    createdAt: 1_000,
    lastSeenAt: 1_000,
    ...overrides,
  };
}

export function describeSessionStoreContract(name: string, open: () => Promise<Stores>): void {
  describe(`${name}: sessions and lockouts`, () => {
    let stores: Stores;
    beforeEach(async () => {
      stores = await open();
      await stores.tenancy.putUser(sampleUser("Demo@Example.com"));
    });
    afterEach(async () => {
      await stores.close();
    });

    test("a session is found by its cookie hash only", async () => {
      await stores.sessions.create(session(), 50);
      expect(await stores.sessions.findByCookieHash("c".repeat(64))).toEqual(session());
      expect(await stores.sessions.findByCookieHash("u".repeat(64))).toBeNull();
    });

    test("two sessions cannot share a cookie hash", async () => {
      await stores.sessions.create(session(), 50);
      await expect(stores.sessions.create(session({ id: "s2", utkHash: "v".repeat(64) }), 50)).rejects.toThrow();
    });

    test("touch moves the last use forward, never back", async () => {
      await stores.sessions.create(session(), 50);
      await stores.sessions.touch("s1", 5_000);
      await stores.sessions.touch("s1", 4_000);
      expect((await stores.sessions.findByCookieHash("c".repeat(64)))?.lastSeenAt).toBe(5_000);
    });

    test("delete, deleteForUser (any case) and deleteExpired end sessions", async () => {
      await stores.sessions.create(session(), 50);
      await stores.sessions.create(
        session({ id: "s2", cookieHash: "d".repeat(64), lastSeenAt: 9_000, createdAt: 9_000 }),
        50,
      );
      await stores.sessions.create(
        session({ id: "s3", cookieHash: "e".repeat(64), lastSeenAt: 9_000, createdAt: 500 }),
        50,
      );
      expect(await stores.sessions.deleteExpired(2_000, 600)).toBe(2);
      expect(await stores.sessions.findByCookieHash("d".repeat(64))).not.toBeNull();
      expect(await stores.sessions.deleteForUser("demo@example.COM")).toBe(1);
      expect(await stores.sessions.findByCookieHash("d".repeat(64))).toBeNull();
      await stores.sessions.create(session({ id: "s4", cookieHash: "f".repeat(64) }), 50);
      await stores.sessions.delete("s4");
      expect(await stores.sessions.findByCookieHash("f".repeat(64))).toBeNull();
    });

    test("create ends the user's oldest sessions beyond the limit: never the new one, nor another user's; answers how many", async () => {
      await stores.tenancy.putUser(sampleUser("Other@Example.com"));
      const at = (id: string, createdAt: number, userEmail = "Demo@Example.com") =>
        session({ id, userEmail, cookieHash: id.padEnd(64, "c"), createdAt, lastSeenAt: createdAt });
      const live = async (...ids: string[]) =>
        Promise.all(ids.map(async (id) => (await stores.sessions.findByCookieHash(id.padEnd(64, "c"))) !== null));
      expect(await stores.sessions.create(at("o1", 100, "other@example.com"), 3)).toBe(0);
      expect(await stores.sessions.create(at("s1", 1_000), 3)).toBe(0);
      expect(await stores.sessions.create(at("s2", 3_000), 3)).toBe(0);
      expect(await stores.sessions.create(at("s3", 2_000), 3)).toBe(0);
      // Made with an older time than the others (another node's clock): it stays; the oldest other ends.
      expect(await stores.sessions.create(at("s4", 500, "DEMO@example.com"), 3)).toBe(1);
      expect(await live("s1", "s2", "s3", "s4", "o1")).toEqual([false, true, true, true, true]);
      // Of two made at the same time, the earlier made ends first.
      expect(await stores.sessions.create(at("s5", 2_000), 3)).toBe(1);
      expect(await live("s2", "s3", "s4", "s5")).toEqual([true, true, false, true]);
      expect(await stores.sessions.create(at("s6", 2_000), 3)).toBe(1);
      expect(await live("s2", "s3", "s5", "s6")).toEqual([true, false, true, true]);
      expect(await stores.sessions.create(at("s7", 4_000), 1)).toBe(3);
      expect(await live("s2", "s5", "s6", "s7", "o1")).toEqual([false, false, false, true, true]);
    });

    test("lockout state is written only when the version is the one read", async () => {
      expect(await stores.lockouts.read("password", "a@b.c")).toBeNull();
      expect(await stores.lockouts.compareAndSet("password", "a@b.c", null, "s1", 5_000)).toBe(true);
      expect(await stores.lockouts.compareAndSet("password", "a@b.c", null, "lost", 5_000)).toBe(false);
      const first = (await stores.lockouts.read("password", "a@b.c"))?.version as number;
      expect(await stores.lockouts.read("password", "a@b.c")).toEqual({ state: "s1", version: first });
      expect(await stores.lockouts.compareAndSet("password", "a@b.c", first, "s2", 5_000)).toBe(true);
      expect(await stores.lockouts.compareAndSet("password", "a@b.c", first, "lost", 5_000)).toBe(false);
      expect(await stores.lockouts.read("password", "a@b.c")).toEqual({ state: "s2", version: first + 1 });
    });

    test("password and API key lockouts of one name are separate", async () => {
      await stores.lockouts.compareAndSet("password", "a@b.c", null, "p", 5_000);
      expect(await stores.lockouts.read("api-key", "a@b.c")).toBeNull();
    });

    test("[DEC-SES-01] deleteExpired removes the lockouts that no longer matter at the time given (up to it included) and says how many", async () => {
      await stores.lockouts.compareAndSet("password", "cleared@b.c", null, "cleared", 0);
      await stores.lockouts.compareAndSet("password", "old@b.c", null, "old", 4_000);
      await stores.lockouts.compareAndSet("api-key", "ends-now@b.c", null, "ends now", 5_000);
      await stores.lockouts.compareAndSet("password", "locked@b.c", null, "locked", 5_001);
      await stores.lockouts.compareAndSet("api-key", "locked@b.c", null, "locked", 9_000);
      expect(await stores.lockouts.deleteExpired(5_000)).toBe(3);
      for (const [kind, name] of [
        ["password", "cleared@b.c"],
        ["password", "old@b.c"],
        ["api-key", "ends-now@b.c"],
      ] as const) {
        expect(await stores.lockouts.read(kind, name)).toBeNull();
      }
      expect((await stores.lockouts.read("password", "locked@b.c"))?.state).toBe("locked");
      expect((await stores.lockouts.read("api-key", "locked@b.c"))?.state).toBe("locked");
      expect(await stores.lockouts.deleteExpired(5_000)).toBe(0);
    });

    test("[DEC-SES-01] a lockout rewritten to matter longer outlives a sweep its earlier state would not have", async () => {
      await stores.lockouts.compareAndSet("password", "a@b.c", null, "one failure", 4_000);
      const version = (await stores.lockouts.read("password", "a@b.c"))?.version as number;
      expect(await stores.lockouts.compareAndSet("password", "a@b.c", version, "locked", 9_000)).toBe(true);
      expect(await stores.lockouts.deleteExpired(5_000)).toBe(0);
      expect(await stores.lockouts.read("password", "a@b.c")).toEqual({ state: "locked", version: version + 1 });
    });

    test("[DEC-SES-01] a removed lockout starts again from no record: a writer holding its old version loses, also against the record made after it", async () => {
      await stores.lockouts.compareAndSet("password", "a@b.c", null, "s1", 4_000);
      const old = (await stores.lockouts.read("password", "a@b.c"))?.version as number;
      expect(await stores.lockouts.deleteExpired(4_000)).toBe(1);
      expect(await stores.lockouts.compareAndSet("password", "a@b.c", old, "lost", 9_000)).toBe(false);
      expect(await stores.lockouts.read("password", "a@b.c")).toBeNull();
      expect(await stores.lockouts.compareAndSet("password", "a@b.c", null, "s2", 9_000)).toBe(true);
      expect((await stores.lockouts.read("password", "a@b.c"))?.version).not.toBe(old);
      expect(await stores.lockouts.compareAndSet("password", "a@b.c", old, "lost", 9_000)).toBe(false);
      expect((await stores.lockouts.read("password", "a@b.c"))?.state).toBe("s2");
    });
  });
}
