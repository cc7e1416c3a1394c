/**
 * The live feeds' memory (second probe, finding 3): a feed holds at most its byte budget of new messages its
 * reader has not taken, and each message is serialised once, its bytes shared by every feed. Driven directly on
 * a journal, with readers that read when the test says so: nothing here waits on time.
 */
import { describe, expect, it } from "bun:test";
import { CollectJournal, type CollectJournalEntry, type CollectOutcomeRecord } from "../../core/collect/index.ts";
import { EventStreams, messageOf, readerBudgetBytes } from "./event-stream.ts";

const budget = 10_000;

/** A filtered bot whose event name makes its message about `size` bytes long. */
function outcome(size: number): CollectOutcomeRecord {
  const event = "e".repeat(Math.max(0, size - 200));
  return {
    at: 0,
    outcome: "bot",
    method: "GET",
    account: "acme",
    profile: null,
    event,
    traceId: null,
    userAgent: null,
  };
}

/** A reader of one feed that takes a chunk only when asked to. */
function readerOf(response: Response) {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  return {
    /** The next chunk as it was sent, or null once the feed has ended. */
    async chunk(): Promise<Uint8Array | null> {
      const read = await reader.read();
      return read.done ? null : read.value;
    },
    async text(): Promise<string | null> {
      const chunk = await this.chunk();
      return chunk === null ? null : decoder.decode(chunk);
    },
  };
}

const messageBytes = (entry: CollectJournalEntry) => new TextEncoder().encode(messageOf(entry)).byteLength;

function open(streams: EventStreams, journal: CollectJournal, replay: readonly CollectJournalEntry[] = []) {
  return readerOf(streams.open(new Request("http://svc-hub.test/admin/events/live"), journal, replay));
}

describe("a live feed's byte budget (second probe, finding 3)", () => {
  it("is 4 MiB by default: four messages of 1 MB wait for a stalled reader, the fifth ends its feed", () => {
    const journal = new CollectJournal();
    const streams = new EventStreams();
    open(streams, journal);
    for (let n = 1; n <= 4; n += 1) journal.record(outcome(1_000_000));
    expect(streams.openCount).toBe(1);
    journal.record(outcome(1_000_000));
    expect(streams.openCount).toBe(0);
    expect(journal.listenerCount).toBe(0);
    expect(readerBudgetBytes).toBe(4 * 1024 * 1024);
  });

  it("ends a feed whose reader takes nothing once more than the budget waits, dropping what it held", async () => {
    const journal = new CollectJournal();
    const streams = new EventStreams({ readerBudgetBytes: budget });
    const stalled = open(streams, journal);
    const reading = open(streams, journal);
    expect(await stalled.text()).toBe(": connected\n\n");
    expect(await reading.text()).toBe(": connected\n\n");
    const sent: string[] = [];
    let stalledEndedAfter = 0;
    for (let n = 1; n <= 6; n += 1) {
      const entry = journal.record(outcome(3_000));
      sent.push(messageOf(entry));
      // The reading feed takes each message as it comes, and is never ended.
      expect(await reading.text()).toBe(messageOf(entry));
      if (stalledEndedAfter === 0 && streams.openCount === 1) stalledEndedAfter = n;
    }
    // Three messages of 3 KB wait within 10 KB; the fourth passes it.
    expect(stalledEndedAfter).toBe(4);
    expect(streams.openCount).toBe(1);
    expect(journal.listenerCount).toBe(1);
    // The stalled reader finds the end, without the messages it had not taken: it reconnects with Last-Event-ID.
    expect(await stalled.text()).toBeNull();
  });

  it("always sends one message alone, however large, to a reader that has taken the others", async () => {
    const journal = new CollectJournal();
    const streams = new EventStreams({ readerBudgetBytes: 1_000 });
    const feed = open(streams, journal);
    await feed.text();
    const asked = feed.text();
    const first = journal.record(outcome(5_000));
    expect(await asked).toBe(messageOf(first));
    // Not asked for yet: it waits alone, over the budget, and the feed stays open.
    const second = journal.record(outcome(5_000));
    expect(streams.openCount).toBe(1);
    expect(await feed.text()).toBe(messageOf(second));
    // Two waiting are over the budget.
    journal.record(outcome(5_000));
    journal.record(outcome(5_000));
    expect(streams.openCount).toBe(0);
    expect(await feed.text()).toBeNull();
  });

  it("does not count the replay, only the new messages waiting behind it", async () => {
    const journal = new CollectJournal();
    const streams = new EventStreams({ readerBudgetBytes: budget });
    const replay = Array.from({ length: 10 }, () => journal.record(outcome(3_000)));
    const feed = open(streams, journal, replay);
    // 30 KB to replay, over the 10 KB budget: the feed is open, and replays it all when read.
    expect(streams.openCount).toBe(1);
    expect(await feed.text()).toBe(": connected\n\n");
    for (const entry of replay.slice(0, 5)) expect(await feed.text()).toBe(messageOf(entry));
    for (let n = 1; n <= 3; n += 1) journal.record(outcome(3_000));
    expect(streams.openCount).toBe(1);
    journal.record(outcome(3_000));
    expect(streams.openCount).toBe(0);
    expect(await feed.text()).toBeNull();
  });
});

