import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryStores } from "../../adapters/store-memory/memory.stores.ts";
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
    const directory = new TenantDirectory(tenancy, () => now, 10_000);
    assert.equal((await directory.snapshot()).isKnownProfile("acme", "main"), true);
    await tenancy.putProfile("acme", emptyProfile("dev"), 0);
    now = 5_000;
    assert.equal((await directory.snapshot()).isKnownProfile("acme", "dev"), false);
    now = 10_001;
    await directory.snapshot();
    await new Promise((resolve) => setTimeout(resolve, 1));
    assert.equal((await directory.snapshot()).isKnownProfile("acme", "dev"), true);
  });

  it("[DEC-COL-11] knows each profile's visitor ID attributes, for a known visitor ID that lost the precedence", async () => {
    const { tenancy } = createMemoryStores();
    await tenancy.ensureAccount("acme", 0);
    const customerId = { id: 5121, name: "customer_id", parameter: "customer_id" };
    await tenancy.putProfile("acme", { ...emptyProfile("main"), visitorIdAttributes: [customerId] }, 0);
    const snapshot = await new TenantDirectory(tenancy, () => 0).snapshot();
    assert.deepEqual(snapshot.visitorIdAttributesOf("acme", "main"), [customerId]);
    assert.deepEqual(snapshot.visitorIdAttributesOf("acme", "dev"), []);
    assert.equal(snapshot.isKnownProfile("acme", "main"), true);
  });

  it("a read of the store begun before refresh() never becomes the copy (a reset, POST /admin/reset, erased what it read)", async () => {
    const stores = createMemoryStores();
    await stores.tenancy.ensureAccount("acme", 0);
    await stores.tenancy.putProfile("acme", emptyProfile("main"), 0);
    let now = 0;
    const directory = new TenantDirectory(stores.tenancy, () => now, 10_000);
    assert.equal((await directory.snapshot()).isKnownProfile("acme", "main"), true);
    now = 10_001;
    // The background read starts here, then the store is erased and the directory told before it ends.
    await directory.snapshot();
    await stores.eraseAll({ keepSettings: [] });
    directory.refresh();
    await new Promise((resolve) => setTimeout(resolve, 1));
    assert.equal((await directory.snapshot()).isKnownProfile("acme", "main"), false);
  });
});
