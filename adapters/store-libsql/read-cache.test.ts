import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import type { Stores, Verdict, Violation } from "../../core/ports/index.ts";
import { fullProfileConfig, sampleUser } from "../../testing/fixtures.ts";
import { openLibsqlStores } from "./libsql.stores.ts";
import { keptNotFoundAnswers, ReadCache } from "./tenancy.repo.ts";

/*
 * Performance changes of the libSQL store (issue 12, bench/FINDINGS.md) that must not change what is read:
 * the tenancy reads kept in memory while the file is unchanged, and the session touches that share a commit.
 */

const opened: Stores[] = [];
const directories: string[] = [];

async function openOn(url: string): Promise<Stores> {
  const stores = await openLibsqlStores({ url });
  opened.push(stores);
  return stores;
}

function freshUrl(): string {
  const directory = mkdtempSync(join(tmpdir(), "svc-hub-read-cache-"));
  directories.push(directory);
  return `file:${join(directory, "test.db")}`;
}

afterEach(async () => {
  for (const stores of opened.splice(0)) await stores.close();
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

describe("libsql tenancy reads kept in memory", () => {
  test("reading the same profile again answers an equal record, frozen (TenancyStore: records are shared)", async () => {
    const stores = await openOn(freshUrl());
    await stores.tenancy.ensureAccount("acme", 1);
    await stores.tenancy.putProfile("acme", fullProfileConfig("main"), 1);
    const first = await stores.tenancy.findProfile("acme", "main");
    const second = await stores.tenancy.findProfile("acme", "main");
    expect(second).toEqual(first);
    expect(Object.isFrozen(second) && Object.isFrozen(second?.config.engines)).toBe(true);
  });

  test("this store's own writes are read back at once (profile, account, user)", async () => {
    const stores = await openOn(freshUrl());
    await stores.tenancy.ensureAccount("acme", 1);
    expect(await stores.tenancy.findProfile("acme", "main")).toBeNull();
    expect(await stores.tenancy.findAccount("globex")).toBeNull();
    expect(await stores.tenancy.findUser("ann@example.com")).toBeNull();
    await stores.tenancy.putProfile("acme", fullProfileConfig("main"), 2);
    await stores.tenancy.ensureAccount("globex", 2);
    await stores.tenancy.putUser(sampleUser("ann@example.com"));
    expect((await stores.tenancy.findProfile("acme", "main"))?.config).toEqual(fullProfileConfig("main"));
    expect((await stores.tenancy.listProfiles("acme")).map((record) => record.config.name)).toEqual(["main"]);
    expect((await stores.tenancy.findAccount("globex"))?.name).toBe("globex");
    expect((await stores.tenancy.listAccounts()).map((account) => account.name)).toEqual(["acme", "globex"]);
    await stores.tenancy.putUser(sampleUser("ann@example.com", { disabled: true }));
    expect((await stores.tenancy.findUser("ANN@example.com"))?.disabled).toBe(true);
  });

  test("a change committed by another process on the same file is seen by the next read", async () => {
    const url = freshUrl();
    const here = await openOn(url);
    const there = await openOn(url);
    await here.tenancy.ensureAccount("acme", 1);
    await here.tenancy.putProfile("acme", { ...fullProfileConfig("main"), engines: [] }, 1);
    await here.tenancy.putUser(sampleUser("ann@example.com"));
    expect((await here.tenancy.findProfile("acme", "main"))?.config.engines).toEqual([]);
    expect((await here.tenancy.findUser("ann@example.com"))?.disabled).toBe(false);

    await there.tenancy.putProfile("acme", fullProfileConfig("main"), 2);
    await there.tenancy.putUser(sampleUser("ann@example.com", { disabled: true }));
    await Bun.sleep(1); // the version is asked once per turn of the event loop
    expect((await here.tenancy.findProfile("acme", "main"))?.config).toEqual(fullProfileConfig("main"));
    expect((await here.tenancy.findUser("ann@example.com"))?.disabled).toBe(true);
  });

  test("a read that overlaps a write of this store does not keep the old answer", async () => {
    const stores = await openOn(freshUrl());
    await stores.tenancy.ensureAccount("acme", 1);
    await stores.tenancy.putProfile("acme", { ...fullProfileConfig("main"), engines: [] }, 1);
    const [during] = await Promise.all([
      stores.tenancy.findProfile("acme", "main"),
      stores.tenancy.putProfile("acme", fullProfileConfig("main"), 2),
    ]);
    expect(during?.config.name).toBe("main");
    expect((await stores.tenancy.findProfile("acme", "main"))?.config).toEqual(fullProfileConfig("main"));
  });

  test('"not found" answers are kept for a bounded number of names: made-up names sent by anyone cannot fill the memory', async () => {
    const client = createClient({ url: ":memory:" });
    try {
      const cache = new ReadCache(drizzle({ client }));
      const loads = new Map<string, number>();
      const read = (key: string, value: string | null = null) =>
        cache.read(key, async () => {
          loads.set(key, (loads.get(key) ?? 0) + 1);
          return value;
        });
      for (let n = 0; n <= keptNotFoundAnswers; n += 1) await read(`missing-${n}`);
      await read("missing-0");
      await read(`missing-${keptNotFoundAnswers}`);
      expect(loads.get("missing-0")).toBe(1);
      expect(loads.get(`missing-${keptNotFoundAnswers}`)).toBe(2);
      // Found answers are still kept once the "not found" ones reached their bound.
      await read("found", "a record");
      expect(await read("found", "a record")).toBe("a record");
      expect(loads.get("found")).toBe(1);
      // A write empties the cache, and with it the count.
      cache.clear();
      await read(`missing-${keptNotFoundAnswers}`);
      await read(`missing-${keptNotFoundAnswers}`);
      expect(loads.get(`missing-${keptNotFoundAnswers}`)).toBe(3);
    } finally {
      client.close();
    }
  });

  test("a list handed out is a copy: changing it does not change the next answer", async () => {
    const stores = await openOn(freshUrl());
    await stores.tenancy.ensureAccount("acme", 1);
    (await stores.tenancy.listAccounts()).pop();
    expect((await stores.tenancy.listAccounts()).map((account) => account.name)).toEqual(["acme"]);
  });
});

describe("libsql session touches sharing a commit", () => {
  const session = (id: string, lastSeenAt: number) => ({
    id,
    userEmail: "ann@example.com",
    cookieHash: id.padEnd(64, "c"),
    utkHash: id.padEnd(64, "u"),
    createdAt: 0,
    lastSeenAt,
  });

  test("touches made together are all committed, each session moving to its latest use and never back", async () => {
    const url = freshUrl();
    const stores = await openOn(url);
    await stores.tenancy.putUser(sampleUser("ann@example.com"));
    for (const [id, at] of [
      ["s1", 1_000],
      ["s2", 1_000],
      ["s3", 9_000],
    ] as const)
      await stores.sessions.create(session(id, at), 50);
    await Promise.all([
      stores.sessions.touch("s1", 5_000),
      stores.sessions.touch("s1", 4_000),
      stores.sessions.touch("s2", 7_000),
      stores.sessions.touch("s3", 2_000),
    ]);
    // Read through another connection: what was committed, not what one connection holds.
    const other = await openOn(url);
    const lastSeen = async (id: string) => (await other.sessions.findByCookieHash(id.padEnd(64, "c")))?.lastSeenAt;
    expect([await lastSeen("s1"), await lastSeen("s2"), await lastSeen("s3")]).toEqual([5_000, 7_000, 9_000]);
  });

  test("a touch that cannot be committed is refused, not silently dropped", async () => {
    const stores = await openOn(freshUrl());
    await stores.tenancy.putUser(sampleUser("ann@example.com"));
    await stores.sessions.create(session("s1", 1_000), 50);
    await stores.close();
    opened.splice(opened.indexOf(stores), 1);
    await expect(stores.sessions.touch("s1", 2_000)).rejects.toThrow();
  });
});

describe("libsql data layer changes and settlements sharing a commit", () => {
  /** Counts the data layer repository's transactions at its drizzle database (a look inside, for these tests only). */
  function countTransactions(stores: Stores): () => number {
    const db = (stores.dataLayers as unknown as { db: { batch: (...args: unknown[]) => Promise<unknown> } }).db;
    const batch = db.batch.bind(db);
    let transactions = 0;
    db.batch = (...args: unknown[]) => {
      transactions += 1;
      return batch(...args);
    };
    return () => transactions;
  }
  const keys = ["a", "b", "c"].map((dlId) => ({ account: "acme", profile: "main", dlId }));
  const upload = (key: (typeof keys)[number]) => ({
    key,
    seq: 1,
    kind: "upload" as const,
    body: "{}",
    state: "pending" as const,
    acceptedAt: 1,
    dueAt: 2,
    runAt: 2,
    attempts: 0,
    settledAt: null,
  });

  test("changes accepted together are one transaction", async () => {
    const stores = await openOn(freshUrl());
    const transactions = countTransactions(stores);
    expect(await Promise.all(keys.map((key) => stores.dataLayers.append(upload(key), true)))).toEqual([
      true,
      true,
      true,
    ]);
    expect(transactions()).toBe(1);
  });

  test("settlements made together are one transaction", async () => {
    const stores = await openOn(freshUrl());
    for (const key of keys) await stores.dataLayers.append(upload(key), true);
    const transactions = countTransactions(stores);
    const settled = await Promise.all(
      keys.map((key) =>
        stores.dataLayers.settle({ key, seq: 1, state: "completed", settledAt: 3, attempts: 0, serve: "{}" }),
      ),
    );
    expect(settled).toEqual([true, true, true]);
    expect(transactions()).toBe(1);
  });
});

describe("libsql reads on the statement reader (a moments lookup)", () => {
  const profile = (eventCount: number) =>
    ({
      firstSeenAt: 1,
      lastSeenAt: 2,
      lastSeq: eventCount,
      eventCount,
      visits: [],
      attributes: {},
      badges: [],
      audiences: [],
    }) as never;

  test("a write committed on the store's connection is read back at once, every time", async () => {
    const stores = await openOn(freshUrl());
    for (let count = 1; count <= 20; count += 1) {
      await stores.profiles.save("acme", "main", "v", profile(count), [`m${count}`]);
      expect((await stores.profiles.findByMember("acme", "main", `m${count}`))?.data).toMatchObject({
        eventCount: count,
      });
      expect((await stores.profiles.findByMember("acme", "main", "v"))?.data).toMatchObject({ eventCount: count });
    }
    await stores.profiles.setEngineEnabledSince("acme", "main", "e1", 5);
    expect(await stores.profiles.engineEnabledSince("acme", "main", "e1")).toBe(5);
    await stores.profiles.setEngineEnabledSince("acme", "main", "e1", null);
    expect(await stores.profiles.engineEnabledSince("acme", "main", "e1")).toBeNull();
  });

  test("another process's write is read back at once, and reading never holds up a writer", async () => {
    const url = freshUrl();
    const reading = await openOn(url);
    const writing = await openOn(url);
    for (let count = 1; count <= 10; count += 1) {
      expect(await reading.profiles.findByMember("acme", "main", "w")).toEqual(count === 1 ? null : expect.anything());
      await writing.profiles.save("acme", "main", "w", profile(count), []);
      expect((await reading.profiles.findByMember("acme", "main", "w"))?.data).toMatchObject({ eventCount: count });
    }
  });

  test("an in-memory database has no second connection: its reads go through the client", async () => {
    const stores = await openOn(":memory:");
    await stores.profiles.save("acme", "main", "v", profile(3), []);
    expect((await stores.profiles.findByMember("acme", "main", "v"))?.data).toMatchObject({ eventCount: 3 });
  });
});

describe("libsql in-order event reads on the statement reader (the profile worker)", () => {
  const event = (traceId: string, data: Record<string, unknown> = {}) => ({
    account: "acme",
    profile: "main",
    visitorId: "v",
    visitorIdSource: "visitor_id" as const,
    thirdPartyVisitorId: null,
    firstPartyVisitorId: "fp",
    event: "view",
    datasource: null,
    traceId,
    receivedAt: 7,
    data,
    verdict: "none" as Verdict,
    violations: [] as Violation[],
  });

  test("every event after a sequence number, in order, as the filtered read answers it, including other processes' events", async () => {
    const url = freshUrl();
    const here = await openOn(url);
    const there = await openOn(url);
    // Issue 43: the tracking plan's verdict and violations read back through the statement reader too.
    const invalid = {
      ...event("a", { n: 1, nested: { x: [1, 2] } }),
      verdict: "invalid" as const,
      violations: [{ parameter: "n", path: "/n", rule: "type", value: 1, message: "must be string" }],
    };
    await here.events.append([invalid, event("b")]);
    await there.events.append([event("c")]);
    await here.events.append([event("d")]);
    const all = await here.events.query({ afterSeq: 0, limit: 10, order: "asc" });
    expect(all.map((stored) => stored.traceId)).toEqual(["a", "b", "c", "d"]);
    expect(all[0]).toEqual({ ...invalid, seq: all[0]!.seq });
    // The same events through the general (filtered) read.
    expect(await here.events.query({ account: "acme", afterSeq: 0, limit: 10 })).toEqual(all);
    const rest = await here.events.query({ afterSeq: all[1]!.seq, limit: 1 });
    expect(rest.map((stored) => stored.traceId)).toEqual(["c"]);
  });
});
