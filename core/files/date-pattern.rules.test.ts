import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { compileDatePattern, type DatePattern, parseDateWithPattern } from "./date-pattern.rules.ts";

function compiled(source: string): DatePattern {
  const result = compileDatePattern(source);
  assert.ok(result.ok, JSON.stringify(result));
  return result.value;
}

describe("Java-style date patterns (DEC-FIL-01)", () => {
  const examples: Array<[string, string, string | null]> = [
    ["yyyy-MM-dd HH:mm", "2024-01-31 09:30", "2024-01-31T09:30:00.000Z"],
    ["yyyy-MM-dd HH:mm", " 2024-01-31 09:30 ", "2024-01-31T09:30:00.000Z"],
    ["yyyy-MM-dd HH:mm:ss.SSS", "2024-02-29 23:59:58.007", "2024-02-29T23:59:58.007Z"],
    ["dd/MM/yyyy", "31/12/1999", "1999-12-31T00:00:00.000Z"],
    ["d.M.yyyy", "5.7.2021", "2021-07-05T00:00:00.000Z"],
    ["yyyyMMddHHmmss", "20240131093015", "2024-01-31T09:30:15.000Z"],
    ["yyyy-MM-dd'T'HH:mm", "2024-01-31T09:30", "2024-01-31T09:30:00.000Z"],
    ["yyyy-MM-dd 'o''clock' H", "2024-01-31 o'clock 7", "2024-01-31T07:00:00.000Z"],
    ["yyyy-MM-dd HH:mm", "2024-01-31", null],
    ["yyyy-MM-dd HH:mm", "2024-01-31 09:30:00", null],
    ["yyyy-MM-dd HH:mm", "31/01/2024 09:30", null],
    ["yyyy-MM-dd", "2023-02-29", null],
    ["yyyy-MM-dd HH:mm", "2024-01-31 24:00", null],
    ["yyyy-MM-dd", "2024-13-01", null],
    ["yyyy-MM-dd", "", null],
  ];
  for (const [pattern, value, expected] of examples) {
    it(`${pattern} reads ${JSON.stringify(value)} as ${expected ?? "no date"}`, () => {
      const parsed = parseDateWithPattern(compiled(pattern), value);
      assert.equal(parsed === null ? null : new Date(parsed).toISOString(), expected);
    });
  }

  const refused = [
    "yy-MM-dd",
    "yyyy-MMM-dd",
    "yyyy-MM-dd hh:mm",
    "yyyy-MM-dd HH:mm a",
    "yyyy-MM-dd Z",
    "EEE yyyy-MM-dd",
    "yyyy-MM-dd'T",
    "HH:mm",
    "yyyy-MM-dd yyyy",
    "yyyy-MM-dd HH:mm:ss.SS",
  ];
  for (const pattern of refused) {
    it(`refuses ${JSON.stringify(pattern)} with a reason`, () => {
      const result = compileDatePattern(pattern);
      assert.equal(result.ok, false);
      assert.ok(!result.ok && result.error.length > 10);
    });
  }

  it("formatting a time with a pattern and reading it back gives the time (to the pattern's precision)", () => {
    const pattern = compiled("yyyy-MM-dd HH:mm:ss.SSS");
    fc.assert(
      fc.property(fc.integer({ min: Date.UTC(1000, 0, 1), max: Date.UTC(9999, 11, 31) }), (ms) => {
        const iso = new Date(ms).toISOString();
        const text = `${iso.slice(0, 10)} ${iso.slice(11, 23)}`;
        assert.equal(parseDateWithPattern(pattern, text), ms);
      }),
    );
  });

  it("never throws, whatever the pattern or the value", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (source, value) => {
        const result = compileDatePattern(source);
        if (result.ok) parseDateWithPattern(result.value, value);
      }),
    );
  });
});
