/**
 * Issue 8: a file import's memory does not grow with the file, and its status record is exact. The same
 * benchmark as `bun bench/import-memory.ts` (which measures 1,000,000 rows into bench/RESULTS.md), with
 * smaller files so CI stays quick: each size in a process of its own, through the drop folder into libSQL.
 */
import { describe, expect, test } from "bun:test";
import { runImportInChild } from "../../bench/import-memory.ts";

describe("file import memory (bench/import-memory.ts)", () => {
  test("a file four times larger imports with about the same peak memory, and every counter is exact", () => {
    const small = runImportInChild(50_000);
    const large = runImportInChild(200_000);
    for (const run of [small, large]) {
      expect(run.found).toEqual({
        ...run.expected,
        events: run.expected.succeeded,
        states: ["DOWNLOADING", "DOWNLOADED", "PROCESSING", "PROCESSED"],
      });
      expect(run.exact).toBe(true);
    }
    // Holding the rows (or their events) would add well over 100 MB for 150,000 more rows.
    expect(large.peakRssMb).toBeLessThan(small.peakRssMb * 1.35);
  }, 120_000);
});
