import assert from "node:assert/strict";
import { beforeEach, describe, it } from "node:test";
import { createMemoryStores } from "../../adapters/store-memory/memory.stores.ts";
import { manualClock, storesRefusingNul, webDigests } from "../../testing/fakes.ts";
import { profileWith, seedProfile } from "../../testing/fixtures.ts";
import {
  bundleOf,
  publishedFiles as files,
  openRevisions,
  published,
  publishMinute,
  publishRequest as request,
} from "../../testing/revisions/revisions.ts";
import type { BundleZipper, ZipEntry } from "../ports/index.ts";
import { manifestOfDetails, type RevisionDetails, serializeManifest } from "./revision.rules.ts";
import { type PublishRequest, RevisionsService } from "./revisions.use-cases.ts";

const text = (value: string) => new TextEncoder().encode(value);
const sha256 = (bytes: Uint8Array) => webDigests.sha256Hex(bytes);

/**
 * A zipper that writes its entries, in order, as JSON that `readBundle` reads back, and keeps each list it was
 * given. Its bytes depend only on the entries and their order, as the BundleZipper port asks; that the real
 * zip reads back the same is adapters/runtime/revisions-bundle.test.ts.
 */
function recordingZipper(): BundleZipper & { readonly calls: ZipEntry[][] } {
  const calls: ZipEntry[][] = [];
  return {
    calls,
    async zip(entries) {
      calls.push([...entries]);
      return text(JSON.stringify(entries.map((entry) => [entry.name, Array.from(entry.bytes)])));
    },
  };
}

/** The members of a bundle the recording zipper wrote, in order. */
function readBundle(bundle: Uint8Array): ZipEntry[] {
  const members = JSON.parse(new TextDecoder().decode(bundle)) as Array<[string, number[]]>;
  return members.map(([name, bytes]) => ({ name, bytes: Uint8Array.from(bytes) }));
}

/** acme/main, nothing configured (what it defines does not matter to revisions), and its service at `now`. */
function openService(now = publishMinute) {
  return openRevisions(createMemoryStores(), recordingZipper(), webDigests, { now });
}

