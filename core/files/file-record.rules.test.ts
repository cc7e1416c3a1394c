import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { FileStatusRecord } from "../ports/files.store.ts";
import { fileStatusView, objectIdOf } from "./file-record.rules.ts";

describe("the file status record (FIL-06, FIL-07, DEC-FIL-05)", () => {
  it("answers _id.$oid, created_at.$date with milliseconds in UTC, the file and the status history", () => {
    const record: FileStatusRecord = {
      id: "65b9d1a8aabbccddeeff0011",
      account: "acme",
      profile: "main",
      name: "purchases_1.csv",
      prefix: "purchases",
      createdAt: Date.UTC(2024, 0, 31, 9, 30),
      nodeId: "node-1",
      file: { size: 120, checksum: "0".repeat(32), sourceType: "upload", sourceHost: "host-a", lineCount: 3 },
      status: [
        { state: "DOWNLOADING", at: Date.UTC(2024, 0, 31, 9, 30) },
        { state: "DOWNLOADED", at: Date.UTC(2024, 0, 31, 9, 30, 1) },
        { state: "PROCESSING", at: Date.UTC(2024, 0, 31, 9, 30, 2) },
        { state: "PROCESSED", at: Date.UTC(2024, 0, 31, 9, 30, 3, 7), counts: { skipped: 1, failed: 0, succeeded: 1 } },
      ],
      finished: true,
      progress: null,
    };
    assert.deepEqual(fileStatusView(record), {
      _id: { $oid: "65b9d1a8aabbccddeeff0011" },
      account: "acme",
      profile: "main",
      created_at: { $date: "2024-01-31T09:30:00.000Z" },
      node_id: "node-1",
      file: {
        name: "purchases_1.csv",
        size: 120,
        checksum: "0".repeat(32),
        source: { type: "upload", host: "host-a" },
        line_count: 3,
      },
      status: [
        { state: "DOWNLOADING", timestamp: { $date: "2024-01-31T09:30:00.000Z" } },
        { state: "DOWNLOADED", timestamp: { $date: "2024-01-31T09:30:01.000Z" } },
        { state: "PROCESSING", timestamp: { $date: "2024-01-31T09:30:02.000Z" } },
        {
          state: "PROCESSED",
          timestamp: { $date: "2024-01-31T09:30:03.007Z" },
          lines_skipped: 1,
          lines_failed_processing: 0,
          lines_successfully_processed: 1,
        },
      ],
    });
  });

  it("an object id is 24 lower-case hex digits starting with the creation second", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4_000_000_000_000 }), fc.stringMatching(/^[0-9a-f]{16}$/), (ms, random) => {
        const id = objectIdOf(ms, random);
        assert.match(id, /^[0-9a-f]{24}$/);
        assert.equal(parseInt(id.slice(0, 8), 16), Math.floor(ms / 1000) % 0x1_0000_0000);
        assert.equal(id.slice(8), random);
      }),
    );
  });
});
