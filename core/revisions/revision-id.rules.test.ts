import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  formatTimeCreated,
  minuteOf,
  newestFirst,
  nextFreeRevisionId,
  parseRevisionId,
  revisionIdOf,
} from "./revision-id.rules.ts";

const minute = 60_000;
/** Times from 1970 into 9999, the range a four-digit year can show (leaving room for a few minutes more). */
const anyTime = fc.integer({ min: 0, max: Date.UTC(9999, 0, 1) });

describe("revision ids (REV-02, DEC-REV-01)", () => {
  it("are the UTC minute as YYYYMMDDHHMM", () => {
    assert.equal(revisionIdOf(Date.UTC(2017, 11, 13, 19, 54, 59, 999)), "201712131954");
    assert.equal(revisionIdOf(Date.UTC(2025, 0, 2, 3, 4)), "202501020304");
    assert.equal(revisionIdOf(0), "197001010000");
  });

  it("parse back to the minute they name, and only real minutes parse", () => {
    assert.equal(parseRevisionId("201712131954"), Date.UTC(2017, 11, 13, 19, 54));
    assert.equal(parseRevisionId("202402290000"), Date.UTC(2024, 1, 29));
    for (const bad of [
      "",
      "20171213195",
      "2017121319540",
      "20171213195a",
      "202302290000",
      "202313010000",
      "202312320000",
      "202312312400",
      "202312312360",
      "000001010000",
      " 201712131954",
      "２０１７１２１３１９５４",
    ]) {
      assert.equal(parseRevisionId(bad), null, bad);
    }
  });

  it("round-trip: the id of any time parses to the start of its minute", () => {
    fc.assert(fc.property(anyTime, (ms) => parseRevisionId(revisionIdOf(ms)) === minuteOf(ms)));
  });

  it("parsing never throws, whatever the text", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const parsed = parseRevisionId(text);
        return parsed === null || revisionIdOf(parsed) === text;
      }),
    );
  });

  it("take the publish minute when it is free, else the next free minute", () => {
    const now = Date.UTC(2025, 0, 2, 19, 53, 30);
    assert.equal(
      nextFreeRevisionId(now, () => false),
      "202501021953",
    );
    const taken = new Set(["202501021953", "202501021954", "202501021956"]);
    assert.equal(
      nextFreeRevisionId(now, (id) => taken.has(id)),
      "202501021955",
    );
    // The next free minute crosses hours, days and years like any minute.
    const endOfYear = Date.UTC(2024, 11, 31, 23, 59, 10);
    assert.equal(
      nextFreeRevisionId(endOfYear, (id) => id === "202412312359"),
      "202501010000",
    );
  });

  it("the chosen id is never taken, never before the publish minute, and every minute between is taken", () => {
    fc.assert(
      fc.property(anyTime, fc.array(fc.integer({ min: 0, max: 30 }), { maxLength: 20 }), (now, offsets) => {
        const taken = new Set(offsets.map((offset) => revisionIdOf(now + offset * minute)));
        const id = nextFreeRevisionId(now, (candidate) => taken.has(candidate));
        const chosen = parseRevisionId(id);
        if (chosen === null || taken.has(id) || chosen < minuteOf(now)) return false;
        for (let between = minuteOf(now); between < chosen; between += minute)
          if (!taken.has(revisionIdOf(between))) return false;
        return true;
      }),
    );
  });

  it("list newest first", () => {
    assert.deepEqual(newestFirst(["201712131954", "202501021953", "201612131954"]), [
      "202501021953",
      "201712131954",
      "201612131954",
    ]);
    fc.assert(
      fc.property(fc.array(anyTime), (times) => {
        const sorted = newestFirst(times.map(revisionIdOf)).map((id) => parseRevisionId(id) as number);
        return sorted.every((at, index) => index === 0 || (sorted[index - 1] as number) >= at);
      }),
    );
  });
});

describe("time_created (REV-04)", () => {
  it("reads like the vendor's example: <weekday> YYYY.MM.DD HH:MM GMT", () => {
    assert.equal(formatTimeCreated(Date.UTC(2017, 11, 13, 19, 54, 31)), "Wed 2017.12.13 19:54 GMT");
    assert.equal(formatTimeCreated(Date.UTC(2025, 0, 2, 19, 53)), "Thu 2025.01.02 19:53 GMT");
    assert.equal(formatTimeCreated(Date.UTC(2024, 1, 4, 0, 5)), "Sun 2024.02.04 00:05 GMT");
  });

  it("always has the shape, a three-letter English weekday and the UTC minute of the revision id", () => {
    fc.assert(
      fc.property(anyTime, (ms) => {
        const match = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (\d{4})\.(\d{2})\.(\d{2}) (\d{2}):(\d{2}) GMT$/.exec(
          formatTimeCreated(ms),
        );
        return match !== null && match.slice(2).join("") === revisionIdOf(ms);
      }),
    );
  });
});
