import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  CollectJournal,
  type CollectJournalEntry,
  type CollectOutcomeRecord,
  viewOfJournalEntry,
} from "./collect-journal.ts";

function bot(at: number, userAgent: string | null = "ExampleBot/1.0"): CollectOutcomeRecord {
  return { at, outcome: "bot", method: "GET", account: "acme", profile: null, event: null, traceId: null, userAgent };
}

const ids = (entries: readonly CollectJournalEntry[]) => entries.map((entry) => entry.id);

describe("the collection journal (issue 32)", () => {
  it("numbers each outcome from 1 and keeps the last N, oldest first", () => {
    const journal = new CollectJournal({ size: 3 });
    for (let at = 1; at <= 5; at += 1) journal.record(bot(at));
    assert.deepEqual(ids(journal.entriesAfter(0)), [3, 4, 5]);
    assert.deepEqual(ids(journal.latest(2)), [4, 5]);
    assert.deepEqual(ids(journal.latest(10)), [3, 4, 5]);
    assert.equal(journal.lastId, 5);
  });

  it("answers the entries after an id, at most `limit` of them", () => {
    const journal = new CollectJournal({ size: 10 });
    for (let at = 1; at <= 6; at += 1) journal.record(bot(at));
    assert.deepEqual(ids(journal.entriesAfter(2)), [3, 4, 5, 6]);
    assert.deepEqual(ids(journal.entriesAfter(2, 2)), [3, 4]);
    assert.deepEqual(ids(journal.entriesAfter(6)), []);
  });

  it("takes an id beyond its newest (a reader of the process before a restart) as asking for everything kept", () => {
    const journal = new CollectJournal();
    journal.record(bot(1));
    journal.record(bot(2));
    assert.deepEqual(ids(journal.entriesAfter(500)), [1, 2]);
  });

  it("tells each listener of each new entry until it unsubscribes", () => {
    const journal = new CollectJournal();
    const seen: number[] = [];
    const unsubscribe = journal.subscribe((entry) => seen.push(entry.id));
    assert.equal(journal.listenerCount, 1);
    journal.record(bot(1));
    journal.record(bot(2));
    unsubscribe();
    journal.record(bot(3));
    assert.deepEqual(seen, [1, 2]);
    assert.equal(journal.listenerCount, 0);
  });

  it("drops a listener that throws, and still records and tells the others", () => {
    const journal = new CollectJournal();
    const seen: number[] = [];
    journal.subscribe(() => {
      throw new Error("a closed stream");
    });
    journal.subscribe((entry) => seen.push(entry.id));
    journal.record(bot(1));
    journal.record(bot(2));
    assert.deepEqual(seen, [1, 2]);
    assert.equal(journal.listenerCount, 1);
    assert.deepEqual(ids(journal.entriesAfter(0)), [1, 2]);
  });

  it("keeps within its byte budget by letting the oldest entries go, but always keeps the newest", () => {
    const journal = new CollectJournal({ size: 100, maxBytes: 1000 });
    journal.record(bot(1, null), 400);
    journal.record(bot(2, null), 400);
    journal.record(bot(3, null), 400);
    assert.deepEqual(ids(journal.entriesAfter(0)), [2, 3]);
    journal.record(bot(4, null), 5000);
    assert.deepEqual(ids(journal.entriesAfter(0)), [4]);
  });

  it("cuts a long User-Agent to 512 characters", () => {
    const journal = new CollectJournal();
    const entry = journal.record(bot(1, "x".repeat(2000)));
    assert.equal(entry.userAgent?.length, 512);
  });

  it("forgets its entries on clear (a reset), and the ids go on", () => {
    const journal = new CollectJournal();
    journal.record(bot(1));
    journal.record(bot(2));
    journal.clear();
    assert.deepEqual(journal.entriesAfter(0), []);
    assert.equal(journal.record(bot(3)).id, 3);
    assert.deepEqual(ids(journal.entriesAfter(0)), [3]);
  });

  it("shows `at` as ISO 8601 with `atMs` beside it", () => {
    const entry = new CollectJournal().record(bot(Date.UTC(2024, 0, 2, 3, 4, 5)));
    assert.deepEqual(viewOfJournalEntry(entry), {
      ...entry,
      at: "2024-01-02T03:04:05.000Z",
      atMs: Date.UTC(2024, 0, 2, 3, 4, 5),
    });
  });

  it("holds the newest min(N, recorded) entries with consecutive ids, whatever the sizes and weights", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), fc.array(fc.nat(50), { maxLength: 60 }), (size, weights) => {
        const journal = new CollectJournal({ size, maxBytes: 200 });
        for (const [index, weight] of weights.entries()) journal.record(bot(index, null), weight);
        const kept = ids(journal.entriesAfter(0));
        assert.ok(kept.length <= size);
        if (weights.length > 0) assert.equal(kept.at(-1), weights.length);
        for (let index = 1; index < kept.length; index += 1) assert.equal(kept[index], (kept[index - 1] as number) + 1);
        const held = kept.reduce((sum, id) => sum + (weights[id - 1] as number), 0);
        assert.ok(kept.length <= 1 || held <= 200);
      }),
    );
  });
});
