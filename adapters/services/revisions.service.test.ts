import { beforeEach, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import type { Stores } from "../../core/ports/index.ts";
import { manifestOfDetails, type RevisionDetails, serializeManifest } from "../../core/revisions/revision.rules.ts";
import { readZip } from "../../harness/zip-reader.ts";
import { fullProfileConfig } from "../store-contract/fixtures.ts";
import { createMemoryStores } from "../store-memory/memory.stores.ts";
import { type PublishedFile, type PublishRequest, RevisionsService } from "./revisions.service.ts";

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const text = (value: string) => new TextEncoder().encode(value);
const publishMinute = Date.UTC(2025, 0, 2, 19, 53, 27);

function files(): PublishedFile[] {
  return [
    { name: "mobile.html", bytes: text("<!DOCTYPE html><title>m</title>\n") },
    { name: "utag.2.js", bytes: text("/* tag 2 */\n") },
    { name: "utag.js", bytes: text("/* loader */\n".repeat(20)) },
    { name: "utag.sync.js", bytes: text("/* sync */\n") },
    { name: "utag.1.js", bytes: text("/* tag 1 */\n") },
  ];
}

function request(overrides: Partial<PublishRequest> = {}): PublishRequest {
  return {
    name: "Full Release",
    comment: "up to date publish",
    createdBy: "user@example.com",
    targets: ["prod"],
    files: files(),
    ...overrides,
  };
}

async function openService(
  now = publishMinute,
): Promise<{ stores: Stores; service: RevisionsService; clock: { now(): number; set(ms: number): void } }> {
  const stores = createMemoryStores();
  await stores.tenancy.ensureAccount("acme", 0);
  await stores.tenancy.putProfile("acme", fullProfileConfig("main"), 0);
  let current = now;
  const clock = { now: () => current, set: (ms: number) => (current = ms) };
  return { stores, clock, service: new RevisionsService({ stores, clock, filePrefix: "utag" }) };
}

async function published(service: RevisionsService, overrides: Partial<PublishRequest> = {}): Promise<RevisionDetails> {
  const result = await service.publish("acme", "main", request(overrides));
  if (!result.ok) throw new Error(result.error.error.message);
  return result.value;
}

async function bundleOf(service: RevisionsService, details: RevisionDetails, target = "prod"): Promise<Uint8Array> {
  const bundle = await service.bundle("acme", "main", details.revision_id, target);
  if (!bundle.ok) throw new Error(bundle.error.message);
  return bundle.value;
}

describe("publishing a revision (DEC-REV-01, DEC-REV-02)", () => {
  let opened: Awaited<ReturnType<typeof openService>>;
  beforeEach(async () => {
    opened = await openService();
  });

  test("the details: revision_id and time_created from the virtual clock, every field of REV-03", async () => {
    const details = await published(opened.service, { targets: ["prod", "qa"] });
    expect(details).toMatchObject({
      revision_id: "202501021953",
      account: "acme",
      profile: "main",
      name: "Full Release",
      time_created: "Thu 2025.01.02 19:53 GMT",
      comment: "up to date publish",
      created_by: "user@example.com",
      targets_published: ["prod", "qa"],
    });
    expect(Object.keys(details.checksums)).toEqual(["prod", "qa"]);
    expect(Object.keys(details.checksums.prod!)).toEqual([
      "manifest.json",
      "bundle.zip",
      "utag.js",
      "utag.1.js",
      "utag.2.js",
      "utag.sync.js",
      "mobile.html",
    ]);
    expect(details.checksums.qa).toEqual(details.checksums.prod!);
  });

  test("the bundle holds the members in fixed order and manifest.json; every SHA-256 matches the details (REV-05..08)", async () => {
    const details = await published(opened.service);
    const bundle = await bundleOf(opened.service, details);
    const checksums = details.checksums.prod!;
    expect(sha256(bundle)).toBe(checksums["bundle.zip"]!);
    const members = readZip(bundle);
    expect(members.map((member) => member.name)).toEqual([
      "utag.js",
      "utag.1.js",
      "utag.2.js",
      "utag.sync.js",
      "mobile.html",
      "manifest.json",
    ]);
    for (const member of members) expect(sha256(member.bytes)).toBe(checksums[member.name]!);
    const manifestText = new TextDecoder().decode(members.at(-1)!.bytes);
    expect(JSON.parse(manifestText)).toEqual(manifestOfDetails(details));
    expect(manifestText).toBe(serializeManifest(manifestOfDetails(details)));
    for (const file of files()) expect(members.find((member) => member.name === file.name)!.bytes).toEqual(file.bytes);
  });

  test("the same files published at the same minute give the same bundle bytes, whatever their order", async () => {
    const other = await openService();
    const first = await published(opened.service);
    const second = await published(other.service, { files: [...files()].reverse() });
    expect(second).toEqual(first);
    expect(
      Buffer.from(await bundleOf(other.service, second)).equals(Buffer.from(await bundleOf(opened.service, first))),
    ).toBe(true);
  });

  test("a taken minute moves the id to the next free minute; the list is newest first (REV-01)", async () => {
    const ids = [];
    for (let i = 0; i < 3; i += 1) ids.push((await published(opened.service)).revision_id);
    expect(ids).toEqual(["202501021953", "202501021954", "202501021955"]);
    opened.clock.set(Date.UTC(2025, 0, 2, 19, 54, 59));
    expect((await published(opened.service)).revision_id).toBe("202501021956");
    expect(await opened.service.list("acme", "main")).toEqual([
      "202501021956",
      "202501021955",
      "202501021954",
      "202501021953",
    ]);
  });

  test("[DEC-REV-01] many publications at once each take the next free minute: none is refused, no minute twice", async () => {
    const results = await Promise.all(
      Array.from({ length: 80 }, (_, index) =>
        opened.service.publish("acme", "main", request({ name: `burst ${index}` })),
      ),
    );
    expect(results.every((result) => result.ok)).toBe(true);
    const ids = results.map((result) => (result.ok ? result.value.revision_id : ""));
    expect(new Set(ids).size).toBe(80);
    expect(ids.sort()[0]).toBe("202501021953");
  });

  test("refusals: unknown account 1240, unknown profile 1250, bad files and targets 400 1400 naming the problem", async () => {
    const refusal = async (account: string, profile: string, overrides: Partial<PublishRequest> = {}) => {
      const result = await opened.service.publish(account, profile, request(overrides));
      return result.ok
        ? "published"
        : `${result.error.error.status} ${result.error.error.returnCode} ${result.error.error.message}`;
    };
    expect(await refusal("nope", "main")).toBe("404 1240 Account was not found");
    expect(await refusal("acme", "nope")).toBe("404 1250 Profile was not found");
    expect(
      await refusal("acme", "main", { files: [{ name: "../../etc/cron.d/x", bytes: text("x") }, ...files()] }),
    ).toBe(
      '400 1400 Invalid request submission. Invalid file name "../../etc/cron.d/x": must be a plain file name, without a folder (no / or \\).',
    );
    expect(await refusal("acme", "main", { files: files().filter((file) => file.name !== "utag.js") })).toBe(
      "400 1400 Invalid request submission. Invalid files: must include the main loader utag.js.",
    );
    expect(await refusal("acme", "main", { targets: ["pr/od"] })).toBe(
      '400 1400 Invalid request submission. Invalid target "pr/od": may contain only the characters A-Z a-z 0-9 _ - ~.',
    );
    expect(await opened.service.list("acme", "main")).toEqual([]);
  });

  test("another file prefix names other members (DEC-REV-02 config)", async () => {
    const service = new RevisionsService({ stores: opened.stores, clock: opened.clock, filePrefix: "tm" });
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
    expect(result.ok && Object.keys(result.value.checksums.prod!)).toEqual([
      "manifest.json",
      "bundle.zip",
      "tm.js",
      "tm.3.js",
    ]);
    expect((await service.publish("acme", "main", request())).ok).toBe(false);
  });
});

describe("answering for revisions (REV-09..11, DEC-REV-03)", () => {
  test("details: 1260 for unknown and malformed ids", async () => {
    const { service } = await openService();
    const details = await published(service);
    expect(await service.details("acme", "main", details.revision_id)).toEqual({ ok: true, value: details });
    for (const id of ["202501021954", "2025010219", "../../x", "202513021953"]) {
      const answer = await service.details("acme", "main", id);
      expect(!answer.ok && answer.error.returnCode).toBe(1260);
    }
  });

  test("bundle: the newest of a target is served; older is 1270; a target not published to is 1260", async () => {
    const { service } = await openService();
    const first = await published(service, { targets: ["prod", "qa"] });
    const second = await published(service, { targets: ["prod"] });
    const answer = async (id: string, target: string) => {
      const result = await service.bundle("acme", "main", id, target);
      return result.ok ? "zip" : result.error.returnCode;
    };
    expect(await answer(second.revision_id, "prod")).toBe("zip");
    expect(await answer(first.revision_id, "prod")).toBe(1270);
    expect(await answer(first.revision_id, "qa")).toBe("zip");
    expect(await answer(second.revision_id, "qa")).toBe(1260);
    expect(await answer("209901010000", "prod")).toBe(1260);
    expect(await answer("bad", "prod")).toBe(1260);
  });
});

describe("configured revisions (demo.md)", () => {
  test("are published once: publishing the same configuration again finds the first", async () => {
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
    expect(first.ok && first.value.created).toBe(true);
    expect(again.ok && again.value).toEqual({
      details: first.ok ? first.value.details : ({} as RevisionDetails),
      created: false,
    });
    const edited = await service.publishConfigured({
      ...configured,
      files: [{ name: "utag.js", text: "/* demo, edited */\n" }],
    });
    expect(edited.ok && edited.value.created).toBe(true);
    expect(await service.list("acme", "main")).toHaveLength(2);
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
    const loader = (await readZip(bundle.value)).find((entry) => entry.name === "utag.js");
    return new TextDecoder().decode(loader?.bytes);
  }

  test("reverting the file to an earlier version publishes it again: v1, v2, v1 are three revisions, the newest holds v1", async () => {
    const { service, clock } = await openService();
    const results = [];
    for (const [minute, text] of ["/* v1 */\n", "/* v2 */\n", "/* v1 */\n"].entries()) {
      clock.set(publishMinute + minute * 60_000);
      results.push(await service.publishConfigured(configuredText(text)));
    }
    expect(results.map((result) => result.ok && result.value.created)).toEqual([true, true, true]);
    expect(await service.list("acme", "main")).toHaveLength(3);
    expect(await loaderOfLatest(service, "prod")).toBe("/* v1 */\n");
    expect(await loaderOfLatest(service, "qa")).toBe("/* v1 */\n");

    // And the restart after the revert finds it, as a restart always does.
    clock.set(publishMinute + 10 * 60_000);
    const again = await service.publishConfigured(configuredText("/* v1 */\n"));
    expect(again.ok && again.value.created).toBe(false);
    expect(again.ok && again.value.details).toEqual(
      results[2]?.ok ? results[2].value.details : ({} as RevisionDetails),
    );
    expect(await service.list("acme", "main")).toHaveLength(3);
  });

  test("the same version twice is one revision; reverting twice publishes each time the other version was newer", async () => {
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
      expect((await service.publishConfigured(configuredText(text))).ok).toBe(true);
    }
    expect(await service.list("acme", "main")).toHaveLength(4);
    expect(await loaderOfLatest(service, "prod")).toBe("/* v2 */\n");
  });

  test("a revision published through the API onto its targets is left the latest: a restart does not publish the configured one over it", async () => {
    const { service, clock } = await openService();
    const first = await service.publishConfigured(configuredText("/* v1 */\n"));
    clock.set(publishMinute + 60_000);
    const release = await published(service, { targets: ["qa"] });
    clock.set(publishMinute + 2 * 60_000);
    const again = await service.publishConfigured(configuredText("/* v1 */\n"));
    expect(first.ok && again.ok && again.value.created).toBe(false);
    expect(await service.list("acme", "main")).toHaveLength(2);
    expect((await service.list("acme", "main"))[0]).toBe(release.revision_id);
  });
});
