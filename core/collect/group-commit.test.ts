import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type GroupCommitStats, GroupCommitWriter } from "./group-commit.ts";

/** A commit the test releases by hand, recording every batch it was given. */
function manualCommit() {
  const batches: number[][] = [];
  const pending: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];
  let active = 0;
  let mostActive = 0;
  const commit = (items: readonly number[]) =>
    new Promise<void>((resolve, reject) => {
      batches.push([...items]);
      active += 1;
      mostActive = Math.max(mostActive, active);
      pending.push({
        resolve: () => {
          active -= 1;
          resolve();
        },
        reject: (error) => {
          active -= 1;
          reject(error);
        },
      });
    });
  return { commit, batches, pending, mostActive: () => mostActive };
}

/** The writer's stats named in `expected`, compared with it (the others are not looked at). */
function assertStats(stats: GroupCommitStats, expected: Partial<GroupCommitStats>): void {
  const named = Object.keys(expected) as Array<keyof GroupCommitStats>;
  assert.deepEqual(Object.fromEntries(named.map((name) => [name, stats[name]])), expected);
}

/** One turn of the event loop: what the writer waits before each commit (the host's EventLoop.nextTurn). */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("group commit (DEC-COL-08)", () => {
  it("commits a lone item after one turn of the event loop", async () => {
    const manual = manualCommit();
    const writer = new GroupCommitWriter(manual.commit, { gather: turn });
    const written = writer.write(1);
    assert.deepEqual(manual.batches, []);
    await turn();
    assert.deepEqual(manual.batches, [[1]]);
    manual.pending[0]!.resolve();
    await written;
    assertStats(writer.stats(), { batches: 1, committed: 1, pending: 0 });
  });

  it("items written in the same turn of the event loop share one commit", async () => {
    const manual = manualCommit();
    const writer = new GroupCommitWriter(manual.commit, { gather: turn });
    const writes = [1, 2, 3].map((item) => writer.write(item));
    await turn();
    assert.deepEqual(manual.batches, [[1, 2, 3]]);
    manual.pending[0]!.resolve();
    await Promise.all(writes);
  });

  it("items that arrive while a batch commits go together into the next one, and each waits for its own batch", async () => {
    const manual = manualCommit();
    const writer = new GroupCommitWriter(manual.commit, { gather: turn });
    const settled: number[] = [];
    const first = writer.write(1).then(() => settled.push(1));
    await turn();
    const rest = [2, 3, 4].map((item) => writer.write(item).then(() => settled.push(item)));
    assert.deepEqual(manual.batches, [[1]]);
    manual.pending[0]!.resolve();
    await first;
    await turn();
    assert.deepEqual(manual.batches, [[1], [2, 3, 4]]);
    assert.deepEqual(settled, [1]); // 2, 3 and 4 are not answered before their batch is committed
    manual.pending[1]!.resolve();
    await Promise.all(rest);
    assert.deepEqual(settled, [1, 2, 3, 4]);
    assert.equal(manual.mostActive(), 1);
    assertStats(writer.stats(), { batches: 2, committed: 4, largestBatch: 3 });
  });

  it("with inFlight 2, the next batch goes to commit while one commits, never more than two, each item answered with its own", async () => {
    const manual = manualCommit();
    const writer = new GroupCommitWriter(manual.commit, { gather: turn, inFlight: 2 });
    const settled: number[] = [];
    const track = (item: number) => writer.write(item).then(() => settled.push(item));
    const first = track(1);
    await turn();
    const second = [2, 3].map(track);
    await turn();
    const third = [4, 5].map(track);
    await turn();
    // Batch 1 commits; batch [2, 3] went to commit beside it; 4 and 5 wait for one of the two to finish.
    assert.deepEqual(manual.batches, [[1], [2, 3]]);
    manual.pending[1]!.resolve();
    await Promise.all(second);
    assert.deepEqual(settled, [2, 3]); // a later batch may be answered first: each waits for its own only
    await turn();
    assert.deepEqual(manual.batches, [[1], [2, 3], [4, 5]]);
    manual.pending[0]!.resolve();
    manual.pending[2]!.resolve();
    await Promise.all([first, ...third]);
    assert.deepEqual(settled, [2, 3, 1, 4, 5]);
    assert.equal(manual.mostActive(), 2);
    await writer.settled();
    assertStats(writer.stats(), { batches: 3, committed: 5, pending: 0 });
  });

  it("a failed commit rejects every item of its batch, and only those; the writer carries on", async () => {
    const manual = manualCommit();
    const writer = new GroupCommitWriter(manual.commit, { gather: turn });
    const first = writer.write(1);
    await turn();
    const second = [writer.write(2), writer.write(3)];
    manual.pending[0]!.resolve();
    await first;
    await turn();
    const outcomes = Promise.allSettled(second);
    manual.pending[1]!.reject(new Error("disk full"));
    assert.deepEqual(
      (await outcomes).map((outcome) => (outcome.status === "rejected" ? String(outcome.reason) : "committed")),
      ["Error: disk full", "Error: disk full"],
    );
    const third = writer.write(4);
    await turn();
    assert.deepEqual(manual.batches.at(-1), [4]);
    manual.pending[2]!.resolve();
    await third;
    assertStats(writer.stats(), { batches: 3, committed: 2, failedBatches: 1 });
  });

  it("splits a long queue into batches of at most maxBatch, in order", async () => {
    const batches: number[][] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const writer = new GroupCommitWriter<number>(
      async (items) => {
        batches.push([...items]);
        if (batches.length === 1) await gate;
      },
      { gather: turn, maxBatch: 3 },
    );
    const first = writer.write(0);
    await turn();
    const writes = Array.from({ length: 7 }, (_, index) => writer.write(index + 1));
    release();
    await Promise.all([first, ...writes]);
    assert.deepEqual(batches, [[0], [1, 2, 3], [4, 5, 6], [7]]);
  });

  it("settled() resolves once everything written so far is committed", async () => {
    const committed: number[] = [];
    const writer = new GroupCommitWriter<number>(
      async (items) => {
        await turn();
        committed.push(...items);
      },
      { gather: turn },
    );
    void writer.write(1);
    void writer.write(2);
    await writer.settled();
    assert.deepEqual(committed, [1, 2]);
  });
});
