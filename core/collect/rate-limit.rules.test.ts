import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  accountHasRoom,
  admitEvent,
  admittedTimes,
  type ByteBucket,
  emptyRateWindow,
  fairShare,
  type OthersCounts,
  type RateWindow,
  rateWindowMs,
  secondOf,
  sourceOfAddress,
  takeBytes,
} from "./rate-limit.rules.ts";

/** Runs requests at the given times through one window; returns the times that were admitted. */
function admitAll(times: readonly number[], limit: number): number[] {
  let window: RateWindow = emptyRateWindow;
  const admitted: number[] = [];
  for (const now of times) {
    const result = admitEvent(window, now, limit);
    window = result.next;
    if (result.admitted) admitted.push(now);
  }
  return admitted;
}

/** Non-decreasing request times, as a clock that only moves forward gives them. */
const forwardTimes = fc.array(fc.integer({ min: 0, max: 400 }), { maxLength: 300 }).map((gaps) => {
  let now = 1_000_000;
  return gaps.map((gap) => (now += gap));
});

describe("rate limit (COL-15, DEC-COL-07)", () => {
  it("admits 100 in one second, refuses the 101st, and admits again a second later", () => {
    const burst = Array.from({ length: 101 }, () => 5_000);
    assert.equal(admitAll(burst, 100).length, 100);
    assert.equal(admitAll([...burst, 5_000 + rateWindowMs], 100).length, 101);
  });

  it("never admits more than the limit in any 1000 ms", () => {
    fc.assert(
      fc.property(forwardTimes, fc.integer({ min: 1, max: 20 }), (times, limit) => {
        const admitted = admitAll(times, limit);
        for (let index = limit; index < admitted.length; index += 1) {
          assert.ok((admitted[index] as number) - (admitted[index - limit] as number) >= rateWindowMs);
        }
      }),
    );
  });

  it("refuses only when the limit was reached in the last 1000 ms", () => {
    fc.assert(
      fc.property(forwardTimes, fc.integer({ min: 1, max: 20 }), (times, limit) => {
        let window: RateWindow = emptyRateWindow;
        const admitted: number[] = [];
        for (const now of times) {
          const result = admitEvent(window, now, limit);
          const recent = admitted.filter((at) => at > now - rateWindowMs).length;
          assert.equal(result.admitted, recent < limit);
          if (result.admitted) admitted.push(now);
          window = result.next;
          assert.ok(window.end - window.start <= limit);
        }
      }),
    );
  });

  it("a window never changes once made: admitting from an older window gives the same answer as the first time", () => {
    fc.assert(
      fc.property(forwardTimes, fc.integer({ min: 1, max: 20 }), fc.nat(), (times, limit, pick) => {
        const windows: RateWindow[] = [emptyRateWindow];
        for (const now of times) windows.push(admitEvent(windows.at(-1) as RateWindow, now, limit).next);
        const index = pick % windows.length;
        const before = [...admittedTimes(windows[index] as RateWindow)];
        const later = (times.at(-1) ?? 1_000_000) + 1;
        const first = admitEvent(windows[index] as RateWindow, later, limit);
        const again = admitEvent(windows[index] as RateWindow, later, limit);
        assert.deepEqual(admittedTimes(windows[index] as RateWindow), before);
        assert.equal(first.admitted, again.admitted);
        assert.deepEqual(admittedTimes(first.next), admittedTimes(again.next));
      }),
    );
  });

  it("admitting stays cheap with a high limit: 200,000 events in one second keep a window of 200,000 without copying it each time", () => {
    let window: RateWindow = emptyRateWindow;
    const started = Date.now();
    for (let index = 0; index < 200_000; index += 1)
      window = admitEvent(window, 5_000_000 + Math.floor(index / 1000), 10_000_000).next;
    assert.equal(window.end - window.start, 200_000);
    // Copying the window at every admission (quadratic) takes minutes here; appending takes milliseconds.
    assert.ok(Date.now() - started < 5_000);
    // 1150 ms later the times up to 5,000,150 have left the window: 49 ms of 1000 events, and this one.
    window = admitEvent(window, 5_000_000 + 1_150, 10_000_000).next;
    assert.equal(admittedTimes(window)[0], 5_000_151);
    assert.equal(window.end - window.start, 49_001);
  });

  it("over long runs (where the shared array is compacted) it answers as a plain list of times would", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 3000, maxLength: 6000 }),
        fc.integer({ min: 300, max: 2500 }),
        (gaps, limit) => {
          let window: RateWindow = emptyRateWindow;
          let plain: number[] = [];
          let now = 1_000_000;
          for (const gap of gaps) {
            now += gap;
            plain = plain.filter((at) => at > now - rateWindowMs);
            const result = admitEvent(window, now, limit);
            assert.equal(result.admitted, plain.length < limit);
            if (result.admitted) plain.push(now);
            window = result.next;
          }
          assert.deepEqual(admittedTimes(window), plain);
        },
      ),
      { numRuns: 20 },
    );
  });

  it("a clock set back does not keep the account blocked", () => {
    const full = admitAll(
      Array.from({ length: 100 }, () => 10_000_000),
      100,
    );
    assert.equal(full.length, 100);
    let window: RateWindow = emptyRateWindow;
    for (let index = 0; index < 100; index += 1) window = admitEvent(window, 10_000_000, 100).next;
    assert.equal(admitEvent(window, 10_000_000, 100).admitted, false);
    assert.equal(admitEvent(window, 1_000, 100).admitted, true);
  });
});

