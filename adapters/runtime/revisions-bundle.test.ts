/**
 * The revisions use case with the runtime's own zipper (archiver) and digests (node:crypto): the bundle it
 * stores is a real zip, read back here. The use case's other behaviour, with a zipper that records its
 * entries, is core/revisions/revisions.use-cases.test.ts.
 */

import { beforeEach, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import type { Stores } from "../../core/ports/index.ts";
import { manifestOfDetails, type RevisionDetails, serializeManifest } from "../../core/revisions/revision.rules.ts";
import { type PublishedFile, type PublishRequest, RevisionsService } from "../../core/revisions/revisions.use-cases.ts";
import { readZip } from "../../harness/zip-reader.ts";
import { fullProfileConfig } from "../store-contract/fixtures.ts";
import { createMemoryStores } from "../store-memory/memory.stores.ts";
import { nodeDigests } from "./crypto.ts";
import { deterministicZipper } from "./deterministic-zip.ts";

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

async function openService(now = publishMinute): Promise<{ stores: Stores; service: RevisionsService }> {
  const stores = createMemoryStores();
  await stores.tenancy.ensureAccount("acme", 0);
  await stores.tenancy.putProfile("acme", fullProfileConfig("main"), 0);
  const clock = { now: () => now };
  return {
    stores,
    service: new RevisionsService({
      stores,
      clock,
      digests: nodeDigests,
      zipper: deterministicZipper,
      filePrefix: "utag",
    }),
  };
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

describe("a revision's bundle, zipped by archiver (DEC-REV-01, DEC-REV-02)", () => {
  let opened: Awaited<ReturnType<typeof openService>>;
  beforeEach(async () => {
    opened = await openService();
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
});