describe("what a feed holds (second probe, finding 3)", () => {
  it("stays bounded for a reader that is always one message behind, however many messages pass", async () => {
    // The journal keeps 10 entries: every message the feed still refers to beyond those is kept by the feed alone.
    const journal = new CollectJournal({ size: 10 });
    const streams = new EventStreams({ readerBudgetBytes: budget });
    const feed = open(streams, journal);
    await feed.text();
    let previous = journal.record(outcome(3_000));
    let mostHeld = 0;
    for (let n = 1; n <= 2_000; n += 1) {
      const entry = journal.record(outcome(3_000));
      // Two messages wait, 6 KB within the 10 KB budget: the reader takes the older one and stays one behind.
      mostHeld = Math.max(mostHeld, streams.held.messages);
      expect(await feed.text()).toBe(messageOf(previous));
      previous = entry;
    }
    expect(streams.openCount).toBe(1);
    expect(mostHeld).toBe(2);
    expect(streams.held).toEqual({ messages: 1, bytes: messageBytes(previous) });
    expect(await feed.text()).toBe(messageOf(previous));
    expect(streams.held).toEqual({ messages: 0, bytes: 0 });
  });

  it("lets go of each replayed entry once it is sent", async () => {
    const journal = new CollectJournal({ size: 10 });
    const streams = new EventStreams({ readerBudgetBytes: budget });
    const replay = Array.from({ length: 10 }, () => journal.record(outcome(3_000)));
    const feed = open(streams, journal, replay);
    await feed.text();
    expect(streams.held.messages).toBe(10);
    for (const entry of replay.slice(0, 4)) expect(await feed.text()).toBe(messageOf(entry));
    expect(streams.held.messages).toBe(6);
    for (const entry of replay.slice(4)) expect(await feed.text()).toBe(messageOf(entry));
    // The journal moves on past the replayed entries; the feed, open and read, keeps none of them.
    for (let n = 1; n <= 20; n += 1) {
      const entry = journal.record(outcome(3_000));
      expect(await feed.text()).toBe(messageOf(entry));
    }
    expect(streams.openCount).toBe(1);
    expect(streams.held).toEqual({ messages: 0, bytes: 0 });
  });
});

describe("a message serialised once (second probe, finding 3)", () => {
  it("gives every feed the same bytes of an entry, live or replayed, made once", async () => {
    const journal = new CollectJournal();
    const streams = new EventStreams();
    const feeds = [open(streams, journal), open(streams, journal), open(streams, journal)];
    for (const feed of feeds) await feed.chunk();
    const stringify = JSON.stringify;
    let serialised = 0;
    JSON.stringify = ((...args: Parameters<typeof stringify>) => {
      serialised += 1;
      return stringify(...args);
    }) as typeof stringify;
    let entry: CollectJournalEntry;
    let live: Array<Uint8Array | null>;
    let replayed: Uint8Array | null;
    try {
      entry = journal.record(outcome(3_000));
      live = await Promise.all(feeds.map((feed) => feed.chunk()));
      const late = open(streams, journal, [entry]);
      await late.chunk();
      replayed = await late.chunk();
    } finally {
      JSON.stringify = stringify;
    }
    expect(serialised).toBe(1);
    expect(new TextDecoder().decode(live[0] as Uint8Array)).toBe(messageOf(entry));
    // Not three equal copies: one array, which each feed holds only until its reader takes it.
    expect(live[1]).toBe(live[0] as Uint8Array);
    expect(live[2]).toBe(live[0] as Uint8Array);
    expect(replayed).toBe(live[0] as Uint8Array);
  });
});
