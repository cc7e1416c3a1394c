import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { CollectRateLimiter, type PendingExchange, type RateDecision } from "./rate-limiter.ts";

const mib = 1_048_576;
const settings = { eventsPerSecond: 100, bytesPerSourcePerSecond: 8 * mib };

/** Sends `count` events of `bytes` from `source` to acme at `now`; answers the decisions. */
function send(
  limiter: CollectRateLimiter,
  source: string,
  count: number,
  now: number,
  bytes = 100,
  account = "acme",
): RateDecision[] {
  return Array.from({ length: count }, () => limiter.admit({ account, source, bytes, now }));
}

const admitted = (decisions: readonly RateDecision[]) => decisions.filter((decision) => decision === "admitted").length;

describe("collection rate limiter: DEC-COL-07 per account, fair shares per source beneath it", () => {
  it("a source alone gets the account's whole 100 per second, then accountLimit, and 100 again a second later", () => {
    const limiter = new CollectRateLimiter(settings);
    const first = send(limiter, "a", 130, 10_000);
    assert.equal(admitted(first), 100);
    assert.deepEqual(new Set(first.slice(100)), new Set(["accountLimit"]));
    assert.equal(admitted(send(limiter, "a", 130, 11_000)), 100);
  });

  it("the finding: a flooder after another source has sent holds at most half, and the other source's events are all admitted", () => {
    const limiter = new CollectRateLimiter(settings);
    assert.equal(admitted(send(limiter, "real", 1, 1_000)), 1);
    const flood: RateDecision[] = [];
    // 320 events in 0.8 s.
    for (let index = 0; index < 320; index += 1)
      flood.push(...send(limiter, "flooder", 1, 1_000 + Math.floor(index * 2.5)));
    assert.equal(admitted(flood), 50);
    assert.equal(flood.at(-1), "sourceShare");
    for (let at = 1_100; at < 1_900; at += 80) assert.deepEqual(send(limiter, "real", 1, at), ["admitted"]);
  });

  it("two sources flooding at once each get half", () => {
    const limiter = new CollectRateLimiter(settings);
    const decisions = { a: [] as RateDecision[], b: [] as RateDecision[] };
    for (let index = 0; index < 200; index += 1) {
      decisions.a.push(...send(limiter, "a", 1, 5_000));
      decisions.b.push(...send(limiter, "b", 1, 5_000));
    }
    assert.equal(admitted(decisions.a), 50);
    assert.equal(admitted(decisions.b), 50);
  });

  it("with many sources a flooder keeps a fifth, and the others the rest of the 100", () => {
    const limiter = new CollectRateLimiter(settings);
    for (let index = 0; index < 30; index += 1) send(limiter, `visitor-${index}`, 1, 2_000);
    assert.equal(admitted(send(limiter, "flooder", 500, 2_500)), 20);
    assert.equal(admitted(send(limiter, "latecomer", 100, 2_600)), 20);
  });

  it("a source counts as active in the 10 s period of the clock it sent in and the next, refused or not; then the flooder is alone again", () => {
    const limiter = new CollectRateLimiter(settings);
    send(limiter, "real", 1, 0);
    assert.equal(admitted(send(limiter, "flooder", 200, 9_999)), 50);
    assert.equal(limiter.activeSources("acme"), 2);
    // The next period: "real" is still active, and the flooder still held to half.
    assert.equal(admitted(send(limiter, "flooder", 200, 19_999)), 50);
    assert.equal(limiter.activeSources("acme"), 2);
    // Two periods on, "real" is forgotten: the flooder alone has the whole window.
    assert.equal(admitted(send(limiter, "flooder", 200, 20_000)), 50);
    assert.equal(limiter.activeSources("acme"), 1);
    assert.equal(admitted(send(limiter, "flooder", 200, 21_000)), 100);
  });

  it("a refused source counts as active: a flood that filled the window alone is held to its share from the first refusal of another", () => {
    const limiter = new CollectRateLimiter(settings);
    assert.equal(admitted(send(limiter, "flooder", 150, 1_000)), 100);
    assert.deepEqual(send(limiter, "real", 1, 1_100), ["accountLimit"]);
    // A second later the window is empty again, but the flooder may only take half of it.
    assert.equal(admitted(send(limiter, "flooder", 150, 2_000)), 50);
    assert.equal(admitted(send(limiter, "real", 10, 2_100)), 10);
  });

  it("a clock set back forgets the sources, and the account's window keeps DEC-COL-07", () => {
    const limiter = new CollectRateLimiter(settings);
    send(limiter, "real", 1, 50_000);
    assert.equal(admitted(send(limiter, "flooder", 200, 50_000)), 50);
    assert.equal(admitted(send(limiter, "flooder", 200, 1_000)), 100);
    assert.equal(limiter.activeSources("acme"), 1);
  });

  it("what is kept stays bounded: the sources of two 10 s periods, and the byte buckets of two seconds", () => {
    const limiter = new CollectRateLimiter(settings);
    for (let second = 0; second < 60; second += 1) {
      for (let index = 0; index < 100; index += 1) send(limiter, `s-${second}-${index}`, 1, second * 1_000 + index);
    }
    // At 59.099 s: the sources of 40 s to 59.099 s.
    assert.equal(limiter.activeSources("acme"), 2_000);
    assert.ok(limiter.keptBuckets() <= 200, `kept ${limiter.keptBuckets()} buckets`);
    send(limiter, "last", 1, 120_000);
    assert.equal(limiter.activeSources("acme"), 1);
    assert.equal(limiter.keptBuckets(), 1);
  });

  it("shares are per account: a flood on one account takes nothing of another's", () => {
    const limiter = new CollectRateLimiter(settings);
    send(limiter, "real", 1, 1_000, 100, "globex");
    assert.equal(admitted(send(limiter, "flooder", 300, 1_000, 100, "acme")), 100);
    assert.equal(admitted(send(limiter, "real", 100, 1_001, 100, "globex")), 99);
  });

  it("a refusal admits nothing: the account's window and the source's share are untouched", () => {
    const limiter = new CollectRateLimiter(settings);
    send(limiter, "a", 1, 0);
    send(limiter, "b", 60, 0);
    // b holds 50, the account 51: b's refusals took none of the 49 left for a.
    assert.equal(admitted(send(limiter, "a", 60, 0)), 49);
  });

  it("bytes: a source may send 8 MiB at once and 8 MiB a second after, whatever the accounts; another source keeps its own", () => {
    const limiter = new CollectRateLimiter(settings);
    const big = (source: string, now: number, account = "acme") => limiter.admit({ account, source, bytes: mib, now });
    const decisions = Array.from({ length: 10 }, (_, index) =>
      big("heavy", 1_000, index % 2 === 0 ? "acme" : "globex"),
    );
    assert.equal(admitted(decisions), 8);
    assert.deepEqual(decisions.slice(8), ["sourceBytes", "sourceBytes"]);
    assert.equal(big("light", 1_000), "admitted");
    // 250 ms later, 2 MiB are back.
    assert.deepEqual(
      [big("heavy", 1_250), big("heavy", 1_250), big("heavy", 1_250)],
      ["admitted", "admitted", "sourceBytes"],
    );
  });

  it("never more than the account's limit in any 1000 ms, and no source past its share while another sent in this period or the last", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: 4 })), { maxLength: 1500 }),
        (requests) => {
          const limit = 10;
          const limiter = new CollectRateLimiter({ eventsPerSecond: limit, bytesPerSourcePerSecond: 1_000_000 });
          const log: Array<{ at: number; source: number }> = [];
          const seen = new Map<number, number>();
          const periodOf = (at: number) => Math.floor(at / 10_000);
          let now = 1_000_000;
          for (const [gap, source] of requests) {
            now += gap;
            seen.set(source, now);
            const decision = limiter.admit({ account: "acme", source: `s${source}`, bytes: 1, now });
            if (decision !== "admitted") continue;
            log.push({ at: now, source });
            const inWindow = log.filter((entry) => entry.at > now - 1000);
            assert.ok(inWindow.length <= limit);
            const active = [...seen.values()].filter((at) => periodOf(at) >= periodOf(now) - 1).length;
            const share = active <= 1 ? limit : Math.max(Math.ceil(limit / 5), Math.floor(limit / active));
            assert.ok(inWindow.filter((entry) => entry.source === source).length <= share);
          }
        },
      ),
      { numRuns: 50 },
    );
  });
});