describe("fair share of a contended account (ours, beneath DEC-COL-07)", () => {
  it("a source alone has the whole limit; with others the larger of a fifth and an equal part", () => {
    const table: Array<[limit: number, active: number, share: number]> = [
      [100, 0, 100],
      [100, 1, 100],
      [100, 2, 50],
      [100, 3, 33],
      [100, 4, 25],
      [100, 5, 20],
      [100, 50, 20],
      [7, 2, 3],
      [7, 10, 2],
      [1_000_000, 1000, 200_000],
    ];
    for (const [limit, active, share] of table)
      assert.equal(fairShare(limit, active), share, `fairShare(${limit}, ${active})`);
  });

  it("a share is never more than the limit and never less than one event", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100_000 }), fc.integer({ min: 0, max: 100_000 }), (limit, active) => {
        const share = fairShare(limit, active);
        assert.ok(share >= 1 && share <= limit);
      }),
    );
  });
});

describe("the source of a client address", () => {
  it("an IPv4 address is its own source, an IPv4-mapped IPv6 address is its IPv4 address", () => {
    assert.equal(sourceOfAddress("203.0.113.7"), "203.0.113.7");
    assert.equal(sourceOfAddress("::ffff:203.0.113.7"), "203.0.113.7");
    assert.notEqual(sourceOfAddress("203.0.113.7"), sourceOfAddress("203.0.113.8"));
  });

  it("an IPv6 address counts as its /64, however it is written", () => {
    assert.equal(sourceOfAddress("2001:db8:1:2:aaaa::1"), "2001:db8:1:2::/64");
    assert.equal(sourceOfAddress("2001:0DB8:0001:0002:ffff:1:2:3"), "2001:db8:1:2::/64");
    assert.equal(sourceOfAddress("2001:db8::1"), "2001:db8:0:0::/64");
    assert.equal(sourceOfAddress("fe80::1%eth0"), "fe80:0:0:0::/64");
    assert.equal(sourceOfAddress("::1"), "0:0:0:0::/64");
    assert.notEqual(sourceOfAddress("2001:db8:1:2::1"), sourceOfAddress("2001:db8:1:3::1"));
  });

  it("what is no address (an in-process request's `local`) is taken as it is", () => {
    assert.equal(sourceOfAddress("local"), "local");
    assert.equal(sourceOfAddress("1:2:3"), "1:2:3");
  });
});

