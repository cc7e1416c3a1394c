import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  buildManifest,
  completeDetails,
  decideBundleRequest,
  decideDetailsRequest,
  manifestOfDetails,
  type PublicationInput,
  publicationError,
  type RevisionDetails,
  serializeManifest,
  validatePublication,
} from "./revision.rules.ts";
import { newestFirst, revisionIdOf } from "./revision-id.rules.ts";

function input(overrides: Partial<PublicationInput> = {}): PublicationInput {
  return {
    account: "acme",
    profile: "main",
    name: "Full Release",
    comment: "up to date publish",
    createdBy: "user@example.com",
    targets: ["prod"],
    files: [{ name: "utag.js", size: 10 }],
    ...overrides,
  };
}

function problemsOf(publication: PublicationInput, prefix = "utag"): string[] {
  const result = validatePublication(publication, prefix);
  return result.ok ? [] : result.error.map((problem) => `${problem.subject}: ${problem.problem}`);
}

describe("publishing (DEC-REV-01, DEC-REV-02)", () => {
  it("accepts a publication and puts its files in bundle order, remembering where each came from", () => {
    const result = validatePublication(
      input({
        files: ["mobile.html", "utag.2.js", "utag.sync.js", "utag.js", "utag.1.js"].map((name) => ({ name, size: 1 })),
        targets: ["prod", "qa"],
      }),
      "utag",
    );
    assert.ok(result.ok);
    assert.deepEqual(
      result.value.files.map((file) => [file.name, file.index]),
      [
        ["utag.js", 3],
        ["utag.1.js", 4],
        ["utag.2.js", 1],
        ["utag.sync.js", 2],
        ["mobile.html", 0],
      ],
    );
    assert.deepEqual(result.value.targets, ["prod", "qa"]);
  });

  it("requires the main loader, a name, an e-mail author and at least one target", () => {
    assert.deepEqual(problemsOf(input({ files: [{ name: "utag.1.js", size: 1 }] })), [
      "files: must include the main loader utag.js",
    ]);
    assert.deepEqual(problemsOf(input({ files: [] })), ["files: must include the main loader utag.js"]);
    assert.deepEqual(problemsOf(input({ files: [{ name: "tm.js", size: 1 }] }), "tm"), []);
    assert.deepEqual(problemsOf(input({ name: "  " })), ["name: must not be empty"]);
    assert.deepEqual(problemsOf(input({ createdBy: "someone" })), ["created_by: must be an e-mail address"]);
    assert.deepEqual(problemsOf(input({ targets: [] })), ["targets: must name at least one target"]);
  });

  it("refuses unsafe or unknown file names, and names each problem", () => {
    assert.deepEqual(
      problemsOf(
        input({
          files: [
            { name: "utag.js", size: 1 },
            { name: "../utag.1.js", size: 1 },
            { name: "evil.sh", size: 1 },
            { name: "utag.js", size: 1 },
          ],
        }),
      ),
      [
        'file name "../utag.1.js": must be a plain file name, without a folder (no / or \\)',
        'file name "evil.sh": must be one of utag.js, utag.<n>.js, utag.sync.js or mobile.html',
        'file name "utag.js": is given twice',
      ],
    );
  });

  it("checks targets by the name rule of DEC-DLE-02, refuses duplicates and the reserved name details", () => {
    assert.deepEqual(problemsOf(input({ targets: ["prod", "pr od", "prod", "details", "", "qa/x"] })), [
      'target "pr od": may contain only the characters A-Z a-z 0-9 _ - ~',
      'target "prod": is given twice',
      'target "details": is reserved: .../revisions/{revision_id}/details is the details call',
      'target "": may contain only the characters A-Z a-z 0-9 _ - ~',
      'target "qa/x": may contain only the characters A-Z a-z 0-9 _ - ~',
    ]);
    assert.deepEqual(problemsOf(input({ targets: ["t".repeat(242)] })), []);
    assert.match(problemsOf(input({ targets: ["t".repeat(243)] }))[0] ?? "", /at most 250 characters/);
  });

  it("limits sizes and lengths", () => {
    assert.match(
      problemsOf(input({ files: [{ name: "utag.js", size: 10 * 1024 * 1024 + 1 }] }))[0] ?? "",
      /larger than/,
    );
    assert.match(problemsOf(input({ name: "n".repeat(257) }))[0] ?? "", /at most 256/);
    assert.match(problemsOf(input({ comment: "c".repeat(4097) }))[0] ?? "", /at most 4096/);
    // Characters, as the message says: 256 emoji (512 UTF-16 units) are 256 characters.
    assert.deepEqual(problemsOf(input({ name: "\u{1F600}".repeat(256), comment: "\u{1F600}".repeat(4096) })), []);
    assert.match(problemsOf(input({ name: "\u{1F600}".repeat(257) }))[0] ?? "", /at most 256/);
    const targets = Array.from({ length: 101 }, (_, index) => `t${index}`);
    assert.deepEqual(problemsOf(input({ targets: targets.slice(0, 100) })), []);
    assert.deepEqual(problemsOf(input({ targets })), ["targets: must name at most 100 targets"]);
  });

  it("the first problem becomes a 400 1400 naming it", () => {
    const result = validatePublication(input({ files: [{ name: "../x.js", size: 1 }] }), "utag");
    assert.ok(!result.ok);
    const error = publicationError(result.error);
    assert.equal(error.status, 400);
    assert.equal(error.returnCode, 1400);
    assert.equal(
      error.message,
      'Invalid request submission. Invalid file name "../x.js": must be a plain file name, without a folder (no / or \\).',
    );
  });

  it("never throws, and accepts only publications whose every file is in the scheme", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            name: fc.oneof(fc.string(), fc.constantFrom("utag.js", "utag.3.js", "mobile.html")),
            size: fc.nat(),
          }),
        ),
        fc.array(fc.string()),
        (files, targets) => {
          const result = validatePublication(input({ files, targets }), "utag");
          if (!result.ok) return result.error.length > 0;
          return (
            result.value.files.length === files.length && result.value.files.some((file) => file.kind === "loader")
          );
        },
      ),
    );
  });
});

