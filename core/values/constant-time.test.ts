import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { equalInConstantTime } from "./constant-time.ts";

describe("equalInConstantTime", () => {
  it("is true for equal strings and false for strings that differ anywhere, or in length", () => {
    const digest = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    assert.equal(equalInConstantTime(digest, digest), true);
    assert.equal(equalInConstantTime("", ""), true);
    assert.equal(equalInConstantTime(digest, `0${digest.slice(1)}`), false);
    assert.equal(equalInConstantTime(digest, `${digest.slice(0, -1)}9`), false);
    assert.equal(equalInConstantTime(digest, digest.slice(0, -1)), false);
    assert.equal(equalInConstantTime(digest, `${digest}0`), false);
    assert.equal(equalInConstantTime(digest, digest.toUpperCase()), false);
  });

  it("agrees with === on any two strings", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        assert.equal(equalInConstantTime(a, b), a === b);
        assert.equal(equalInConstantTime(a, a), true);
      }),
    );
  });
});