describe("publishing a revision (DEC-REV-01, DEC-REV-02)", () => {
  let opened: Awaited<ReturnType<typeof openService>>;
  beforeEach(async () => {
    opened = await openService();
  });

  it("the details: revision_id and time_created from the virtual clock, every field of REV-03", async () => {
    const details = await published(opened.service, { targets: ["prod", "qa"] });
    const { revision_id, account, profile, name, time_created, comment, created_by, targets_published } = details;
    assert.deepEqual(
      { revision_id, account, profile, name, time_created, comment, created_by, targets_published },
      {
        revision_id: "202501021953",
        account: "acme",
        profile: "main",
        name: "Full Release",
        time_created: "Thu 2025.01.02 19:53 GMT",
        comment: "up to date publish",
        created_by: "user@example.com",
        targets_published: ["prod", "qa"],
      },
    );
    assert.deepEqual(Object.keys(details.checksums), ["prod", "qa"]);
    assert.deepEqual(Object.keys(details.checksums.prod ?? {}), [
      "manifest.json",
      "bundle.zip",
      "utag.js",
      "utag.1.js",
      "utag.2.js",
      "utag.sync.js",
      "mobile.html",
    ]);
    assert.deepEqual(details.checksums.qa, details.checksums.prod);
  });

  it("the bundle holds the members in fixed order and manifest.json; every SHA-256 matches the details (REV-05..08)", async () => {
    const details = await published(opened.service);
    const bundle = await bundleOf(opened.service, details);
    const checksums = details.checksums.prod ?? {};
    assert.equal(await sha256(bundle), checksums["bundle.zip"]);
    const members = readBundle(bundle);
    assert.deepEqual(opened.zipper.calls, [members]);
    assert.deepEqual(
      members.map((member) => member.name),
      ["utag.js", "utag.1.js", "utag.2.js", "utag.sync.js", "mobile.html", "manifest.json"],
    );
    for (const member of members) assert.equal(await sha256(member.bytes), checksums[member.name]);
    const manifestText = new TextDecoder().decode(members.at(-1)?.bytes);
    assert.deepEqual(JSON.parse(manifestText), manifestOfDetails(details));
    assert.equal(manifestText, serializeManifest(manifestOfDetails(details)));
    for (const file of files())
      assert.deepEqual(members.find((member) => member.name === file.name)?.bytes, file.bytes);
  });

  it("the same files published at the same minute give the same bundle bytes, whatever their order", async () => {
    const other = await openService();
    const first = await published(opened.service);
    const second = await published(other.service, { files: [...files()].reverse() });
    assert.deepEqual(second, first);
    assert.deepEqual(await bundleOf(other.service, second), await bundleOf(opened.service, first));
  });

  it("a taken minute moves the id to the next free minute; the list is newest first (REV-01)", async () => {
    const ids = [];
    for (let i = 0; i < 3; i += 1) ids.push((await published(opened.service)).revision_id);
    assert.deepEqual(ids, ["202501021953", "202501021954", "202501021955"]);
    opened.clock.set(Date.UTC(2025, 0, 2, 19, 54, 59));
    assert.equal((await published(opened.service)).revision_id, "202501021956");
    assert.deepEqual(await opened.service.list("acme", "main"), [
      "202501021956",
      "202501021955",
      "202501021954",
      "202501021953",
    ]);
  });

  it("[DEC-REV-01] many publications at once each take the next free minute: none is refused, no minute twice", async () => {
    const results = await Promise.all(
      Array.from({ length: 80 }, (_, index) =>
        opened.service.publish("acme", "main", request({ name: `burst ${index}` })),
      ),
    );
    assert.equal(
      results.every((result) => result.ok),
      true,
    );
    const ids = results.map((result) => (result.ok ? result.value.revision_id : ""));
    assert.equal(new Set(ids).size, 80);
    assert.equal(ids.sort()[0], "202501021953");
  });

  it("refusals: unknown account 1240, unknown profile 1250, bad files and targets 400 1400 naming the problem", async () => {
    const refusal = async (account: string, profile: string, overrides: Partial<PublishRequest> = {}) => {
      const result = await opened.service.publish(account, profile, request(overrides));
      return result.ok
        ? "published"
        : `${result.error.error.status} ${result.error.error.returnCode} ${result.error.error.message}`;
    };
    assert.equal(await refusal("nope", "main"), "404 1240 Account was not found");
    assert.equal(await refusal("acme", "nope"), "404 1250 Profile was not found");
    assert.equal(
      await refusal("acme", "main", { files: [{ name: "../../etc/cron.d/x", bytes: text("x") }, ...files()] }),
      '400 1400 Invalid request submission. Invalid file name "../../etc/cron.d/x": must be a plain file name, without a folder (no / or \\).',
    );
    assert.equal(
      await refusal("acme", "main", { files: files().filter((file) => file.name !== "utag.js") }),
      "400 1400 Invalid request submission. Invalid files: must include the main loader utag.js.",
    );
    assert.equal(
      await refusal("acme", "main", { targets: ["pr/od"] }),
      '400 1400 Invalid request submission. Invalid target "pr/od": may contain only the characters A-Z a-z 0-9 _ - ~.',
    );
    assert.deepEqual(await opened.service.list("acme", "main"), []);
  });

  it("another file prefix names other members (DEC-REV-02 config)", async () => {
    const service = new RevisionsService({
      stores: opened.stores,
      clock: opened.clock,
      digests: webDigests,
      zipper: recordingZipper(),
      filePrefix: "tm",
    });
    const result = await service.publish(
      "acme",
      "main",
      request({
        files: [
          { name: "tm.js", bytes: text("x") },
          { name: "tm.3.js", bytes: text("y") },
        ],
      }),
    );
    assert.deepEqual(result.ok && Object.keys(result.value.checksums.prod ?? {}), [
      "manifest.json",
      "bundle.zip",
      "tm.js",
      "tm.3.js",
    ]);
    assert.equal((await service.publish("acme", "main", request())).ok, false);
  });
});

describe("answering for revisions (REV-09..11, DEC-REV-03)", () => {
  it("details: 1260 for unknown and malformed ids", async () => {
    const { service } = await openService();
    const details = await published(service);
    assert.deepEqual(await service.details("acme", "main", details.revision_id), { ok: true, value: details });
    for (const id of ["202501021954", "2025010219", "../../x", "202513021953"]) {
      const answer = await service.details("acme", "main", id);
      assert.equal(!answer.ok && answer.error.returnCode, 1260);
    }
  });

  it("bundle: the newest of a target is served; older is 1270; a target not published to is 1260", async () => {
    const { service } = await openService();
    const first = await published(service, { targets: ["prod", "qa"] });
    const second = await published(service, { targets: ["prod"] });
    const answer = async (id: string, target: string) => {
      const result = await service.bundle("acme", "main", id, target);
      return result.ok ? "zip" : result.error.returnCode;
    };
    assert.equal(await answer(second.revision_id, "prod"), "zip");
    assert.equal(await answer(first.revision_id, "prod"), 1270);
    assert.equal(await answer(first.revision_id, "qa"), "zip");
    assert.equal(await answer(second.revision_id, "qa"), 1260);
    assert.equal(await answer("209901010000", "prod"), 1260);
    assert.equal(await answer("bad", "prod"), 1260);
  });
});

