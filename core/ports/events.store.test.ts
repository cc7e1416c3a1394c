import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { deleteRunReceivedBefore, type EventReceipt } from "./events.store.ts";

/** A store of events in key order, recording what retention read and deleted. */
function storeOf(events: EventReceipt[]) {
  const reads: number[] = [];
  const deleted: number[] = [];
  return {
    reads,
    deleted,
    async headOf(upToSeq: number, limit: number) {
      reads.push(limit);
      return events.filter((event) => event.seq <= upToSeq).slice(0, limit);
    },
    async deleteUpTo(seq: number) {
      deleted.push(seq);
      return events.filter((event) => event.seq <= seq).length;
    },
  };
}

const receipts = (...times: number[]): EventReceipt[] =>
  times.map((receivedAt, index) => ({ seq: index + 1, receivedAt }));

describe("deleteRunReceivedBefore: event retention on a store in sequence order", () => {
  it("deletes the run of the oldest events received before the time, up to the first to keep", async () => {
    const store = storeOf(receipts(10, 20, 30, 15, 50));
    assert.equal(await deleteRunReceivedBefore(35, { upToSeq: 10, limit: 100 }, store), 4);
    assert.deepEqual(store.deleted, [4]);
  });

  it("stops at the first event to keep, even when later ones are old enough", async () => {
    const store = storeOf(receipts(10, 40, 15));
    assert.equal(await deleteRunReceivedBefore(35, { upToSeq: 10, limit: 100 }, store), 1);
    assert.deepEqual(store.deleted, [1]);
  });

  it("nothing old enough costs one row's read and deletes nothing", async () => {
    const store = storeOf(receipts(50, 10));
    assert.equal(await deleteRunReceivedBefore(35, { upToSeq: 10, limit: 100 }, store), 0);
    assert.deepEqual([store.reads, store.deleted], [[1], []]);
  });

  it("keeps to the events up to upToSeq and at most limit of them", async () => {
    const upTo = storeOf(receipts(1, 2, 3, 4));
    assert.equal(await deleteRunReceivedBefore(100, { upToSeq: 2, limit: 100 }, upTo), 2);
    const limited = storeOf(receipts(1, 2, 3, 4));
    assert.equal(await deleteRunReceivedBefore(100, { upToSeq: 10, limit: 3 }, limited), 3);
    assert.deepEqual(limited.deleted, [3]);
  });
});
