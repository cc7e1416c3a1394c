import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { advanceClock, parseDuration, setClockTo, virtualNow } from "./virtual-clock.rules.ts";

describe("virtual clock (DEC-OPS-02)", () => {
  it("setting the clock makes it read the target now and flow at the real pace after", () => {
    const set = setClockTo(1_000, 50_000);
    assert.ok(set.ok);
    assert.equal(virtualNow(1_000, set.value), 50_000);
    assert.equal(virtualNow(1_500, set.value), 50_500);
  });

  it("advancing moves the clock forward by exactly the amount", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 40 }),
        fc.integer({ min: -(2 ** 40), max: 2 ** 40 }),
        fc.integer({ min: 0, max: 2 ** 40 }),
        (real, offset, by) => {
          const moved = advanceClock(real, { offsetMs: offset }, by);
          assert.ok(moved.ok);
          assert.equal(virtualNow(real, moved.value) - virtualNow(real, { offsetMs: offset }), by);
        },
      ),
    );
  });

  it("refuses a negative advance and a time that is not finite", () => {
    assert.deepEqual(advanceClock(0, { offsetMs: 0 }, -1), { ok: false, error: "negative-advance" });
    assert.deepEqual(setClockTo(0, Number.NaN), { ok: false, error: "not-a-time" });
    assert.deepEqual(setClockTo(0, -5), { ok: false, error: "out-of-range" });
  });
});

describe("durations", () => {
  const table: Array<[string | number, number]> = [
    [1500, 1500],
    ["1500", 1500],
    ["90s", 90_000],
    ["10m", 600_000],
    ["30d", 30 * 86_400_000],
    ["1d12h", 36 * 3_600_000],
    ["250ms", 250],
  ];
  for (const [input, expected] of table) {
    it(`reads ${JSON.stringify(input)} as ${expected} ms`, () => {
      assert.deepEqual(parseDuration(input), { ok: true, value: expected });
    });
  }

  it("refuses what is not a duration", () => {
    for (const bad of ["", "abc", "10x", "5m junk", "-3s", -1, Number.POSITIVE_INFINITY]) {
      assert.equal(parseDuration(bad).ok, false, String(bad));
    }
  });

  it("never throws on any text", () => {
    fc.assert(fc.property(fc.string(), (text) => void parseDuration(text)));
  });
});
