import { describe, expect, it } from "bun:test";
import { createMemoryStores } from "../store-memory/memory.stores.ts";
import { TenantDirectory } from "./tenant-directory.ts";

const emptyProfile = (name: string) => ({
  name,
  visitorIdAttributes: [],
  attributes: [],
  audiences: [],
  engines: [],
  fileDefinitions: [],
});

describe("TenantDirectory", () => {
  it("answers from memory and picks up a profile added elsewhere once its copy is older than the limit", async () => {
    const { tenancy } = createMemoryStores();
    await tenancy.ensureAccount("acme", 0);
    await tenancy.putProfile("acme", emptyProfile("main"), 0);
    let now = 0;
    const directory = new TenantDirectory(tenancy, 10_000, () => now);
    expect((await directory.snapshot()).isKnownProfile("acme", "main")).toBe(true);
    await tenancy.putProfile("acme", emptyProfile("dev"), 0);
    now = 5_000;
    expect((await directory.snapshot()).isKnownProfile("acme", "dev")).toBe(false);
    now = 10_001;
    await directory.snapshot();
    await Bun.sleep(1);
    expect((await directory.snapshot()).isKnownProfile("acme", "dev")).toBe(true);
  });

  it("[DEC-COL-11] knows each profile's visitor ID attributes, for a known visitor ID that lost the precedence", async () => {
    const { tenancy } = createMemoryStores();
    await tenancy.ensureAccount("acme", 0);
    const customerId = { id: 5121, name: "customer_id", parameter: "customer_id" };
    await tenancy.putProfile("acme", { ...emptyProfile("main"), visitorIdAttributes: [customerId] }, 0);
    const snapshot = await new TenantDirectory(tenancy).snapshot();
    expect(snapshot.visitorIdAttributesOf("acme", "main")).toEqual([customerId]);
    expect(snapshot.visitorIdAttributesOf("acme", "dev")).toEqual([]);
    expect(snapshot.isKnownProfile("acme", "main")).toBe(true);
  });

  it("a read of the store begun before refresh() never becomes the copy (a reset, POST /admin/reset, erased what it read)", async () => {
    const stores = createMemoryStores();
    await stores.tenancy.ensureAccount("acme", 0);
    await stores.tenancy.putProfile("acme", emptyProfile("main"), 0);
    let now = 0;
    const directory = new TenantDirectory(stores.tenancy, 10_000, () => now);
    expect((await directory.snapshot()).isKnownProfile("acme", "main")).toBe(true);
    now = 10_001;
    // The background read starts here, then the store is erased and the directory told before it ends.
    await directory.snapshot();
    await stores.eraseAll({ keepSettings: [] });
    directory.refresh();
    await Bun.sleep(1);
    expect((await directory.snapshot()).isKnownProfile("acme", "main")).toBe(false);
  });
});