const manifest = buildManifest({
  revisionId: "201712131954",
  account: "tealium",
  profile: "main",
  name: "Full Release",
  timeCreated: "Wed 2017.12.13 19:54 GMT",
  comment: "up to date publish",
  createdBy: "user@example.com",
  targets: ["prod", "qa"],
  memberChecksums: [
    ["utag.js", "a".repeat(64)],
    ["utag.1.js", "b".repeat(64)],
  ],
});

describe("details and manifest (REV-03, REV-05, REV-07)", () => {
  it("the manifest is the details object with the member checksums of every target", () => {
    assert.deepEqual(manifest, {
      revision_id: "201712131954",
      account: "tealium",
      profile: "main",
      name: "Full Release",
      time_created: "Wed 2017.12.13 19:54 GMT",
      checksums: {
        prod: { "utag.js": "a".repeat(64), "utag.1.js": "b".repeat(64) },
        qa: { "utag.js": "a".repeat(64), "utag.1.js": "b".repeat(64) },
      },
      comment: "up to date publish",
      created_by: "user@example.com",
      targets_published: ["prod", "qa"],
    });
    assert.deepEqual(Object.keys(manifest), [
      "revision_id",
      "account",
      "profile",
      "name",
      "time_created",
      "checksums",
      "comment",
      "created_by",
      "targets_published",
    ]);
  });

  it("the details add manifest.json and bundle.zip to every target, first", () => {
    const details = completeDetails(manifest, { manifest: "c".repeat(64), bundle: "d".repeat(64) });
    for (const target of ["prod", "qa"]) {
      assert.deepEqual(Object.entries(details.checksums[target] ?? {}), [
        ["manifest.json", "c".repeat(64)],
        ["bundle.zip", "d".repeat(64)],
        ["utag.js", "a".repeat(64)],
        ["utag.1.js", "b".repeat(64)],
      ]);
    }
    assert.deepEqual(manifestOfDetails(details), manifest);
  });

  it("the manifest text is fixed for fixed details: JSON, two spaces, a final newline", () => {
    const text = serializeManifest(manifest);
    assert.equal(text, `${JSON.stringify(manifest, null, 2)}\n`);
    assert.deepEqual(JSON.parse(text), manifest);
  });
});

const published: Pick<RevisionDetails, "targets_published"> = { targets_published: ["prod", "qa"] };

describe("which details and bundles are answered (REV-09, REV-10, REV-11, DEC-REV-03)", () => {
  it("details of an unknown or malformed id are 404 1260", () => {
    assert.equal(decideDetailsRequest("201712131954", null).ok, false);
    const malformed = decideDetailsRequest("2017", { ...manifest });
    assert.ok(!malformed.ok);
    assert.equal(malformed.error.returnCode, 1260);
    assert.equal(malformed.error.status, 404);
    assert.ok(decideDetailsRequest("201712131954", manifest).ok);
  });

  it("a bundle: the latest of its target is served; an older one is 400 1270; unknown, malformed or off-target is 404 1260", () => {
    const decide = (
      revisionId: string,
      target: string,
      revision: typeof published | null,
      latestForTarget: string | null,
    ) => {
      const result = decideBundleRequest({ revisionId, target, revision, latestForTarget });
      return result.ok ? "ok" : `${result.error.status} ${result.error.returnCode}`;
    };
    assert.equal(decide("201712131954", "prod", published, "201712131954"), "ok");
    assert.equal(decide("201712131954", "prod", published, "201712131955"), "400 1270");
    assert.equal(decide("201712131954", "dev", published, null), "404 1260");
    assert.equal(decide("201712131954", "prod", null, null), "404 1260");
    assert.equal(decide("20171213195x", "prod", published, "20171213195x"), "404 1260");
  });

  it("exactly the newest revision of a target is served; every older one is 400 1270", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 5_000_000 }), { minLength: 1, maxLength: 20 }),
        (minutes) => {
          const ids = minutes.map((m) => revisionIdOf(m * 60_000));
          const latest = newestFirst(ids)[0] as string;
          return ids.every((id) => {
            const result = decideBundleRequest({
              revisionId: id,
              target: "prod",
              revision: published,
              latestForTarget: latest,
            });
            return id === latest ? result.ok : !result.ok && result.error.returnCode === 1270;
          });
        },
      ),
    );
  });
});
