import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryStores } from "../../adapters/store-memory/memory.stores.ts";
import { storesRefusingNul, webDigests } from "../../testing/fakes.ts";
import {
  auditFor,
  emailIdAttribute,
  profileWith,
  sampleFileRecord,
  sampleTransaction,
  seedProfile,
} from "../../testing/fixtures.ts";
import { publishMinute, publishRequest } from "../../testing/revisions/revisions.ts";
import type { BundleZipper, DataLayerChange, Stores, ZipEntry } from "../ports/index.ts";
import { RevisionsService } from "../revisions/revisions.use-cases.ts";
import { OverviewService } from "./overview.use-cases.ts";

/** A zipper that writes its entries, in order, as JSON, so that a test reads back the bundle's members. */
const jsonZipper: BundleZipper = {
  async zip(entries) {
    return new TextEncoder().encode(JSON.stringify(entries.map((entry) => entry.name)));
  },
};
const membersOf = (bundle: Uint8Array) => JSON.parse(new TextDecoder().decode(bundle)) as ZipEntry["name"][];

/** acme/main with e-mail addresses as visitor ID attribute 5120, and its overview. */
async function open(): Promise<{ stores: Stores; overview: OverviewService }> {
  const stores = createMemoryStores();
  await seedProfile(stores, profileWith({ visitorIdAttributes: [emailIdAttribute] }));
  return { stores, overview: new OverviewService({ stores }) };
}

function change(dlId: string, overrides: Partial<DataLayerChange> = {}): DataLayerChange {
  return {
    key: { account: "acme", profile: "main", dlId },
    seq: 1,
    kind: "upload",
    body: '{"n":1}',
    state: "pending",
    acceptedAt: 1_000,
    dueAt: 1_500,
    runAt: 1_500,
    attempts: 0,
    settledAt: null,
    ...overrides,
  };
}

describe("the console's overview of a profile: unknown names (issue 32, DEC-GEN-04)", () => {
  it("an unknown account is 404 1240 and an unknown profile 404 1250, for every list and the bundle", async () => {
    const { overview } = await open();
    const calls = [
      (account: string, profile: string) => overview.dataLayers(account, profile, 10),
      (account: string, profile: string) => overview.revisions(account, profile, 10),
      (account: string, profile: string) => overview.revisionBundle(account, profile, "202501021953"),
      (account: string, profile: string) => overview.files(account, profile, 10),
      (account: string, profile: string) => overview.privacyTransactions(account, profile, 10),
    ];
    for (const call of calls) {
      const noAccount = await call("nobody", "main");
      const noProfile = await call("acme", "nobody");
      assert.deepEqual(
        [noAccount.ok ? null : noAccount.error.returnCode, noProfile.ok ? null : noProfile.error.returnCode],
        [1240, 1250],
      );
    }
  });

  it("an account or profile holding U+0000, which no store keeps, is 1240 / 1250 without asking a store (second probe, finding 4)", async () => {
    const stores = storesRefusingNul(createMemoryStores());
    await seedProfile(stores, profileWith({ visitorIdAttributes: [emailIdAttribute] }));
    const overview = new OverviewService({ stores });
    for (const [account, profile, returnCode] of [
      ["acme\u0000", "main", 1240],
      ["acme", "main\u0000", 1250],
    ] as const) {
      const lists = [
        await overview.dataLayers(account, profile, 10),
        await overview.revisions(account, profile, 10),
        await overview.files(account, profile, 10),
        await overview.privacyTransactions(account, profile, 10),
      ];
      assert.deepEqual(
        lists.map((list) => (list.ok ? 200 : list.error.returnCode)),
        [returnCode, returnCode, returnCode, returnCode],
      );
    }
    assert.deepEqual(stores.asked, []);
  });
});

describe("the console's data layers of a profile (issue 32, DEC-DLE-05..07)", () => {
  it("lists every data layer with a change, deleted ones too, by dl_id, with what is served, up to the limit", async () => {
    const { stores, overview } = await open();
    await stores.dataLayers.append(change("b"), true);
    await stores.dataLayers.append(change("a"), true);
    await stores.dataLayers.settle({
      key: change("a").key,
      seq: 1,
      state: "completed",
      settledAt: 1_600,
      attempts: 0,
      serve: '{"n":1}',
    });
    await stores.dataLayers.append(change("a", { seq: 2, kind: "delete", body: null, acceptedAt: 2_000 }), false);
    await stores.dataLayers.append({ ...change("elsewhere"), key: { ...change("x").key, profile: "dev" } }, true);

    const listed = await overview.dataLayers("acme", "main", 10);
    assert.ok(listed.ok);
    assert.deepEqual(
      listed.value.map((layer) => [
        layer.dlId,
        layer.exists,
        layer.newest.kind,
        layer.newest.state,
        layer.served?.preview,
      ]),
      [
        ["a", false, "delete", "pending", '{"n":1}'],
        ["b", true, "upload", "pending", undefined],
      ],
    );
    const limited = await overview.dataLayers("acme", "main", 1);
    assert.deepEqual(limited.ok && limited.value.map((layer) => layer.dlId), ["a"]);
  });
});

