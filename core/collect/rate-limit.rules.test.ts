import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { admitEvent, emptyRateWindow, rateWindowMs, type RateWindow } from "./rate-limit.rules.ts";

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
          assert.ok(window.admittedAt.length <= limit);
        }
      }),
    );
  });

  it("a clock set back does not keep the account blocked", () => {
    const full = admitAll(Array.from({ length: 100 }, () => 10_000_000), 100);
    assert.equal(full.length, 100);
    let window: RateWindow = emptyRateWindow;
    for (let index = 0; index < 100; index += 1) window = admitEvent(window, 10_000_000, 100).next;
    assert.equal(admitEvent(window, 10_000_000, 100).admitted, false);
    assert.equal(admitEvent(window, 1_000, 100).admitted, true);
  });
});