describe("collection rate limiter: the exchange of counts with the store (COL-15, DEC-COL-07 across nodes)", () => {
  const second = 5_000;
  const at = (ms: number) => second * 1000 + ms;

  it("asks nothing while no account had an event in this second or the one before", () => {
    const limiter = new CollectRateLimiter(settings);
    assert.equal(limiter.exchangeAt(at(0), "n1"), null);
    send(limiter, "a", 1, at(0));
    assert.notEqual(limiter.exchangeAt(at(1_999), "n1"), null);
    assert.equal(limiter.exchangeAt(at(2_000), "n1"), null);
  });

  it("gives the store the counts of this second and the one before that it does not have yet, and asks about the accounts of both", () => {
    const limiter = new CollectRateLimiter(settings);
    send(limiter, "a", 130, at(900));
    send(limiter, "a", 5, at(900), 100, "globex");
    send(limiter, "a", 3, at(1_100));
    const first = limiter.exchangeAt(at(1_100), "n1");
    assert.deepEqual(first?.exchange, {
      node: "n1",
      counts: [
        { account: "acme", second: second, offered: 130, admitted: 100 },
        { account: "acme", second: second + 1, offered: 3, admitted: 0 },
        { account: "globex", second: second, offered: 5, admitted: 5 },
      ],
      accounts: ["acme", "globex"],
      fromSecond: second,
      toSecond: second + 1,
    });
    limiter.settleExchange(first as PendingExchange, []);
    send(limiter, "a", 2, at(1_200));
    assert.deepEqual(limiter.exchangeAt(at(1_200), "n1")?.exchange.counts, [
      { account: "acme", second: second + 1, offered: 5, admitted: 0 },
    ]);
  });

  it("the other nodes' counts hold the node to its share of the limit, and what they admitted in this second counts", () => {
    const limiter = new CollectRateLimiter(settings);
    send(limiter, "a", 500, at(0));
    const pending = limiter.exchangeAt(at(999), "n1") as PendingExchange;
    limiter.settleExchange(pending, [{ account: "acme", second: second, offered: 1_500, admitted: 0 }]);
    // In the next second: offered 500 here and 1500 elsewhere, a quarter of the limit is this node's.
    assert.equal(admitted(send(limiter, "a", 100, at(1_000))), 25);
    const next = limiter.exchangeAt(at(1_000), "n1") as PendingExchange;
    limiter.settleExchange(next, [
      { account: "acme", second: second, offered: 100, admitted: 75 },
      { account: "acme", second: second + 1, offered: 1_000, admitted: 80 },
    ]);
    // Read again, the others were offered 100 in the second before: this node's share is 83; but they admitted 80
    // of this second, so the 25 here leave no room.
    assert.equal(admitted(send(limiter, "a", 10, at(1_500))), 0);
  });

  it("an account new here, or back after two seconds without events, is unread until an exchange asks about it", () => {
    const limiter = new CollectRateLimiter(settings);
    assert.equal(limiter.hasUnreadAccounts(), false);
    send(limiter, "a", 1, at(0));
    assert.equal(limiter.hasUnreadAccounts(), true);
    limiter.exchangeAt(at(0), "n1");
    assert.equal(limiter.hasUnreadAccounts(), false);
    send(limiter, "a", 1, at(1_500));
    assert.equal(limiter.hasUnreadAccounts(), false);
    send(limiter, "a", 1, at(4_000));
    assert.equal(limiter.hasUnreadAccounts(), true);
  });

  it("the answer to an exchange made before forget (a reset) is dropped", () => {
    const limiter = new CollectRateLimiter(settings);
    send(limiter, "a", 1, at(0));
    const pending = limiter.exchangeAt(at(0), "n1") as PendingExchange;
    limiter.forget();
    limiter.settleExchange(pending, [{ account: "acme", second: second, offered: 1_000, admitted: 100 }]);
    assert.equal(admitted(send(limiter, "a", 130, at(10))), 100);
  });
});
