/**
 * The revisions use case with the runtime's own zipper (fflate's container, node:zlib's deflate) and digests (node:crypto): the bundle it
 * stores is a real zip, read back here. The use case's other behaviour, with a zipper that records its
 * entries, is core/revisions/revisions.use-cases.test.ts.
 */

import { beforeEach, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { manifestOfDetails, serializeManifest } from "../../core/revisions/index.ts";
import { readZip } from "../../harness/zip-reader.ts";
import { fullProfileConfig } from "../../testing/fixtures.ts";
import { bundleOf, publishedFiles as files, openRevisions, published } from "../../testing/revisions/revisions.ts";
import { createMemoryStores } from "../store-memory/memory.stores.ts";
import { nodeDigests } from "./crypto.ts";
import { deterministicZipper } from "./deterministic-zip.ts";

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** acme/main of the store contract's full profile, and its revisions service with the runtime's zip. */
function openService() {
  return openRevisions(createMemoryStores(), deterministicZipper, nodeDigests, { config: fullProfileConfig("main") });
}

describe("a revision's bundle, zipped by the runtime (DEC-REV-01, DEC-REV-02)", () => {
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
