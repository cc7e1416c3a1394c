import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { sampleFileRecord, sampleTransaction } from "../../testing/fixtures.ts";
import type { DataLayerKey, ListedDataLayer } from "../ports/index.ts";
import type { RevisionDetails } from "../revisions/revision.rules.ts";
import {
  bundleMembersOf,
  dataLayerOverview,
  fileOverview,
  previewOf,
  privacyTransactionOverview,
  revisionOverview,
  servedPreviewBytes,
} from "./overview.rules.ts";

const utf8Length = (text: string) => new TextEncoder().encode(text).byteLength;
const key: DataLayerKey = { account: "acme", profile: "main", dlId: "prod_1" };
const at = (ms: number) => new Date(ms).toISOString();

function listedLayer(overrides: Partial<ListedDataLayer> = {}): ListedDataLayer {
  return {
    layer: { key, exists: true, lastSeq: 2, lastDueAt: 2_500, settledSeq: 1 },
    newest: {
      key,
      seq: 2,
      kind: "update",
      state: "pending",
      acceptedAt: 2_000,
      dueAt: 2_500,
      runAt: 9_000,
      attempts: 1,
      settledAt: null,
    },
    served: { seq: 1, publishedAt: 1_500, bytes: 7, head: '{"n":1}' },
    ...overrides,
  };
}

describe("the preview of a served data layer (issue 32)", () => {
  it("is the whole text when it fits, else its start cut between characters", () => {
    assert.equal(previewOf('{"a":1}', 16), '{"a":1}');
    assert.equal(previewOf("abcdef", 4), "abcd");
    // é is 2 bytes, 😀 4: a cut inside either leaves it out whole.
    assert.equal(previewOf("aé", 2), "a");
    assert.equal(previewOf("a😀b", 4), "a");
    assert.equal(previewOf("a😀b", 5), "a😀");
    assert.equal(previewOf("", 0), "");
  });

  it("is the longest start of whole characters whose UTF-8 fits in the bytes (property)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 60 }), fc.nat(80), (text, maxBytes) => {
        const preview = previewOf(text, maxBytes);
        assert.ok(text.startsWith(preview));
        assert.ok(utf8Length(preview) <= maxBytes);
        if (preview !== text) {
          const next = String.fromCodePoint(text.codePointAt(preview.length) ?? 0);
          assert.ok(utf8Length(preview + next) > maxBytes);
        }
      }),
    );
  });
});

describe("a data layer as the console lists it (DLE-07, DEC-DLE-05..07)", () => {
  it("shows the newest change with its times, the next try of a pending one, and what is served", () => {
    assert.deepEqual(dataLayerOverview(listedLayer()), {
      dlId: "prod_1",
      exists: true,
      newest: {
        seq: 2,
        kind: "update",
        state: "pending",
        acceptedAt: at(2_000),
        acceptedAtMs: 2_000,
        dueAt: at(2_500),
        dueAtMs: 2_500,
        settledAt: null,
        settledAtMs: null,
        attempts: 1,
        nextTryAt: at(9_000),
        nextTryAtMs: 9_000,
      },
      served: {
        seq: 1,
        publishedAt: at(1_500),
        publishedAtMs: 1_500,
        bytes: 7,
        preview: '{"n":1}',
        truncated: false,
      },
    });
  });

  it("a settled change has no next try; a deleted layer serves nothing", () => {
    const shown = dataLayerOverview(
      listedLayer({
        layer: { key, exists: false, lastSeq: 2, lastDueAt: 2_500, settledSeq: 2 },
        newest: { ...listedLayer().newest, kind: "delete", state: "completed", settledAt: 2_600 },
        served: null,
      }),
    );
    assert.equal(shown.exists, false);
    assert.deepEqual(
      [shown.newest.state, shown.newest.settledAt, shown.newest.nextTryAt, shown.newest.nextTryAtMs],
      ["completed", at(2_600), null, null],
    );
    assert.equal(shown.served, null);
  });

  it(`a body over ${servedPreviewBytes} bytes is previewed by its first ${servedPreviewBytes} and marked truncated`, () => {
    const head = "é".repeat(servedPreviewBytes);
    const shown = dataLayerOverview(
      listedLayer({ served: { seq: 1, publishedAt: 1_500, bytes: 3 * servedPreviewBytes, head } }),
    );
    assert.equal(shown.served?.preview, "é".repeat(servedPreviewBytes / 2));
    assert.equal(shown.served?.truncated, true);
    assert.equal(shown.served?.bytes, 3 * servedPreviewBytes);
  });
});

const details: RevisionDetails = {
  revision_id: "202501021953",
  account: "acme",
  profile: "main",
  name: "Full Release",
  time_created: "Thu 2025.01.02 19:53 GMT",
  checksums: {
    prod: { "manifest.json": "m", "bundle.zip": "b", "utag.js": "1", "utag.1.js": "2", "mobile.html": "3" },
    qa: { "manifest.json": "m", "bundle.zip": "b", "utag.js": "1", "utag.1.js": "2", "mobile.html": "3" },
  },
  comment: "",
  created_by: "user@example.com",
  targets_published: ["prod", "qa"],
};