describe("the byte budget of a source", () => {
  const mib = 1_048_576;

  it("a bucket of perSecond bytes: full at first, refused past it, refilled at perSecond a second", () => {
    let bucket = takeBytes(undefined, 1_000, 6 * mib, 8 * mib);
    assert.equal(bucket.admitted, true);
    const refused = takeBytes(bucket.next, 1_000, 3 * mib, 8 * mib);
    assert.equal(refused.admitted, false);
    assert.deepEqual(refused.next, { bytes: 2 * mib, at: 1_000 });
    // 125 ms later, 1 MiB more: 3 MiB fit.
    bucket = takeBytes(refused.next, 1_125, 3 * mib, 8 * mib);
    assert.equal(bucket.admitted, true);
    assert.equal(bucket.next.bytes, 0);
    // A long quiet time fills it up to perSecond, no more.
    assert.equal(takeBytes(bucket.next, 60_000, 8 * mib, 8 * mib).admitted, true);
    assert.equal(takeBytes(bucket.next, 60_000, 8 * mib + 1, 8 * mib).admitted, false);
  });

  it("a clock set back finds the bucket full", () => {
    const empty = takeBytes(undefined, 10_000, 8 * mib, 8 * mib).next;
    assert.equal(takeBytes(empty, 10_000, 1, 8 * mib).admitted, false);
    assert.equal(takeBytes(empty, 5_000, 8 * mib, 8 * mib).admitted, true);
  });

  it("never more than perSecond bytes at once plus perSecond a second after", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 1, max: 5000 })), { maxLength: 300 }),
        (requests) => {
          const perSecond = 10_000;
          let bucket: ByteBucket | undefined;
          let now = 0;
          let admitted = 0;
          for (const [gap, size] of requests) {
            now += gap;
            const taken = takeBytes(bucket, now, size, perSecond);
            bucket = taken.next;
            if (taken.admitted) admitted += size;
            assert.ok(admitted <= perSecond + (now * perSecond) / rateWindowMs);
          }
        },
      ),
    );
  });
});

describe("the account's limit across nodes (COL-15, DEC-COL-07: accountHasRoom)", () => {
  const now = 7_000_250;
  const second = secondOf(now);
  /** The other nodes' counts read in this second: `offeredBefore` in the second before, `admitted` in this one. */
  const read = (offeredBefore: number, admitted = 0, at = second): OthersCounts => ({
    second: at,
    admitted,
    offered: admitted,
    offeredBefore,
  });
  /** How many events a node may hold: the most `held` for which the event before it found room. */
  function mostHeld(limit: number, ownOfferedBefore: number, others: OthersCounts | null): number {
    let held = 0;
    while (held < limit && accountHasRoom(limit, held, ownOfferedBefore, others, now)) held += 1;
    return held;
  }

  const examples: ReadonlyArray<{
    readonly what: string;
    readonly own: number;
    readonly others: OthersCounts | null;
    readonly most: number;
  }> = [
    { what: "alone, nothing read: the whole limit", own: 500, others: null, most: 100 },
    { what: "two nodes offered as much: half each", own: 500, others: read(500), most: 50 },
    { what: "three nodes offered as much: a third each, rounded down", own: 300, others: read(600), most: 33 },
    { what: "offered ten times the others: ten elevenths", own: 1000, others: read(100), most: 90 },
    { what: "all offered less than the limit: the spare is the node's", own: 20, others: read(30), most: 70 },
    {
      what: "a node joining a flood on the others: nothing until it counts a second",
      own: 0,
      others: read(1000),
      most: 0,
    },
    { what: "what the others admitted in this second counts", own: 1000, others: read(0, 60), most: 40 },
    {
      what: "counts read in the second before: their second is the one before now's, and what they admitted in it is not in this second",
      own: 500,
      others: { second: second - 1, admitted: 90, offered: 500, offeredBefore: 10_000 },
      most: 50,
    },
    {
      what: "counts read two seconds before or earlier count for nothing (the others may have stopped)",
      own: 500,
      others: read(500, 90, second - 2),
      most: 100,
    },
  ];
  for (const { what, own, others, most } of examples)
    it(`${what}: holds ${most} of 100`, () => {
      assert.equal(mostHeld(100, own, others), most);
    });

  it("alone it is the sliding window's own rule: room while fewer than the limit are held", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1000 }), fc.nat(1200), fc.nat(100_000), (limit, held, own) => {
        assert.equal(accountHasRoom(limit, held, own, null, now), held < limit);
      }),
    );
  });

  it("offered the limit or more, the nodes' shares read from the same counts add up to it (less at most one event a node); offered less, each may hold what it was offered", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1000 }),
        fc.array(fc.nat(5_000), { minLength: 1, maxLength: 12 }),
        (limit, offered) => {
          const total = offered.reduce((sum, count) => sum + count, 0);
          const held = offered.map((own) => mostHeld(limit, own, read(total - own)));
          const sum = held.reduce((all, count) => all + count, 0);
          if (total >= limit) {
            assert.ok(sum <= limit, `${sum} held of ${limit}`);
            assert.ok(sum >= limit - offered.length, `${sum} held of ${limit}`);
          } else for (const [index, own] of offered.entries()) assert.ok((held[index] as number) >= own);
        },
      ),
    );
  });
});