describe("configured revisions (demo.md)", () => {
  it("are published once: publishing the same configuration again finds the first", async () => {
    const { service } = await openService();
    const configured = {
      account: "acme",
      profile: "main",
      name: "Demo",
      comment: "",
      createdBy: "demo@example.com",
      targets: ["prod"],
      files: [{ name: "utag.js", text: "/* demo */\n" }],
    };
    const first = await service.publishConfigured(configured);
    const again = await service.publishConfigured(configured);
    assert.equal(first.ok && first.value.created, true);
    assert.deepEqual(again.ok && again.value, {
      details: first.ok ? first.value.details : ({} as RevisionDetails),
      created: false,
    });
    const edited = await service.publishConfigured({
      ...configured,
      files: [{ name: "utag.js", text: "/* demo, edited */\n" }],
    });
    assert.equal(edited.ok && edited.value.created, true);
    assert.equal((await service.list("acme", "main")).length, 2);
  });

  const configuredText = (text: string) => ({
    account: "acme",
    profile: "main",
    name: "Demo",
    comment: "",
    createdBy: "demo@example.com",
    targets: ["prod", "qa"],
    files: [{ name: "utag.js", text }],
  });

  async function loaderOfLatest(service: RevisionsService, target: string): Promise<string> {
    const [latest] = await service.list("acme", "main");
    const bundle = await service.bundle("acme", "main", latest ?? "", target);
    if (!bundle.ok) throw new Error(bundle.error.message);
    const loader = readBundle(bundle.value).find((entry) => entry.name === "utag.js");
    return new TextDecoder().decode(loader?.bytes);
  }

  it("reverting the file to an earlier version publishes it again: v1, v2, v1 are three revisions, the newest holds v1", async () => {
    const { service, clock } = await openService();
    const results = [];
    for (const [minute, text] of ["/* v1 */\n", "/* v2 */\n", "/* v1 */\n"].entries()) {
      clock.set(publishMinute + minute * 60_000);
      results.push(await service.publishConfigured(configuredText(text)));
    }
    assert.deepEqual(
      results.map((result) => result.ok && result.value.created),
      [true, true, true],
    );
    assert.equal((await service.list("acme", "main")).length, 3);
    assert.equal(await loaderOfLatest(service, "prod"), "/* v1 */\n");
    assert.equal(await loaderOfLatest(service, "qa"), "/* v1 */\n");

    // And the restart after the revert finds it, as a restart always does.
    clock.set(publishMinute + 10 * 60_000);
    const again = await service.publishConfigured(configuredText("/* v1 */\n"));
    assert.equal(again.ok && again.value.created, false);
    assert.deepEqual(
      again.ok && again.value.details,
      results[2]?.ok ? results[2].value.details : ({} as RevisionDetails),
    );
    assert.equal((await service.list("acme", "main")).length, 3);
  });

  it("the same version twice is one revision; reverting twice publishes each time the other version was newer", async () => {
    const { service, clock } = await openService();
    for (const [minute, text] of [
      "/* v1 */\n",
      "/* v1 */\n",
      "/* v2 */\n",
      "/* v1 */\n",
      "/* v2 */\n",
      "/* v2 */\n",
    ].entries()) {
      clock.set(publishMinute + minute * 60_000);
      assert.equal((await service.publishConfigured(configuredText(text))).ok, true);
    }
    assert.equal((await service.list("acme", "main")).length, 4);
    assert.equal(await loaderOfLatest(service, "prod"), "/* v2 */\n");
  });

  it("a revision published through the API onto its targets is left the latest: a restart does not publish the configured one over it", async () => {
    const { service, clock } = await openService();
    const first = await service.publishConfigured(configuredText("/* v1 */\n"));
    clock.set(publishMinute + 60_000);
    const release = await published(service, { targets: ["qa"] });
    clock.set(publishMinute + 2 * 60_000);
    const again = await service.publishConfigured(configuredText("/* v1 */\n"));
    assert.equal(first.ok && again.ok && again.value.created, false);
    assert.equal((await service.list("acme", "main")).length, 2);
    assert.equal((await service.list("acme", "main"))[0], release.revision_id);
  });
});

describe("names holding U+0000, which no store keeps (second probe, finding 4)", () => {
  it("publishing to an account or profile holding one is 404 1240 / 1250; a bundle of a target holding one, 404 1260; no store is asked", async () => {
    const stores = storesRefusingNul(createMemoryStores());
    await seedProfile(stores, profileWith());
    const service = new RevisionsService({
      stores,
      clock: manualClock(publishMinute),
      digests: webDigests,
      zipper: recordingZipper(),
      filePrefix: "utag",
    });
    const details = await published(service);
    const noAccount = await service.publish("acme\u0000", "main", request());
    const noProfile = await service.publish("acme", "main\u0000", request());
    assert.deepEqual(
      [noAccount, noProfile].map((result) => (result.ok ? 201 : result.error.error.returnCode)),
      [1240, 1250],
    );
    const bundle = await service.bundle("acme", "main", details.revision_id, "prod\u0000x");
    assert.equal(bundle.ok ? 200 : bundle.error.returnCode, 1260);
    assert.deepEqual(stores.asked, []);
    assert.equal((await service.bundle("acme", "main", details.revision_id, "prod")).ok, true);
  });
});