describe("a revision as the console lists it (REV-03, DEC-REV-02)", () => {
  it("keeps every field of the details and names the bundle's files, manifest.json last", () => {
    assert.deepEqual(bundleMembersOf(details), ["utag.js", "utag.1.js", "mobile.html", "manifest.json"]);
    const createdAt = Date.UTC(2025, 0, 2, 19, 53, 27);
    assert.deepEqual(
      revisionOverview({
        account: "acme",
        profile: "main",
        revisionId: "202501021953",
        createdAt,
        seed: null,
        details,
      }),
      {
        revisionId: "202501021953",
        ...details,
        createdAt: at(createdAt),
        createdAtMs: createdAt,
        files: ["utag.js", "utag.1.js", "mobile.html", "manifest.json"],
      },
    );
  });
});

describe("a file import as the console lists it (FIL-06, FIL-07, DEC-FIL-03)", () => {
  it("a processed import: the v2 record, its state and final counters, the last row failure", () => {
    const record = sampleFileRecord({
      createdAt: 1_000,
      status: [
        { state: "DOWNLOADING", at: 1_000 },
        { state: "DOWNLOADED", at: 1_001 },
        { state: "PROCESSING", at: 1_002 },
        {
          state: "PROCESSED",
          at: 1_003,
          counts: { skipped: 1, failed: 2, succeeded: 3 },
          lastFailure: "Exception thrown while processing file",
        },
      ],
      finished: true,
      progress: { rowsRead: 6, counts: { skipped: 1, failed: 2, succeeded: 3 }, lastRowFailure: "older" },
    });
    const shown = fileOverview(record);
    assert.equal(shown._id.$oid, record.id);
    assert.equal(shown.file.name, record.name);
    assert.equal(shown.name, record.name);
    assert.equal(shown.status.length, 4);
    assert.deepEqual(
      {
        state: shown.state,
        stateAt: shown.stateAt,
        finished: shown.finished,
        failed: shown.failed,
        createdAtMs: shown.createdAtMs,
        rowsRead: shown.rowsRead,
        counts: shown.counts,
        failureMessage: shown.failureMessage,
      },
      {
        state: "PROCESSED",
        stateAt: at(1_003),
        finished: true,
        failed: false,
        createdAtMs: 1_000,
        rowsRead: 6,
        counts: { skipped: 1, failed: 2, succeeded: 3 },
        failureMessage: "Exception thrown while processing file",
      },
    );
  });

  it("an import processing: its counters so far; one that failed: failed, with the file's failure", () => {
    const running = fileOverview(
      sampleFileRecord({
        status: [{ state: "PROCESSING", at: 2_000 }],
        progress: { rowsRead: 10, counts: { skipped: 0, failed: 1, succeeded: 9 }, lastRowFailure: "row 4 failed" },
      }),
    );
    assert.deepEqual(
      [running.state, running.finished, running.failed, running.rowsRead, running.counts, running.failureMessage],
      ["PROCESSING", false, false, 10, { skipped: 0, failed: 1, succeeded: 9 }, "row 4 failed"],
    );
    const failed = fileOverview(
      sampleFileRecord({
        status: [{ state: "DOWNLOADING", at: 2_000, lastFailure: "Failed to download file" }],
        finished: true,
      }),
    );
    assert.deepEqual(
      [failed.state, failed.finished, failed.failed, failed.rowsRead, failed.counts, failed.failureMessage],
      ["DOWNLOADING", true, true, null, null, "Failed to download file"],
    );
  });
});

describe("a privacy transaction as the console lists it (DEC-PRV-03, DEC-PRV-04)", () => {
  const names = new Map([[5120, "email_address"]]);

  it("a pending deletion: the value as stored, the attribute's name and the next try", () => {
    assert.deepEqual(privacyTransactionOverview({ transaction: sampleTransaction(), settlement: null }, names), {
      transactionId: "t1",
      kind: "delete",
      state: "PENDING",
      attributeId: 5120,
      attributeName: "email_address",
      value: "ann@example.com",
      valueHash: "hash-of-ann",
      requestedBy: "demo@example.com",
      createdAt: at(1_000),
      createdAtMs: 1_000,
      settledAt: null,
      settledAtMs: null,
      nextTryAt: at(3_000),
      nextTryAtMs: 3_000,
      attempts: 0,
      counts: null,
    });
  });

  it("a deletion that succeeded shows what it removed; a failed one and a get show no counts", () => {
    const removed = { visitorIds: 1, events: 4, profiles: 1, eventsRewritten: 0, profilesRewritten: 0 };
    const settled = sampleTransaction({ state: "SUCCESS", value: null, runAt: null, settledAt: 5_000 });
    const succeeded = privacyTransactionOverview({ transaction: settled, settlement: removed }, names);
    assert.deepEqual([succeeded.counts, succeeded.settledAt, succeeded.nextTryAt], [removed, at(5_000), null]);
    const failed = privacyTransactionOverview(
      { transaction: { ...settled, state: "FAILED", attempts: 5 }, settlement: { attempts: 5 } },
      names,
    );
    assert.deepEqual([failed.counts, failed.attempts], [null, 5]);
    const read = privacyTransactionOverview(
      { transaction: { ...settled, kind: "get", attributeId: 9999 }, settlement: null },
      names,
    );
    assert.deepEqual([read.counts, read.attributeName, read.value], [null, null, null]);
  });
});
