import { describe, expect, it } from "bun:test";
import { readFileSync, readlinkSync } from "node:fs";
import { createMemoryStores } from "../store-memory/memory.stores.ts";
import { createLease, type LeaseProcess, processIsAlive } from "./lease.ts";

describe("leases", () => {
  it("one holder at a time; the holder renews; an expired lease passes to another", async () => {
    const { settings } = createMemoryStores();
    let now = 1_000;
    const a = createLease(settings, "profiles", "node-a", 10_000, () => now);
    const b = createLease(settings, "profiles", "node-b", 10_000, () => now);
    expect(await a.acquire()).toBe(true);
    expect(await b.acquire()).toBe(false);
    now += 9_000;
    expect(await a.acquire()).toBe(true);
    now += 9_000;
    expect(await b.acquire()).toBe(false);
    now += 10_001;
    expect(await b.acquire()).toBe(true);
    expect(await a.acquire()).toBe(false);
  });

  it("the holder writes a renewal only once a third of the lease's time has passed", async () => {
    const { settings } = createMemoryStores();
    let now = 1_000;
    let writes = 0;
    const counted = {
      ...settings,
      get: settings.get.bind(settings),
      set: settings.set.bind(settings),
      setIfAbsent: settings.setIfAbsent.bind(settings),
      deleteIf: settings.deleteIf.bind(settings),
      compareAndSet: async (key: string, expected: string | null, next: string) => {
        writes += 1;
        return settings.compareAndSet(key, expected, next);
      },
    };
    const a = createLease(counted, "profiles", "node-a", 15_000, () => now);
    expect(await a.acquire()).toBe(true);
    for (let i = 0; i < 10; i += 1) {
      now += 400;
      expect(await a.acquire()).toBe(true);
    }
    expect(writes).toBe(1);
    now += 1_100;
    expect(await a.acquire()).toBe(true);
    expect(writes).toBe(2);
    const host = `${readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim()}/${readlinkSync("/proc/self/ns/pid")}`;
    expect(await settings.get("lease.profiles")).toBe(`node-a|${process.pid}@${host}|${now + 15_000}`);
  });

  it("a released lease passes to another at once", async () => {
    const { settings } = createMemoryStores();
    const a = createLease(settings, "profiles", "node-a", 60_000, () => 5);
    const b = createLease(settings, "profiles", "node-b", 60_000, () => 5);
    expect(await a.acquire()).toBe(true);
    await b.release();
    expect(await b.acquire()).toBe(false);
    await a.release();
    expect(await b.acquire()).toBe(true);
  });

  it("ending a lease removes its row, and another takes it at once", async () => {
    const { settings } = createMemoryStores();
    const a = createLease(settings, "file-import.1", "node-a", 60_000, () => 5);
    const b = createLease(settings, "file-import.1", "node-b", 60_000, () => 5);
    expect(await a.acquire()).toBe(true);
    await a.end();
    expect(await settings.get("lease.file-import.1")).toBeNull();
    expect(await b.acquire()).toBe(true);
  });

  it("ending a lease this holder lost removes nothing: the new holder keeps it", async () => {
    const { settings } = createMemoryStores();
    let now = 1_000;
    const a = createLease(settings, "file-import.1", "node-a", 10_000, () => now);
    const b = createLease(settings, "file-import.1", "node-b", 10_000, () => now);
    expect(await a.acquire()).toBe(true);
    now += 10_001;
    expect(await b.acquire()).toBe(true);
    const held = await settings.get("lease.file-import.1");
    await a.end();
    expect(await settings.get("lease.file-import.1")).toBe(held);
    expect(await a.acquire()).toBe(false);
  });

  it("ending a lease taken over between its look and its delete removes nothing", async () => {
    const { settings } = createMemoryStores();
    let now = 1_000;
    const b = createLease(settings, "file-import.1", "node-b", 10_000, () => now);
    // The store as `a` saw it, then `b` took the lease before `a` deleted: the delete is of the value seen.
    const racing = {
      ...settings,
      get: settings.get.bind(settings),
      set: settings.set.bind(settings),
      setIfAbsent: settings.setIfAbsent.bind(settings),
      compareAndSet: settings.compareAndSet.bind(settings),
      deleteIf: async (key: string, expected: string) => {
        now += 10_001;
        expect(await b.acquire()).toBe(true);
        return settings.deleteIf(key, expected);
      },
    };
    const a = createLease(racing, "file-import.1", "node-a", 10_000, () => now);
    expect(await a.acquire()).toBe(true);
    await a.end();
    expect(await settings.get("lease.file-import.1")).toStartWith("node-b|");
  });

  it("of two takers at once, one wins", async () => {
    const { settings } = createMemoryStores();
    const takers = ["a", "b", "c", "d"].map((holder) => createLease(settings, "x", holder, 10_000, () => 5));
    const won = await Promise.all(takers.map((taker) => taker.acquire()));
    expect(won.filter(Boolean)).toHaveLength(1);
  });

  it("the profile worker does nothing while another node holds its lease", async () => {
    const { profileWorker, ProfilesService } = await import("../../core/profiles/index.ts");
    const { hostEventLoop } = await import("./event-loop.ts");
    const { createMemoryLogger } = await import("./logger.ts");
    const stores = createMemoryStores();
    await stores.tenancy.ensureAccount("acme", 0);
    await stores.tenancy.putProfile(
      "acme",
      { name: "main", visitorIdAttributes: [], attributes: [], audiences: [], engines: [], fileDefinitions: [] },
      0,
    );
    await stores.events.append([
      {
        account: "acme",
        profile: "main",
        visitorId: "v",
        visitorIdSource: "new",
        thirdPartyVisitorId: null,
        firstPartyVisitorId: null,
        event: null,
        datasource: null,
        traceId: null,
        receivedAt: 1,
        data: {},
      },
    ]);
    expect(await createLease(stores.settings, "profiles", "other-node", 60_000).acquire()).toBe(true);
    const worker = profileWorker({
      stores,
      profiles: new ProfilesService({ stores, policy: { visitTimeoutMs: 1_800_000 }, eventLoop: hostEventLoop }),
      logger: createMemoryLogger(),
      lease: createLease(stores.settings, "profiles", "this-node", 15_000),
    });
    expect(await worker.runDue(0)).toBe(0);
    expect(await stores.profiles.canonicalOf("acme", "main", "v")).toBeNull();
    // DEC-OPS-04: its events are still due, so a wait on this node waits for the holder to apply them.
    expect(await worker.nextDueAt()).toBe(1);
    await stores.settings.set("profiles.cursor", "1");
    expect(await worker.nextDueAt()).toBeNull();
  });

  describe("a holder whose process is gone", () => {
    const processOn = (host: string, pid: number, running: ReadonlySet<number>): LeaseProcess => ({
      host,
      pid,
      isAlive: (other) => running.has(other),
    });

    it("loses the lease at once to a process on the same host (a restart after a crash does not wait it out)", async () => {
      const { settings } = createMemoryStores();
      const running = new Set([101, 202]);
      const crashed = createLease(
        settings,
        "profiles",
        "node-a",
        15_000,
        () => 1_000,
        processOn("host-1", 101, running),
      );
      const restarted = createLease(
        settings,
        "profiles",
        "node-b",
        15_000,
        () => 2_000,
        processOn("host-1", 202, running),
      );
      expect(await crashed.acquire()).toBe(true);
      expect(await restarted.acquire()).toBe(false);
      running.delete(101);
      expect(await restarted.acquire()).toBe(true);
    });

    it("keeps it against a process of another host, which cannot see it, until it expires", async () => {
      const { settings } = createMemoryStores();
      let now = 1_000;
      const crashed = createLease(
        settings,
        "profiles",
        "node-a",
        15_000,
        () => now,
        processOn("host-1", 101, new Set()),
      );
      const elsewhere = createLease(
        settings,
        "profiles",
        "node-b",
        15_000,
        () => now,
        processOn("host-2", 202, new Set([202])),
      );
      expect(await crashed.acquire()).toBe(true);
      expect(await elsewhere.acquire()).toBe(false);
      now += 15_001;
      expect(await elsewhere.acquire()).toBe(true);
    });

    it("a lease written before the process was recorded waits until it expires", async () => {
      const { settings } = createMemoryStores();
      await settings.set("lease.profiles", "node-a|16000");
      let now = 1_000;
      const restarted = createLease(
        settings,
        "profiles",
        "node-b",
        15_000,
        () => now,
        processOn("host-1", 202, new Set([202])),
      );
      expect(await restarted.acquire()).toBe(false);
      now = 16_001;
      expect(await restarted.acquire()).toBe(true);
    });

    it("a process that cannot tell where process ids mean something never judges a holder gone", async () => {
      const { settings } = createMemoryStores();
      let now = 1_000;
      const crashed = createLease(settings, "profiles", "node-a", 15_000, () => now, {
        host: null,
        pid: 101,
        isAlive: () => false,
      });
      const restarted = createLease(settings, "profiles", "node-b", 15_000, () => now, {
        host: null,
        pid: 202,
        isAlive: () => false,
      });
      expect(await crashed.acquire()).toBe(true);
      expect(await restarted.acquire()).toBe(false);
      now += 15_001;
      expect(await restarted.acquire()).toBe(true);
    });

    it("an earlier version, reading the expiry last, respects a lease this version wrote", async () => {
      const { settings } = createMemoryStores();
      const now = 1_000;
      const current = createLease(
        settings,
        "profiles",
        "node-new",
        15_000,
        () => now,
        processOn("host-1", 101, new Set([101])),
      );
      expect(await current.acquire()).toBe(true);
      // How earlier versions read a lease: the holder before the last "|", the expiry after it.
      const stored = (await settings.get("lease.profiles")) as string;
      const owner = stored.slice(0, stored.lastIndexOf("|"));
      const expiresAt = Number(stored.slice(stored.lastIndexOf("|") + 1));
      expect(owner).not.toBe("node-old");
      expect(Number.isFinite(expiresAt) && expiresAt > now).toBe(true);
    });

    it("this process is alive and an unused process id is not", () => {
      expect(processIsAlive(process.pid)).toBe(true);
      expect(processIsAlive(2 ** 22 + 12_345)).toBe(false);
    });
  });
});
