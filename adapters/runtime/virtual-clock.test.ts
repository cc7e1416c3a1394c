import { describe, expect, it } from "bun:test";
import { createMemoryStores } from "../store-memory/memory.stores.ts";
import { openVirtualClock } from "./virtual-clock.ts";

describe("virtual clock adapter (DEC-OPS-02)", () => {
  it("keeps its offset in the settings store, so a restart does not move time back", async () => {
    const stores = createMemoryStores();
    let real = 5_000_000;
    const first = await openVirtualClock(stores.settings, () => real);
    const advanced = await first.advance(30 * 86_400_000);
    expect(advanced).toEqual({ ok: true, value: real + 30 * 86_400_000 });

    real += 1_000;
    const reopened = await openVirtualClock(stores.settings, () => real);
    expect(reopened.now()).toBe(real + 30 * 86_400_000);
  });

  it("tells its listeners after a change and refuses a bad one without changing", async () => {
    const stores = createMemoryStores();
    const clock = await openVirtualClock(stores.settings, () => 0);
    let calls = 0;
    clock.onChange(() => {
      calls += 1;
    });
    await clock.set(1_000);
    expect(calls).toBe(1);
    expect(await clock.advance(-1)).toEqual({ ok: false, error: "negative-advance" });
    expect(calls).toBe(1);
    expect(clock.now()).toBe(1_000);
  });
});

describe("virtual clock on a shared store", () => {
  it("two processes: an advance made by one is seen by the other after refresh, and concurrent advances both count", async () => {
    const stores = createMemoryStores();
    const a = await openVirtualClock(stores.settings, () => 0);
    const b = await openVirtualClock(stores.settings, () => 0);
    await Promise.all([a.advance(1_000), b.advance(2_000), a.advance(4_000)]);
    await a.refresh();
    await b.refresh();
    expect(a.now()).toBe(7_000);
    expect(b.now()).toBe(7_000);
  });
});
