import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  type BundleMemberName,
  classifyMemberName,
  compareMembers,
  isValidFilePrefix,
} from "./bundle-members.rules.ts";

function kindOf(name: string, prefix = "utag"): string {
  const result = classifyMemberName(name, prefix);
  return result.ok
    ? `${result.value.kind}${result.value.number === undefined ? "" : ` ${result.value.number}`}`
    : `refused: ${result.error}`;
}

describe("bundle member names (REV-06, DEC-REV-02)", () => {
  it("follow the naming scheme of the prefix", () => {
    assert.equal(kindOf("utag.js"), "loader");
    assert.equal(kindOf("utag.1.js"), "vendor 1");
    assert.equal(kindOf("utag.42.js"), "vendor 42");
    assert.equal(kindOf("utag.sync.js"), "sync");
    assert.equal(kindOf("mobile.html"), "mobile");
    assert.equal(kindOf("tm.js", "tm"), "loader");
    assert.equal(kindOf("tm.7.js", "tm"), "vendor 7");
    assert.equal(kindOf("utag.js", "tm"), "refused: must be one of tm.js, tm.<n>.js, tm.sync.js or mobile.html");
  });

  it("refuse paths, .., control characters and anything outside the scheme (no zip-slip)", () => {
    const refused: Array<[string, RegExp]> = [
      ["", /must not be empty/],
      ["../utag.js", /without a folder/],
      ["..\\utag.js", /without a folder/],
      ["/etc/utag.js", /without a folder/],
      ["C:\\utag.js", /without a folder/],
      ["dir/utag.js", /without a folder/],
      ["utag..js", /must not contain "\.\."/],
      ["..", /must not contain "\.\."/],
      ["utag.js\u0000.png", /control characters/],
      ["utag.js\n", /control characters/],
      ["manifest.json", /made by the service/],
      ["bundle.zip", /made by the service/],
      ["utag.0.js", /must be one of/],
      ["utag.01.js", /must be one of/],
      ["utag.1234567890.js", /must be one of/],
      ["utag.-1.js", /must be one of/],
      ["UTAG.js", /must be one of/],
      ["utag.JS", /must be one of/],
      ["utag.js.map", /must be one of/],
      ["utag.v.js", /must be one of/],
      ["Mobile.html", /must be one of/],
      [" utag.js", /must be one of/],
      ["x".repeat(101), /at most 100/],
    ];
    for (const [name, reason] of refused) {
      const result = classifyMemberName(name, "utag");
      assert.ok(!result.ok, `${JSON.stringify(name)} must be refused`);
      assert.match(result.error, reason, JSON.stringify(name));
    }
  });

  it("an accepted name is a plain file name: no separator, no .., and one of the four shapes", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.constantFrom("utag.js", "utag.9.js", "mobile.html"),
          fc.stringMatching(/^utag\.[0-9a-z./\\]{1,6}\.js$/),
        ),
        (name) => {
          const result = classifyMemberName(name, "utag");
          if (!result.ok) return true;
          return (
            !/[/\\]/.test(name) &&
            !name.includes("..") &&
            /^(utag\.js|utag\.[1-9][0-9]{0,8}\.js|utag\.sync\.js|mobile\.html)$/.test(name)
          );
        },
      ),
    );
  });

  it("prefixes are plain names", () => {
    assert.ok(isValidFilePrefix("utag"));
    assert.ok(isValidFilePrefix("my_tags-2"));
    for (const bad of ["", "a.b", "a/b", "..", "a b", "x".repeat(65)]) assert.ok(!isValidFilePrefix(bad), bad);
  });

  it("sort in bundle order: loader, vendor files by number, sync loader, mobile.html", () => {
    const names = ["mobile.html", "utag.10.js", "utag.sync.js", "utag.2.js", "utag.js", "utag.1.js"];
    const members = names.map((name) => {
      const result = classifyMemberName(name, "utag");
      assert.ok(result.ok);
      return result.value;
    });
    assert.deepEqual(
      members.sort(compareMembers).map((member: BundleMemberName) => member.name),
      ["utag.js", "utag.1.js", "utag.2.js", "utag.10.js", "utag.sync.js", "mobile.html"],
    );
  });
});