describe("the console's revisions of a profile (issue 32, REV-01, REV-03, DEC-REV-02)", () => {
  async function publishThree() {
    const opened = await open();
    let now = publishMinute;
    const revisions = new RevisionsService({
      stores: opened.stores,
      clock: { now: () => now },
      digests: webDigests,
      zipper: jsonZipper,
      filePrefix: "utag",
    });
    const published = [];
    for (const name of ["first", "second", "third"]) {
      const details = await revisions.publish("acme", "main", publishRequest({ name, targets: ["prod", "qa"] }));
      assert.ok(details.ok);
      published.push(details.value);
      now += 60_000;
    }
    return { ...opened, published };
  }

  it("lists the revisions newest first with every field of their details and their bundle's files, up to the limit", async () => {
    const { overview, stores, published } = await publishThree();
    const listed = await overview.revisions("acme", "main", 2);
    assert.ok(listed.ok);
    const [newest, second] = listed.value;
    assert.equal(listed.value.length, 2);
    assert.deepEqual(
      { ...newest, createdAt: undefined, createdAtMs: undefined, files: undefined },
      {
        revisionId: published[2]?.revision_id,
        ...published[2],
        createdAt: undefined,
        createdAtMs: undefined,
        files: undefined,
      },
    );
    assert.equal(second?.name, "second");
    assert.equal(newest?.createdAtMs, publishMinute + 120_000);
    assert.equal(newest?.createdAt, new Date(publishMinute + 120_000).toISOString());
    // The files named are those of the stored bundle, in its order.
    const bundle = await stores.revisions.readBundle("acme", "main", newest?.revisionId ?? "");
    assert.deepEqual(newest?.files, membersOf(bundle ?? new Uint8Array()));
    assert.deepEqual(newest?.files, [
      "utag.js",
      "utag.1.js",
      "utag.2.js",
      "utag.sync.js",
      "mobile.html",
      "manifest.json",
    ]);
  });

  it("answers a revision's bundle as stored, whatever its targets; an unknown or malformed id is 404 1260", async () => {
    const { overview, stores, published } = await publishThree();
    const oldest = published[0]?.revision_id ?? "";
    const bundle = await overview.revisionBundle("acme", "main", oldest);
    assert.ok(bundle.ok);
    assert.deepEqual(bundle.value, await stores.revisions.readBundle("acme", "main", oldest));
    for (const unknown of ["209901010000", "not-an-id", ""]) {
      const answer = await overview.revisionBundle("acme", "main", unknown);
      assert.equal(answer.ok ? null : answer.error.returnCode, 1260);
    }
  });
});

describe("the console's file imports of a profile (issue 32, FIL-06, FIL-07)", () => {
  it("lists the imports newest accepted first, each with the v2 record and its state, up to the limit", async () => {
    const { stores, overview } = await open();
    const older = sampleFileRecord({ createdAt: 1_000 });
    const newer = sampleFileRecord({ createdAt: 2_000, status: [{ state: "DOWNLOADED", at: 2_100 }] });
    for (const record of [older, newer, sampleFileRecord({ profile: "dev", createdAt: 3_000 })])
      await stores.files.create(record);
    const listed = await overview.files("acme", "main", 10);
    assert.ok(listed.ok);
    assert.deepEqual(
      listed.value.map((file) => [file.file.name, file.state, file.createdAtMs]),
      [
        [newer.name, "DOWNLOADED", 2_000],
        [older.name, "DOWNLOADING", 1_000],
      ],
    );
    const limited = await overview.files("acme", "main", 1);
    assert.deepEqual(limited.ok && limited.value.map((file) => file.file.name), [newer.name]);
  });
});

describe("the console's privacy transactions of a profile (issue 32, DEC-PRV-03, DEC-PRV-04)", () => {
  it("lists gets and deletions newest first, naming the attribute, with what a settled deletion removed", async () => {
    const { stores, overview } = await open();
    const read = sampleTransaction({
      id: "read",
      kind: "get",
      value: null,
      state: "SUCCESS",
      runAt: null,
      settledAt: 500,
      createdAt: 500,
    });
    await stores.privacy.recordRead(read, auditFor(read, "visitor-read"));
    const deletion = sampleTransaction({ id: "deletion" });
    await stores.privacy.requestDeletion(deletion, auditFor(deletion, "deletion-requested"));
    const removed = { visitorIds: 1, events: 2, profiles: 1, eventsRewritten: 0, profilesRewritten: 0 };
    await stores.privacy.settleDeletion({
      id: "deletion",
      state: "SUCCESS",
      settledAt: 4_000,
      attempts: 0,
      audit: auditFor(deletion, "deletion-succeeded", 4_000, removed),
    });
    const pending = sampleTransaction({
      id: "pending",
      valueHash: "other",
      value: "bob@example.com",
      createdAt: 5_000,
      attributeId: 7,
    });
    await stores.privacy.requestDeletion(pending, auditFor(pending, "deletion-requested"));

    const listed = await overview.privacyTransactions("acme", "main", 10);
    assert.ok(listed.ok);
    assert.deepEqual(
      listed.value.map((each) => [
        each.transactionId,
        each.kind,
        each.state,
        each.attributeName,
        each.value,
        each.counts,
      ]),
      [
        ["pending", "delete", "PENDING", null, "bob@example.com", null],
        ["deletion", "delete", "SUCCESS", "email_address", null, removed],
        ["read", "get", "SUCCESS", "email_address", null, null],
      ],
    );
    const limited = await overview.privacyTransactions("acme", "main", 2);
    assert.deepEqual(limited.ok && limited.value.map((each) => each.transactionId), ["pending", "deletion"]);
  });
});
