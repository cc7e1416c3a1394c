import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { fitsCombinedLength, isAllowedName, isEmailAddress, maxCombinedNameLength } from "./names.rules.ts";

describe("names (DEC-DLE-02)", () => {
  it("allow only A-Z a-z 0-9 _ - ~, at least one", () => {
    for (const name of ["acme", "Main_2", "a-b~c", "0", "~"]) assert.equal(isAllowedName(name), true, name);
    for (const name of [
      "",
      " acme",
      "a b",
      "a/b",
      "a.b",
      "a:b",
      "a?b",
      "a#b",
      "a[b]",
      "a@b",
      "a!b",
      "a$b",
      "a&b",
      "a'b",
      "a(b)",
      "a*b",
      "a+b",
      "a,b",
      "a;b",
      "a=b",
      "a%b",
      'a"b',
      "a\\b",
      "café",
      "a\nb",
    ]) {
      assert.equal(isAllowedName(name), false, JSON.stringify(name));
    }
  });

  it("any string with a character outside the set is refused", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        assert.equal(isAllowedName(text), text.length > 0 && [...text].every((char) => /[A-Za-z0-9_~-]/.test(char)));
      }),
    );
  });

  it("the 250 rule counts the names together, without separators: 250 passes, 251 does not", () => {
    assert.equal(maxCombinedNameLength, 250);
    assert.equal(fitsCombinedLength("acme", "main", "x".repeat(242)), true);
    assert.equal(fitsCombinedLength("acme", "main", "x".repeat(243)), false);
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 120 }), { maxLength: 4 }), (names) => {
        assert.equal(fitsCombinedLength(...names), names.join("").length <= 250);
      }),
    );
  });
});

describe("users' e-mail addresses (DEC-SES-04)", () => {
  it("local@domain.tld, with any letters, but no white space, control or invisible formatting character", () => {
    for (const email of ["ann@example.com", "Ops@Example.com", "ü@exämple.de", "a+tag@sub.example.co"])
      assert.equal(isEmailAddress(email), true, email);
    for (const email of [
      "",
      "ann",
      "a@b",
      "a@@b.c",
      "a b@c.de",
      "n\u0000m@example.com",
      "a\u0007@example.com",
      "a\u0085b@example.com",
      "a\u200bb@example.com",
      "a\u202eb@example.com",
      "\ufeffa@example.com",
      "a@example.com\n",
      "a\u061cb@example.com",
      "a\u00adb@example.com",
      "a\ufe0fb@example.com",
      "a\u{e0041}b@example.com",
      "a\ud800@example.com",
    ]) {
      assert.equal(isEmailAddress(email), false, JSON.stringify(email));
    }
  });
});
