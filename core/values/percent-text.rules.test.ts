import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { decodePercent } from "./percent-text.rules.ts";

describe("decodePercent", () => {
  it("[DEC-COL-10] decodes valid percent-encoding and keeps any other text as it is", () => {
    assert.equal(decodePercent("x%7Cy%3E%C3%A9"), "x|y>é");
    assert.equal(decodePercent("plain+text"), "plain+text");
    assert.equal(decodePercent("100%"), "100%");
    assert.equal(decodePercent("%E9%zz"), "%E9%zz");
  });

  it("never throws, and text without '%' is itself", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const decoded = decodePercent(text);
        if (!text.includes("%")) assert.equal(decoded, text);
      }),
    );
  });
});
