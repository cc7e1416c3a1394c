import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type CollectRejection, combineCollectStats, type NodeCollectStats } from "./collect-stats.ts";

function rejection(at: string, traceId: string): CollectRejection {
  return {
    at,
    method: "GET",
    status: 429,
    reason: "rateLimited",
    xError: "Rate limit exceeded",
    account: "acme",
    profile: "main",
    traceId,
    userAgent: null,
  };
}

function node(counts: Partial<NodeCollectStats>): NodeCollectStats {
  return {
    accepted: 0,
    filteredBots: 0,
    rateLimited: 0,
    storageUnavailable: 0,
    rejected: {},
    recentRejections: [],
    commits: { batches: 0, committed: 0, failedBatches: 0, largestBatch: 0, pending: 0 },
    ...counts,
  };
}

describe("combineCollectStats: the counters of several nodes as one", () => {
  it("adds the counts, keeps the largest batch, merges the reasons and the latest refusals newest first", () => {
    const combined = combineCollectStats([
      node({
        accepted: 3,
        filteredBots: 1,
        rateLimited: 2,
        rejected: { rateLimited: 2, invalidAccount: 1 },
        recentRejections: [rejection("2026-11-27T10:00:02.000Z", "a2"), rejection("2026-11-27T10:00:00.000Z", "a0")],
        commits: { batches: 2, committed: 3, failedBatches: 0, largestBatch: 2, pending: 1 },
      }),
      node({
        accepted: 4,
        rateLimited: 1,
        rejected: { rateLimited: 1 },
        recentRejections: [rejection("2026-11-27T10:00:01.000Z", "b1")],
        commits: { batches: 1, committed: 4, failedBatches: 1, largestBatch: 4, pending: 0 },
      }),
    ]);
    assert.deepEqual(
      { ...combined, recentRejections: combined.recentRejections.map((entry) => entry.traceId) },
      {
        accepted: 7,
        filteredBots: 1,
        rateLimited: 3,
        storageUnavailable: 0,
        rejected: { rateLimited: 3, invalidAccount: 1 },
        recentRejections: ["a2", "b1", "a0"],
        commits: { batches: 3, committed: 7, failedBatches: 1, largestBatch: 4, pending: 1 },
      },
    );
  });

  it("one node's counters are its own, and none are zero", () => {
    const alone = node({ accepted: 5, recentRejections: [rejection("2026-11-27T10:00:00.000Z", "x")] });
    assert.deepEqual(combineCollectStats([alone]), alone);
    assert.deepEqual(combineCollectStats([]), node({}));
  });

  it("keeps as many latest refusals as one node does (100)", () => {
    const many = Array.from({ length: 80 }, (_, index) =>
      rejection(
        `2026-11-27T10:00:${String(index % 60).padStart(2, "0")}.${String(index).padStart(3, "0")}Z`,
        `r${index}`,
      ),
    );
    const combined = combineCollectStats([node({ recentRejections: many }), node({ recentRejections: many })]);
    assert.equal(combined.recentRejections.length, 100);
  });
});
