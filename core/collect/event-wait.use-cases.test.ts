/** Issue 43, point 2 (event expectations): find, count and wait for the stored events that match a filter. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { EventQuery, StoredEvent } from "../ports/index.ts";
import { CollectJournal } from "./collect-journal.ts";
import { EventExpectations, eventHasParameters } from "./event-wait.use-cases.ts";

function storedEvent(seq: number, fields: Partial<StoredEvent> = {}): StoredEvent {
  return {
    seq,
    account: "acme",
    profile: "main",
    visitorId: "v1",
    visitorIdSource: "new",
    thirdPartyVisitorId: null,
    firstPartyVisitorId: null,
    event: "view",
    datasource: null,
    traceId: null,
    receivedAt: 1000 + seq,
    data: {},
    verdict: "none",
    violations: [],
    ...fields,
  };
}

/** A store of events in memory, queried as the EventStore is (afterSeq, from, event, limit, asc). */
function eventsIn(events: StoredEvent[]) {
  const queries: EventQuery[] = [];
  const find = async (query: EventQuery) => {
    queries.push(query);
    return events
      .filter(
        (event) =>
          event.seq > (query.afterSeq ?? 0) &&
          (query.event === undefined || event.event === query.event) &&
          (query.from === undefined || event.receivedAt >= query.from),
      )
      .slice(0, query.limit);
  };
  return { find, queries };
}

/** An event loop whose sleeps resolve only when the test says so; its time moves as the test moves it. */
function manualLoop() {
  let now = 0;
  const sleepers: Array<{ until: number; resolve: () => void }> = [];
  return {
    monotonicMs: () => now,
    sleep: (ms: number) => new Promise<void>((resolve) => sleepers.push({ until: now + ms, resolve })),
    advance(ms: number) {
      now += ms;
      for (const sleeper of sleepers.splice(0)) {
        if (sleeper.until <= now) sleeper.resolve();
        else sleepers.push(sleeper);
      }
    },
    get sleeping() {
      return sleepers.length;
    },
  };
}

const settle = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

describe("event expectations (issue 43, point 2)", () => {
  it("matches stored parameters by value, numbers and booleans as their text", () => {
    const data = { sku: "A1", qty: 2, gift: true, tags: ["x"] };
    assert.equal(eventHasParameters(data, { sku: "A1", qty: "2", gift: "true" }), true);
    assert.equal(eventHasParameters(data, { sku: "A2" }), false);
    assert.equal(eventHasParameters(data, { missing: "" }), false);
    assert.equal(eventHasParameters(data, { tags: '["x"]' }), true);
    assert.equal(eventHasParameters(data, {}), true);
  });

  it("counts every matching event across pages, and answers the first ones", async () => {
    const events = Array.from({ length: 25 }, (_, index) => storedEvent(index + 1, { data: { n: String(index % 2) } }));
    const store = eventsIn(events);
    const expectations = new EventExpectations({
      find: store.find,
      journal: new CollectJournal(),
      eventLoop: manualLoop(),
      pageSize: 10,
    });
    const found = await expectations.count({ params: { n: "1" } }, 3);
    assert.equal(found.count, 12);
    assert.deepEqual(
      found.events.map((event) => event.seq),
      [2, 4, 6],
    );
    assert.deepEqual(
      store.queries.map((query) => query.afterSeq),
      [0, 10, 20],
    );
  });

  it("answers at once when enough events are stored already, without sleeping", async () => {
    const loop = manualLoop();
    const expectations = new EventExpectations({
      find: eventsIn([storedEvent(1), storedEvent(2)]).find,
      journal: new CollectJournal(),
      eventLoop: loop,
    });
    const report = await expectations.waitFor({ event: "view" }, { min: 2, timeoutMs: 5000, limit: 10 });
    assert.equal(report.met, true);
    assert.equal(report.count, 2);
    assert.equal(loop.sleeping, 0);
  });

  it("wakes at once when this process stores an event, and reads only the events after those it has seen", async () => {
    const events = [storedEvent(1)];
    const store = eventsIn(events);
    const journal = new CollectJournal();
    const loop = manualLoop();
    const expectations = new EventExpectations({ find: store.find, journal, eventLoop: loop, requeryMs: 1000 });
    const waiting = expectations.waitFor({ params: { sku: "A1" } }, { min: 1, timeoutMs: 5000, limit: 10 });
    await settle();
    events.push(storedEvent(2, { event: "buy", data: { sku: "A1" } }));
    journal.record({
      at: 1002,
      outcome: "stored",
      method: "GET",
      account: "acme",
      profile: "main",
      event: "buy",
      traceId: null,
      userAgent: null,
      visitorId: "v1",
      data: {},
      decision: { visitorId: "v1", source: "new" } as never,
      request: {
        method: "GET",
        query: "",
        contentType: null,
        body: null,
        cookie: null,
        referer: null,
        userAgent: null,
      },
    });
    const report = await waiting;
    assert.equal(report.met, true);
    assert.deepEqual(
      report.events.map((event) => event.seq),
      [2],
    );
    assert.equal(store.queries.at(-1)?.afterSeq, 1);
    assert.equal(journal.listenerCount, 0);
  });

  it("ends at once, with what it found, when it is abandoned (its client went away)", async () => {
    const loop = manualLoop();
    const journal = new CollectJournal();
    const expectations = new EventExpectations({ find: eventsIn([storedEvent(1)]).find, journal, eventLoop: loop });
    let abandon: () => void = () => undefined;
    const abandoned = new Promise<void>((resolve) => (abandon = resolve));
    const waiting = expectations.waitFor({}, { min: 5, timeoutMs: 60_000, limit: 10, abandoned });
    await settle();
    abandon();
    const report = await waiting;
    assert.deepEqual({ met: report.met, count: report.count }, { met: false, count: 1 });
    assert.equal(journal.listenerCount, 0);
  });

  it("looks again every requeryMs for events another process stored, and answers what it found at the timeout", async () => {
    const events: StoredEvent[] = [];
    const loop = manualLoop();
    const journal = new CollectJournal();
    const expectations = new EventExpectations({
      find: eventsIn(events).find,
      journal,
      eventLoop: loop,
      requeryMs: 100,
    });
    const waiting = expectations.waitFor({}, { min: 2, timeoutMs: 250, limit: 10 });
    await settle();
    events.push(storedEvent(1));
    loop.advance(100);
    await settle();
    loop.advance(100);
    await settle();
    loop.advance(50);
    const report = await waiting;
    assert.deepEqual(
      { met: report.met, count: report.count, waitedMs: report.waitedMs },
      { met: false, count: 1, waitedMs: 250 },
    );
    assert.equal(journal.listenerCount, 0);
  });
});
