import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { isIndexableText, isStorableText, maxIndexedTextBytes, utf8ByteLength } from "./storable-text.rules.ts";

/** Any text of UTF-16 code units: lone surrogates, U+0000 and U+FFFF among them. */
const anyText = (maxLength: number) =>
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit)), maxLength });

describe("text that every store keeps (decisions of our own, second probe finding 4)", () => {
  it("holds no U+0000: PostgreSQL refuses it, libSQL reads the text back cut short at it", () => {
    const table: Array<[string, boolean]> = [
      ["", true],
      ["acme", true],
      ["\u0000", false],
      ["a\u0000b", false],
      ["demo@example.com\u0000", false],
      // Other text is kept as it is: a lone surrogate is a U+FFFD in both SQL stores, which is another name.
      ["\ud800", true],
      ["\uffff", true],
      ["e\u0301", true],
      ["%00", true],
      ["\\u0000", true],
      ["\u0001\u007f\u0085", true],
    ];
    for (const [text, storable] of table) assert.equal(isStorableText(text), storable, JSON.stringify(text));
  });

  it("any text with a U+0000 in it is not storable, any without is", () => {
    fc.assert(
      fc.property(anyText(40), anyText(40), (before, after) => {
        assert.equal(isStorableText(`${before}\u0000${after}`), false);
        assert.equal(isStorableText(`${before}${after}`.replaceAll("\u0000", "")), true);
      }),
    );
  });

  it("counts the bytes a store writes: UTF-8, a lone surrogate as the three bytes of U+FFFD", () => {
    assert.equal(utf8ByteLength(""), 0);
    assert.equal(utf8ByteLength("a"), 1);
    assert.equal(utf8ByteLength("é"), 2);
    assert.equal(utf8ByteLength("一"), 3);
    assert.equal(utf8ByteLength("😀"), 4);
    assert.equal(utf8ByteLength("\ud800"), 3);
    assert.equal(utf8ByteLength("\udc00\ud800"), 6);
    fc.assert(
      fc.property(anyText(200), (text) => {
        // TextEncoder writes U+FFFD for a lone surrogate, as both SQL stores' drivers do.
        assert.equal(utf8ByteLength(text), new TextEncoder().encode(text).length);
      }),
    );
  });

  it("indexable: storable and at most 2,048 bytes, which a PostgreSQL index entry holds beside the account and profile", () => {
    assert.equal(maxIndexedTextBytes, 2048);
    assert.equal(isIndexableText("x".repeat(2048)), true);
    assert.equal(isIndexableText("x".repeat(2049)), false);
    assert.equal(isIndexableText("é".repeat(1024)), true);
    assert.equal(isIndexableText("一".repeat(683)), false);
    assert.equal(isIndexableText("a\u0000b"), false);
  });
});
